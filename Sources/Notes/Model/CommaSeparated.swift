extension StringProtocol {
    /// A list typed on one line, "a, b,,c " as ["a", "b", "c"]: tags, people to invite.
    public var commaSeparated: [String] {
        split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
