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
/// Where both replaced the same number of lines (two people each editing
/// their own line, side by side), the part merges line by line, and only
/// lines both changed differently conflict.
///
/// A conflict block already in a text (one nobody resolved yet) moves
/// through a merge whole, as if it were one line: the merge never splits
/// one, so blocks always read back. When both sides changed one, the new
/// block holds its sides flat (`ConflictSides`), never a block in a block.
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
        let m = units(mine), t = units(theirs)
        let b = base.map(units) ?? LineDiff.matches(m, t).map { m[$0.0] }
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
        var merge = Chunks(known: base != nil, sides: (mineBy, theirsBy))
        var (bi, mi, ti) = (0, 0, 0)
        for (bj, mj, tj) in anchors {
            let baseChunk = b[bi..<bj], mineChunk = m[mi..<mj], theirChunk = t[ti..<tj]
            if baseChunk.count == mineChunk.count, baseChunk.count == theirChunk.count, baseChunk.count > 1 {
                // Line for line: each line merges on its own.
                for (line, (mineLine, theirLine)) in zip(baseChunk, zip(mineChunk, theirChunk)) {
                    merge.add(base: [line], mine: [mineLine], theirs: [theirLine])
                }
            } else {
                merge.add(base: baseChunk, mine: mineChunk, theirs: theirChunk)
            }
            if bj < b.count { merge.keep(b[bj]) }
            (bi, mi, ti) = (bj + 1, mj + 1, tj + 1)
        }
        merge.flush()
        return Result(text: merge.out.joined(separator: "\n"), conflicted: merge.conflicted)
    }

    /// The merged text being built: chunks settle as they come, except that
    /// consecutive conflicting ones gather into one block.
    private struct Chunks {
        let known: Bool
        let sides: (mine: Author, theirs: Author)
        var out: [Substring] = []
        var conflicted = false
        private var open: (base: [Substring], mine: [Substring], theirs: [Substring])?

        init(known: Bool, sides: (Author, Author)) {
            self.known = known
            self.sides = sides
        }

        mutating func add(base: ArraySlice<Substring>, mine: ArraySlice<Substring>, theirs: ArraySlice<Substring>) {
            if mine.elementsEqual(base) || mine.elementsEqual(theirs) {
                keep(theirs)
            } else if theirs.elementsEqual(base) {
                keep(mine)
            } else if base.isEmpty && known {
                keep(theirs + mine)  // both added lines here: keep both
            } else if [base, mine, theirs].contains(where: { $0.contains(where: TextMerge.isBlock) }) {
                // An unresolved block conflicts on its own, never gathered with the lines changed around it: they
                // would be copied into each of its sides, and the block would grow every round.
                flush()
                open = (Array(base), Array(mine), Array(theirs))
                flush()
            } else {
                open = ((open?.base ?? []) + base, (open?.mine ?? []) + mine, (open?.theirs ?? []) + theirs)
            }
        }

        mutating func keep(_ line: Substring) { keep([line]) }

        mutating func keep<Lines: Collection<Substring>>(_ lines: Lines) {
            guard !lines.isEmpty else { return }
            flush()
            out += lines
        }

        mutating func flush() {
            guard let block = open else { return }
            open = nil
            if let around = ConflictSides.aroundBlock(theirs: .init(author: sides.theirs, lines: block.theirs),
                                                      mine: .init(author: sides.mine, lines: block.mine), base: known ? block.base : nil) {
                out += around.lines
                conflicted = conflicted || around.conflicted
                return
            }
            let shown = ConflictSides.of(theirs: .init(author: sides.theirs, lines: block.theirs),
                                         mine: .init(author: sides.mine, lines: block.mine), base: block.base)
            guard shown.count > 1 else {
                out += shown.first?.lines ?? []
                return
            }
            conflicted = true
            out += ConflictBlock.lines(shown.map { ($0.author, $0.lines) })
        }
    }

    /// The text as the merge compares it: its lines, a conflict block standing as one.
    static func units(_ text: String) -> [Substring] {
        var lines = lines(text)
        for block in ConflictBlock.find(in: text).reversed() {
            lines.replaceSubrange(block.range, with: [Substring(lines[block.range].joined(separator: "\n"))])
        }
        return lines
    }

    /// Whether a unit of `units` is a conflict block (a line holds no line break).
    static func isBlock(_ unit: Substring) -> Bool { unit.contains("\n") }

    /// The lines of a text; an empty text has none (not one empty line, which would differ from another side's lines).
    static func lines(_ text: String) -> [Substring] {
        text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false)
    }
}
