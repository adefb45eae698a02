import Cloud
import Foundation

extension Post {
    enum Key {
        static let title = "title", content = "content", tags = "tags", location = "location", device = "device"
        /// The last content edit, written by the app with each edit (the cloud's own stamps move when a share is saved).
        static let edited = "edited", editor = "editor"
    }

    /// A post as the cloud holds it, its location sealed (it never reaches the
    /// cloud in plain text; a zone key opens it, see `opened`).
    init(record: Record, scope: DatabaseScope) {
        self.init(id: record.id.name, zone: record.id.zone, scope: scope,
                  title: record[Key.title].shownAsText, content: record[Key.content].shownAsText,
                  tags: Self.strings(record[Key.tags]))
        sealedLocation = record.encrypted(Key.location)
        createdAt = record.system?.createdAt
        createdBy = record.system?.createdBy
        savedAt = record.system?.modifiedAt
        savedBy = record.system?.modifiedBy
        let edit = Self.lastEdit(of: record)
        modifiedAt = edit?.at ?? savedAt
        modifiedBy = edit?.by ?? savedBy
        if case .string(let device)? = record[Key.device] { modifiedOn = device }
        conflicted = ConflictBlock.isConflicted(fields)
    }

    /// Sets the post's fields on a record, marking only those that differ as changed. A value of another type
    /// (written by another client) that the post shows as it is stays as it is until someone changes it.
    func apply(to record: inout Record) {
        func set(_ key: String, _ value: FieldValue) {
            if record[key] != value { record[key] = value }
        }
        if record[Key.title] == nil || record[Key.title].shownAsText != title { set(Key.title, .string(title)) }
        if record[Key.content] == nil || record[Key.content].shownAsText != content { set(Key.content, .string(content)) }
        if record[Key.tags] == nil || Self.strings(record[Key.tags]) != tags { set(Key.tags, .list(tags.map { .string($0) })) }
        if let modifiedOn { set(Key.device, .string(modifiedOn)) }
        if let modifiedAt, let modifiedBy {
            // In the seconds a row keeps, so the row that holds this record gives the same date back.
            set(Key.edited, .date(Date(timeIntervalSince1970: modifiedAt.timeIntervalSince1970)))
            set(Key.editor, .string(modifiedBy))
        }
    }

    /// The last content edit a record names, as far as the cloud's own stamps bear it out: never more than
    /// `clockSkew` later than the cloud saved the record (a device's clock cannot keep a post on top of
    /// everyone's list), and only by the account that saved it last, or by anyone where the zone's owner
    /// saved it last (saving a share saves its root record again). Nil where the record names none, or one
    /// its stamps contradict: then the cloud's stamps say who and when.
    static func lastEdit(of record: Record) -> (at: Date, by: String)? {
        guard case .date(let at)? = record[Key.edited], case .string(let by)? = record[Key.editor], let system = record.system,
              by == system.modifiedBy || system.modifiedBy == record.id.zone.owner else { return nil }
        return (min(at, system.modifiedAt.addingTimeInterval(clockSkew)), by)
    }

    /// How far ahead of the cloud's clock a device's may run before its edits' times are cut back (a record
    /// whose time was cut is kept beside its row, which holds the time cut; see `rowCanHold`).
    static let clockSkew: TimeInterval = 300

    /// Whether a post row can stand for this record whole: a post with its three fields of their types, its
    /// last edit as `lastEdit` takes it (and the device it was typed on), at most a sealed location, no parent,
    /// nothing marked changed, and dates a row's seconds give back exactly. Most records are; the store keeps
    /// any other in `server_records`.
    static func rowCanHold(_ record: Record) -> Bool {
        let device: Bool
        switch record[Key.device] {
        case nil: device = false
        case .string?: device = true
        default: return false
        }
        guard record.type == recordType, record.parent == nil, record.changedKeys.isEmpty, let system = record.system,
              record.fields.count == (device ? 6 : 5), case .string? = record[Key.title], case .string? = record[Key.content],
              case .list(let tags)? = record[Key.tags], tags.allSatisfy({ if case .string = $0 { true } else { false } }),
              let edit = lastEdit(of: record), record[Key.edited] == .date(edit.at),
              record.encryptedFields.isEmpty || record.encryptedFields.keys.elementsEqual([Key.location])
        else { return false }
        return [system.createdAt, system.modifiedAt, edit.at].allSatisfy { Date(timeIntervalSince1970: $0.timeIntervalSince1970) == $0 }
    }

    /// The record a row stands for while it still holds the cloud's version tagged `changeTag`
    /// (the inverse of `init(record:)` for the records `rowCanHold`).
    func record(changeTag: String) -> Record? {
        guard let createdAt, let createdBy, let savedAt, let savedBy else { return nil }
        var record = Record(type: Self.recordType, id: recordID)
        apply(to: &record)
        if let sealedLocation { record.setEncrypted(Key.location, sealedLocation) }
        record.restoreSystemFields(SystemFields(changeTag: changeTag, createdAt: createdAt, createdBy: createdBy,
                                                modifiedAt: savedAt, modifiedBy: savedBy))
        record.markClean()
        return record
    }

    static func fields(of record: Record) -> PostFields {
        PostFields(title: record[Key.title].shownAsText, content: record[Key.content].shownAsText, tags: strings(record[Key.tags]), location: nil)
    }

    /// The tags a record holds: a list's items as text; a single value (another client's) as one tag.
    private static func strings(_ value: FieldValue?) -> [String] {
        switch value {
        case nil: []
        case .list(let items)?: items.map { Optional($0).shownAsText }
        case let other?: [Optional(other).shownAsText]
        }
    }
}
