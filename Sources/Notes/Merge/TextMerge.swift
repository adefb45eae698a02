/// A three-way merge of multi-line text, line by line (diff3).
///
/// Lines both sides left as they were anchor the merge. Between anchors, a
/// part only one side changed takes that side's lines; a part both changed
/// the same way takes them once; a part both changed differently keeps the
/// server's lines and then this device's lines inside a visible block, so no
/// typed word is ever silently lost.
public enum TextMerge {
    /// What a merge produced.
    public struct Result: Equatable, Sendable {
        public var text: String
        /// Whether some part was changed on both sides in different ways.
        public var conflicted: Bool
    }

    public static let conflictStart = "<<<<<<< kept from this device (conflicting edit)"
    public static let conflictEnd = ">>>>>>> end of this device's text"

    public static func merge(base: String, local: String, server: String) -> Result {
        if local == server || local == base { return Result(text: server, conflicted: false) }
        if server == base { return Result(text: local, conflicted: false) }
        let b = lines(base), l = lines(local), s = lines(server)
        let toLocal = Dictionary(uniqueKeysWithValues: LineDiff.matches(b, l))
        let toServer = Dictionary(uniqueKeysWithValues: LineDiff.matches(b, s))
        // Base lines kept by both sides, in order on all three, anchor the chunks.
        var anchors: [(Int, Int, Int)] = []
        var lastL = -1, lastS = -1
        for i in b.indices {
            if let li = toLocal[i], let si = toServer[i], li > lastL, si > lastS {
                anchors.append((i, li, si))
                lastL = li
                lastS = si
            }
        }
        anchors.append((b.count, l.count, s.count))
        var out: [Substring] = []
        var conflicted = false
        var (bi, li, si) = (0, 0, 0)
        for (bj, lj, sj) in anchors {
            let baseChunk = Array(b[bi..<bj]), localChunk = Array(l[li..<lj]), serverChunk = Array(s[si..<sj])
            if localChunk == baseChunk || localChunk == serverChunk {
                out += serverChunk
            } else if serverChunk == baseChunk {
                out += localChunk
            } else {
                conflicted = true
                out += serverChunk
                out.append(Substring(conflictStart))
                out += localChunk
                out.append(Substring(conflictEnd))
            }
            if bj < b.count { out.append(b[bj]) }
            (bi, li, si) = (bj + 1, lj + 1, sj + 1)
        }
        return Result(text: out.joined(separator: "\n"), conflicted: conflicted)
    }

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }
}
