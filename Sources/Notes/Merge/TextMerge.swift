/// A three-way merge of multi-line text, line by line (diff3).
///
/// `theirs` is the text already saved (the newest copy, or the cloud's);
/// `mine` is the edit being merged in; `base` is the text the edit started
/// from. Lines both sides left as they were anchor the merge. Between
/// anchors, a part only one side changed takes that side's lines; a part
/// both changed the same way takes them once; where both only added lines
/// at the same place (two people appending), both additions are kept, theirs
/// first. A part both changed differently becomes a `ConflictBlock` holding
/// both sides under their authors' names, so no typed word is ever silently
/// lost.
///
/// Without a base (it is unknown: a save whose response was lost, a cloud
/// rebuilt from devices), the lines both texts share stand in for it, and
/// whatever one side has and the other lacks is kept; where both differ at
/// one place the block shows both.
public enum TextMerge {
    /// What a merge produced.
    public struct Result: Equatable, Sendable {
        public var text: String
        /// Whether some part was changed on both sides in different ways.
        public var conflicted: Bool
    }

    public static func merge(base: String?, mine: String, theirs: String, mineBy: Author, theirsBy: Author) -> Result {
        if mine == theirs || mine == base { return Result(text: theirs, conflicted: false) }
        if theirs == base { return Result(text: mine, conflicted: false) }
        let m = lines(mine), t = lines(theirs)
        let b = base.map(lines) ?? LineDiff.matches(m, t).map { m[$0.0] }
        let toMine = Dictionary(uniqueKeysWithValues: LineDiff.matches(b, m))
        let toTheirs = Dictionary(uniqueKeysWithValues: LineDiff.matches(b, t))
        // Base lines kept by both sides, in order on all three, anchor the chunks.
        var anchors: [(Int, Int, Int)] = []
        var lastM = -1, lastT = -1
        for i in b.indices {
            if let mi = toMine[i], let ti = toTheirs[i], mi > lastM, ti > lastT {
                anchors.append((i, mi, ti))
                lastM = mi
                lastT = ti
            }
        }
        anchors.append((b.count, m.count, t.count))
        var out: [Substring] = []
        var conflicted = false
        var (bi, mi, ti) = (0, 0, 0)
        for (bj, mj, tj) in anchors {
            let baseChunk = b[bi..<bj], mineChunk = m[mi..<mj], theirChunk = t[ti..<tj]
            if mineChunk.elementsEqual(baseChunk) || mineChunk.elementsEqual(theirChunk) {
                out += theirChunk
            } else if theirChunk.elementsEqual(baseChunk) {
                out += mineChunk
            } else if baseChunk.isEmpty && base != nil {
                out += theirChunk  // both added lines here: keep both
                out += mineChunk
            } else {
                conflicted = true
                out += ConflictBlock.lines([(theirsBy, Array(theirChunk)), (mineBy, Array(mineChunk))])
            }
            if bj < b.count { out.append(b[bj]) }
            (bi, mi, ti) = (bj + 1, mj + 1, tj + 1)
        }
        return Result(text: out.joined(separator: "\n"), conflicted: conflicted)
    }

    /// The lines of a text; an empty text has none (not one empty line, which would differ from another side's lines).
    static func lines(_ text: String) -> [Substring] {
        text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false)
    }
}
