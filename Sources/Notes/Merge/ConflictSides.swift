/// The sides a new conflict shows, kept flat: blocks never nest, however
/// often two devices write over one nobody resolved yet.
///
/// When both sides changed an unresolved block, each in its own side (heather
/// fixes her line, jermaine his), the block merges side by side and stays one
/// block. Otherwise a side holding one block stands as that block's sides
/// (with the lines around it). Each keeps its author while its text is the
/// one the merge started from, and is labelled with whoever changed it
/// since. Texts shown twice are shown once; when only one text is left,
/// there is no conflict.
enum ConflictSides {
    struct Side {
        var author: Author
        var lines: [Substring]
    }

    /// The sides of the block that replaces `theirs` and `mine`, both changed from `base` (nil: unknown).
    static func of(theirs: Side, mine: Side, base: [Substring]?, field: ConflictBlock.Field = .content) -> [Side] {
        let before = base.flatMap { block($0, field) }
        if let before, let merged = sideBySide(before, theirs: theirs, mine: mine, field) { return distinct(merged) }
        return distinct(expanded(theirs, before, field) + expanded(mine, before, field))
    }

    /// A part both changed where each text holds one unresolved block with lines typed around it (a line added
    /// after it, say): the lines before the block and those after it merge on their own, the block side by side.
    /// The merged lines, or nil where the block's sides do not line up (the caller then flattens).
    static func aroundBlock(theirs: Side, mine: Side, base: [Substring]?) -> (lines: [Substring], conflicted: Bool)? {
        guard let base, let (bh, b, bt) = split(base, .content), let (th, t, tt) = split(theirs.lines, .content),
              let (mh, m, mt) = split(mine.lines, .content),
              let sides = sideBySide(b, t, m, theirsBy: theirs.author, mineBy: mine.author).map(distinct) else { return nil }
        func merged(_ b: [Substring], _ t: [Substring], _ m: [Substring]) -> TextMerge.Result {
            TextMerge.merge(base: b.joined(separator: "\n"), mine: m.joined(separator: "\n"), theirs: t.joined(separator: "\n"),
                            mineBy: mine.author, theirsBy: theirs.author)
        }
        let head = merged(bh, th, mh), tail = merged(bt, tt, mt)
        let block = sides.count > 1 ? ConflictBlock.lines(sides.map { ($0.author, $0.lines) }) : sides.first?.lines ?? []
        return (TextMerge.lines(head.text) + block + TextMerge.lines(tail.text), sides.count > 1 || head.conflicted || tail.conflicted)
    }

    /// Each side of the block merged on its own; nil when the sides do not line up or one of them conflicts.
    private static func sideBySide(_ before: [Side], theirs: Side, mine: Side, _ field: ConflictBlock.Field) -> [Side]? {
        guard let t = block(theirs.lines, field), let m = block(mine.lines, field) else { return nil }
        return sideBySide(before, t, m, theirsBy: theirs.author, mineBy: mine.author)
    }

    private static func sideBySide(_ before: [Side], _ t: [Side], _ m: [Side], theirsBy: Author, mineBy: Author) -> [Side]? {
        guard t.map(\.author) == before.map(\.author), m.map(\.author) == before.map(\.author) else { return nil }
        var out: [Side] = []
        for ((b, t), m) in zip(zip(before, t), m) {
            let merged = TextMerge.merge(base: b.text, mine: m.text, theirs: t.text, mineBy: mineBy, theirsBy: theirsBy)
            if merged.conflicted { return nil }
            let author = merged.text == b.text ? b.author : merged.text == t.text ? theirsBy : mineBy
            out.append(Side(author: author, lines: TextMerge.lines(merged.text)))
        }
        return out
    }

    /// A side holding one block as that block's sides, each with the lines around the block: the text it would
    /// be, had that side been kept. A side keeps its author while it is as the merge's base had it; one changed
    /// since, or with lines added around it, is labelled with the side's author. A side holding no block, or
    /// several, stands as it is.
    private static func expanded(_ side: Side, _ before: [Side]?, _ field: ConflictBlock.Field) -> [Side] {
        guard let (head, inner, tail) = split(side.lines, field) else { return [side] }
        return inner.map { old in
            let unchanged = head.isEmpty && tail.isEmpty && before?.contains { $0.text == old.text } ?? true
            return Side(author: unchanged ? old.author : side.author, lines: head + old.lines + tail)
        }
    }

    /// The sides of lines that are exactly one block, or nil.
    private static func block(_ lines: [Substring], _ field: ConflictBlock.Field) -> [Side]? {
        guard let (head, sides, tail) = split(lines, field), head.isEmpty, tail.isEmpty else { return nil }
        return sides
    }

    /// Lines holding one block: the lines before it, its sides, the lines after it. Nil for none or several, and
    /// for a block whose marker lines are not exactly as a merge writes them (every label ends in its time), as
    /// when someone typed on one: a word there must not be lost when the block is written anew.
    private static func split(_ lines: [Substring], _ field: ConflictBlock.Field) -> ([Substring], [Side], [Substring])? {
        let text = lines.joined(separator: "\n")
        guard ConflictBlock.mayHoldBlock(text), case let found = ConflictBlock.find(in: text, field: field), found.count == 1,
              let only = found.first, only.field == field else { return nil }
        let all = TextMerge.lines(text)
        guard only.sides.allSatisfy({ $0.author.at != nil }),
              ConflictBlock.lines(only.sides.map { ($0.author, $0.lines) }, about: field).elementsEqual(all[only.range]) else { return nil }
        return (Array(all[..<only.range.lowerBound]), only.sides.map { Side(author: $0.author, lines: $0.lines) },
                Array(all[only.range.upperBound...]))
    }

    /// The sides, each text once (its first side's author kept).
    private static func distinct(_ sides: [Side]) -> [Side] {
        var out: [Side] = []
        for side in sides where !out.contains(where: { $0.text == side.text }) { out.append(side) }
        return out
    }
}

extension ConflictSides.Side {
    var text: String { lines.joined(separator: "\n") }
}
