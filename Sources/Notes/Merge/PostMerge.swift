/// Merges a post edited on this device with the server's newer version,
/// against the version both started from.
///
/// A field only one side changed takes that side's value. Tags merge as
/// sets (both sides' additions and removals apply). When both changed the
/// title or the location differently, the server's value stays and this
/// device's is kept inside the content's conflict block; overlapping content
/// edits are merged by `TextMerge`. Nothing this device typed is dropped.
public enum PostMerge {
    public struct Result: Equatable, Sendable {
        public var fields: PostFields
        public var conflicted: Bool
    }

    public static func merge(base: PostFields, local: PostFields, server: PostFields) -> Result {
        var kept: [String] = []  // this device's values that lost to the server's
        let title = pick(base.title, local.title, server.title, losing: &kept, label: "title")
        let location = pick(base.location, local.location, server.location, losing: &kept, label: "location")
        let content = TextMerge.merge(base: base.content, local: local.content, server: server.content)
        var text = content.text
        if !kept.isEmpty {
            text += (text.isEmpty ? "" : "\n") + ([TextMerge.conflictStart] + kept + [TextMerge.conflictEnd]).joined(separator: "\n")
        }
        let tags = mergeTags(base: base.tags, local: local.tags, server: server.tags)
        return Result(fields: PostFields(title: title, content: text, tags: tags, location: location),
                      conflicted: content.conflicted || !kept.isEmpty)
    }

    private static func pick(_ base: String, _ local: String, _ server: String, losing kept: inout [String], label: String) -> String {
        pick(Optional(base), Optional(local), Optional(server), losing: &kept, label: label)!
    }

    private static func pick(_ base: String?, _ local: String?, _ server: String?, losing kept: inout [String], label: String) -> String? {
        if local == base || local == server { return server }
        if server == base { return local }
        kept.append("\(label) on this device: \(local ?? "(none)")")
        return server
    }

    static func mergeTags(base: [String], local: [String], server: [String]) -> [String] {
        let removed = Set(base).subtracting(local).union(Set(base).subtracting(server))
        var out: [String] = []
        for tag in server + local where !removed.contains(tag) && !out.contains(tag) { out.append(tag) }
        return out
    }
}
