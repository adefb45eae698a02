extension StringProtocol {
    /// The text in single quotes with control characters escaped (`\n`, `\u{0}`),
    /// so an error naming what someone typed stays one line.
    public var inlineQuoted: String {
        "'" + unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined() + "'"
    }
}
