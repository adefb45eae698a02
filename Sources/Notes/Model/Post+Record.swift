import Cloud
import Foundation

extension Post {
    enum Key {
        static let title = "title", content = "content", tags = "tags"
    }

    /// A post as the cloud holds it. The location is not sent until it can be
    /// sent sealed (it must never reach the cloud in plain text).
    init(record: Record, scope: DatabaseScope) {
        self.init(id: record.id.name, zone: record.id.zone, scope: scope,
                  title: Self.string(record[Key.title]), content: Self.string(record[Key.content]),
                  tags: Self.strings(record[Key.tags]))
        createdAt = record.system?.createdAt
        createdBy = record.system?.createdBy
        modifiedAt = record.system?.modifiedAt
        modifiedBy = record.system?.modifiedBy
    }

    /// Sets the post's fields on a record, marking only those that differ as changed.
    func apply(to record: inout Record) {
        let wanted: [String: FieldValue] = [
            Key.title: .string(title), Key.content: .string(content), Key.tags: .list(tags.map { .string($0) }),
        ]
        for (key, value) in wanted where record[key] != value { record[key] = value }
    }

    static func fields(of record: Record) -> PostFields {
        let post = Post(record: record, scope: .private)
        return PostFields(title: post.title, content: post.content, tags: post.tags, location: nil)
    }

    private static func string(_ value: FieldValue?) -> String {
        if case .string(let s)? = value { s } else { "" }
    }

    private static func strings(_ value: FieldValue?) -> [String] {
        guard case .list(let items)? = value else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }
}
