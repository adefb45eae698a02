extension StringProtocol {
    /// The text in single quotes with control characters escaped (`\n`, `\u{0}`),
    /// so an error naming what someone typed stays one line.
    public var inlineQuoted: String {
        "'" + escaping { $0.properties.generalCategory == .control } + "'"
    }

    /// The text with each scalar `escaped` picks written as a visible escape (`\u{1B}`).
    public func escaping(_ escaped: (Unicode.Scalar) -> Bool) -> String {
        guard unicodeScalars.contains(where: escaped) else { return String(self) }
        var out = ""
        for scalar in unicodeScalars {
            if escaped(scalar) { out += scalar.escaped(asASCII: true) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}

extension StringProtocol {
    /// The text without the whitespace it ends with, found from the end: linear in the text (a pattern anchored at
    /// its end, `\\s+$`, is tried from every space of a line of others' words, quadratic in it).
    public var withoutTrailingWhitespace: String {
        var end = endIndex
        while end > startIndex, self[index(before: end)].isWhitespace { end = index(before: end) }
        return String(self[..<end])
    }
}
