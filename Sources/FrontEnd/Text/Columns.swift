/// How many terminal columns text takes, measured per grapheme cluster (what
/// a person sees as one character), not per scalar: an emoji built with ZWJ
/// or made colourful by VS16 is one cluster of two columns.
extension Character {
    public var columns: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value >= 0x20 && first.value < 0x7F && scalars.count == 1 { return 1 }  // ASCII, the common case, fast
        if first == "\t" { return 1 }  // a tab in a post's text draws as one space (see `Grid.put`)
        if first.value < 0x20 || (0x7F..<0xA0).contains(first.value) { return 0 }  // controls draw as nothing
        if isEmojiCluster { return 2 }
        // The rest as terminals draw them: each scalar its own width, marks none. A Devanagari conjunct
        // ("स्ते", one cluster) takes a column for each of its letters.
        return scalars.reduce(0) { $0 + Self.columns(of: $1) }
    }

    /// An emoji, however many scalars build it (ZWJ sequences, flags, VS16): two columns, drawn whole.
    private var isEmojiCluster: Bool {
        unicodeScalars.contains { $0.value == 0xFE0F || $0.properties.isEmojiPresentation }
    }

    /// The pieces a character draws as, one per terminal cell it starts: nil where it is one piece (most
    /// characters); a cluster of several letters (Indic conjuncts, a Thai sara am) as each letter with
    /// the marks after it, so none of them is dropped by a terminal that puts one letter in a cell.
    var cellPieces: [(text: String, columns: Int)]? {
        let scalars = unicodeScalars
        guard scalars.count > 1, !isEmojiCluster, columns > 0 else { return nil }
        var pieces: [(text: String, columns: Int)] = []
        for scalar in scalars {
            let width = Self.columns(of: scalar)
            if width == 0, !pieces.isEmpty {
                pieces[pieces.count - 1].text.unicodeScalars.append(scalar)
            } else {
                pieces.append((String(scalar), width))
            }
        }
        return pieces.count > 1 ? pieces : nil
    }

    /// One scalar's columns: two for East Asian wide ones, none for marks, format characters and the
    /// vowels and finals of conjoining Hangul (they join the syllable's first letter), one for the rest.
    private static func columns(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if isWide(v) { return 2 }
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// East Asian wide and fullwidth ranges (Unicode's EastAsianWidth W and F).
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension StringProtocol {
    public var columns: Int { reduce(0) { $0 + $1.columns } }

    /// The longest prefix that fits in `width` columns, with "…" when cut.
    public func truncated(to width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns > width else { return String(self) }
        var out = "", used = 0
        for c in self {
            if used + c.columns > width - 1 { break }
            out.append(c)
            used += c.columns
        }
        return out + "…"
    }

    /// Lines of at most `width` columns: breaks at spaces where it can, inside a word where it must.
    public func wrapped(to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
            var line = "", used = 0
            var lastSpace: String.Index?
            for c in paragraph {
                let w = c.columns
                if used + w > width {
                    if let space = lastSpace, space > line.startIndex {
                        let rest = String(line[line.index(after: space)...])
                        lines.append(String(line[..<space]))
                        line = rest
                        used = rest.columns
                    } else {
                        lines.append(line)
                        line = ""
                        used = 0
                    }
                    lastSpace = nil
                }
                if c == " " { lastSpace = line.endIndex }
                line.append(c)
                used += w
            }
            lines.append(line)
        }
        return lines
    }
}
