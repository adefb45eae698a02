import Cloud
import Foundation

extension Post {
    enum Key {
        static let title = "title", content = "content", tags = "tags", location = "location", device = "device"
    }

    /// A post as the cloud holds it, its location sealed (it never reaches the
    /// cloud in plain text; a zone key opens it, see `opened`).
    init(record: Record, scope: DatabaseScope) {
        self.init(id: record.id.name, zone: record.id.zone, scope: scope,
                  title: Self.string(record[Key.title]), content: Self.string(record[Key.content]),
                  tags: Self.strings(record[Key.tags]))
        sealedLocation = record.encrypted(Key.location)
        createdAt = record.system?.createdAt
        createdBy = record.system?.createdBy
        modifiedAt = record.system?.modifiedAt
        modifiedBy = record.system?.modifiedBy
        if case .string(let device)? = record[Key.device] { modifiedOn = device }
        conflicted = ConflictBlock.isConflicted(fields)
    }

    /// Sets the post's fields on a record, marking only those that differ as changed.
    func apply(to record: inout Record) {
        func set(_ key: String, _ value: FieldValue) {
            if record[key] != value { record[key] = value }
        }
        set(Key.title, .string(title))
        set(Key.content, .string(content))
        set(Key.tags, .list(tags.map { .string($0) }))
        if let modifiedOn { set(Key.device, .string(modifiedOn)) }
    }

    /// Whether a post row can stand for this record whole: a post with its three fields of their types (and
    /// the device it was typed on), at most a sealed location, no parent, nothing marked changed, and dates a
    /// row's seconds give back exactly. Most records are; the store keeps any other in `server_records`.
    static func rowCanHold(_ record: Record) -> Bool {
        let device: Bool
        switch record[Key.device] {
        case nil: device = false
        case .string?: device = true
        default: return false
        }
        guard record.type == recordType, record.parent == nil, record.changedKeys.isEmpty, let system = record.system,
              record.fields.count == (device ? 4 : 3), case .string? = record[Key.title], case .string? = record[Key.content],
              case .list(let tags)? = record[Key.tags], tags.allSatisfy({ if case .string = $0 { true } else { false } }),
              record.encryptedFields.isEmpty || record.encryptedFields.keys.elementsEqual([Key.location])
        else { return false }
        return [system.createdAt, system.modifiedAt].allSatisfy { Date(timeIntervalSince1970: $0.timeIntervalSince1970) == $0 }
    }

    /// The record a row stands for while it still holds the cloud's version tagged `changeTag`
    /// (the inverse of `init(record:)` for the records `rowCanHold`).
    func record(changeTag: String) -> Record? {
        guard let createdAt, let createdBy, let modifiedAt, let modifiedBy else { return nil }
        var record = Record(type: Self.recordType, id: recordID)
        apply(to: &record)
        if let sealedLocation { record.setEncrypted(Key.location, sealedLocation) }
        record.restoreSystemFields(SystemFields(changeTag: changeTag, createdAt: createdAt, createdBy: createdBy,
                                                modifiedAt: modifiedAt, modifiedBy: modifiedBy))
        record.markClean()
        return record
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
