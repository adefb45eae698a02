/// What the cloud takes as a name: record and zone names are at most 255
/// characters of printable text (as CloudKit's), record types identifiers.
/// Names travel into other accounts' terminals, file names and URLs, so a
/// control character, a line break or a name of spaces only is refused, not
/// stored.
public enum NameRules {
    public static let maxLength = 255

    /// A record's or a zone's name.
    static func validate(name: String, of what: String) throws(CloudError) {
        guard !name.isEmpty, name.count <= maxLength, name.unicodeScalars.allSatisfy(isPrintable),
              name.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw .invalidArguments("\(what) name \(name.prefix(40).inlineQuoted)\(name.count > 40 ? "…" : "") must be 1 to "
                                    + "\(maxLength) characters of printable text")
        }
    }

    /// A record type: a letter, then letters, digits or '_' (the cloud's own types hold a '.').
    static func validate(type: String) throws(CloudError) {
        guard let first = type.unicodeScalars.first, first.properties.isAlphabetic, type.count <= maxLength,
              type.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }) else {
            throw .invalidArguments("record type \(type.prefix(40).inlineQuoted) must be a letter, then letters, digits or '_' "
                                    + "(at most \(maxLength))")
        }
    }

    /// Text another account's terminal may show: no controls, format characters (bidirectional overrides,
    /// zero-width marks) or line and paragraph separators.
    public static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: false
        default: true
        }
    }
}
