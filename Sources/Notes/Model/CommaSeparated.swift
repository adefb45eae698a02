extension StringProtocol {
    /// A list typed on one line, "a, b,,c, a " as ["a", "b", "c"]: tags, people to invite (each once).
    public var commaSeparated: [String] {
        var seen = Set<String>()
        return split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
