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
        func set(_ key: String, _ value: FieldValue) {
            if record[key] != value { record[key] = value }
        }
        set(Key.title, .string(title))
        set(Key.content, .string(content))
        set(Key.tags, .list(tags.map { .string($0) }))
    }

    static func fields(of record: Record) -> PostFields {
        PostFields(title: string(record[Key.title]), content: string(record[Key.content]), tags: strings(record[Key.tags]), location: nil)
    }

    private static func string(_ value: FieldValue?) -> String {
        if case .string(let s)? = value { s } else { "" }
    }

    private static func strings(_ value: FieldValue?) -> [String] {
        guard case .list(let items)? = value else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }
}
