/// Merges an edit of a post into the copy already saved (the newest on the
/// device, or the cloud's), against the version the edit started from.
///
/// A field only one side changed takes that side's value. Tags merge as
/// sets (both sides' additions and removals apply). Text merges line by line
/// (`TextMerge`). When both changed the title or the location differently,
/// the saved value stays in the field and a `ConflictBlock` keeps both under
/// their authors' names: the title's in the text, the location's in the
/// location (it travels sealed). Nothing either side typed is dropped.
public enum PostMerge {
    /// One side of a merge: what it holds and who wrote it.
    public struct Version: Sendable {
        public var fields: PostFields
        public var author: Author

        public init(_ fields: PostFields, by author: Author) {
            self.fields = fields
            self.author = author
        }
    }

    public struct Result: Equatable, Sendable {
        public var fields: PostFields
        public var conflicted: Bool
    }

    /// - Parameter base: what `mine` started from; nil when unknown, and then
    ///   whatever either side holds is kept.
    public static func merge(base: PostFields?, mine: Version, theirs: Version) -> Result {
        let sides = (mine: mine.author, theirs: theirs.author)
        let content = TextMerge.merge(base: base?.content, mine: mine.fields.content, theirs: theirs.fields.content,
                                      mineBy: sides.mine, theirsBy: sides.theirs)
        var text = content.text
        var conflicted = content.conflicted
        let title = pick(\.title, base: base, mine: mine.fields, theirs: theirs.fields)
        if title.conflicted {
            let block = ConflictBlock.lines([(sides.theirs, [Substring(theirs.fields.title)]), (sides.mine, [Substring(mine.fields.title)])],
                                            about: .title)
            text = (TextMerge.lines(text) + block).joined(separator: "\n")
            conflicted = true
        }
        var location = pick(\.location, base: base, mine: mine.fields, theirs: theirs.fields)
        if location.conflicted {
            func lines(_ value: String?) -> [Substring] { value.map { TextMerge.lines($0) } ?? [] }
            let shown = ConflictSides.of(theirs: .init(author: sides.theirs, lines: lines(theirs.fields.location)),
                                         mine: .init(author: sides.mine, lines: lines(mine.fields.location)),
                                         base: base.map { lines($0.location) }, field: .location)
            if shown.count > 1 {
                location.value = ConflictBlock.lines(shown.map { ($0.author, $0.lines) }, about: .location).joined(separator: "\n")
                conflicted = true
            } else {
                location.value = shown.first.map(\.text).flatMap { $0.isEmpty ? nil : $0 }
            }
        }
        let tags = mergeTags(base: base?.tags, mine: mine.fields.tags, theirs: theirs.fields.tags)
        return Result(fields: PostFields(title: title.value, content: text, tags: tags, location: location.value), conflicted: conflicted)
    }

    /// One value of two sides: the side that changed it, the saved one when
    /// neither or both did (then `conflicted` when they differ).
    private static func pick<Value: Equatable>(_ field: KeyPath<PostFields, Value>, base: PostFields?, mine: PostFields,
                                               theirs: PostFields) -> (value: Value, conflicted: Bool) {
        let (m, t) = (mine[keyPath: field], theirs[keyPath: field])
        if m == t { return (t, false) }
        if let base {
            if m == base[keyPath: field] { return (t, false) }
            if t == base[keyPath: field] { return (m, false) }
        }
        return (t, true)
    }

    /// Both sides' additions and removals; without a base, everything either holds.
    static func mergeTags(base: [String]?, mine: [String], theirs: [String]) -> [String] {
        let removed = base.map { Set($0).subtracting(mine).union(Set($0).subtracting(theirs)) } ?? []
        var out: [String] = []
        for tag in theirs + mine where !removed.contains(tag) && !out.contains(tag) { out.append(tag) }
        return out
    }
}
