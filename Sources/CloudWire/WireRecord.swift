import Cloud
import Foundation

/// A zone ID as the protocol writes it; no `ownerRecordName` means the caller's own.
public struct WireZoneID: Hashable, Sendable {
    public var zoneName: String
    public var ownerRecordName: String?

    public init(_ zone: ZoneID) {
        zoneName = zone.name
        ownerRecordName = zone.owner == ZoneID.defaultOwner ? nil : zone.owner
    }

    public var zoneID: ZoneID { ZoneID(name: zoneName, owner: ownerRecordName ?? ZoneID.defaultOwner) }
}

/// When and by whom a record was created or last modified.
public struct WireStamp: Hashable, Sendable {
    /// Milliseconds since 1970.
    public var timestamp: Double
    public var userRecordName: String
    public var deviceID: String?
}

/// A record as the protocol writes it (`recordName`, `recordType`,
/// `recordChangeTag`, `fields`, `created`, `modified`, `deleted`, `parent`,
/// `zoneID`). In an update, a field whose value is `null` is removed, and
/// `"parent": null` takes the record from its parent; keys it leaves out
/// stay as they are. Unknown keys are ignored.
///
/// A CloudNotes device sends its records whole, with `changedKeys` (ours)
/// naming the keys it changed since it fetched the record (`___parent` for
/// its parent): an update changes only those, and a save that creates the
/// record stores it whole, as `CKModifyRecordsOperation` does.
public struct WireRecord: Hashable, Sendable {
    public enum Parent: Hashable, Sendable {
        case unchanged
        case none
        case named(String)
    }

    public var recordName: String
    public var recordType: String?
    public var recordChangeTag: String?
    /// Nil values remove the field (updates only).
    public var fields: [String: WireValue?] = [:]
    public var created: WireStamp?
    public var modified: WireStamp?
    public var deleted: Bool?
    public var parent: Parent = .unchanged
    public var zoneID: WireZoneID?
    /// Ours: the keys a save changed (all it carries when absent).
    public var changedKeys: [String]?
    /// Ours: the record a save moves here (`Record.movedFrom`), as `{recordName, zoneID}`.
    public var movedFrom: RecordID?

    public init(recordName: String, zoneID: WireZoneID? = nil) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// A record as the cloud holds it: whole, or with only the fields `keys` names (and then no parent).
    public init(_ record: Record, keys: [String]? = nil) {
        self.init(recordName: record.id.name, zoneID: WireZoneID(record.id.zone))
        recordType = record.type
        let wanted = keys.map(Set.init)
        for (key, value) in record.fields where wanted?.contains(key) ?? true { fields[key] = .plain(value) }
        for (key, data) in record.encryptedFields where wanted?.contains(key) ?? true { fields[key] = .encrypted(data) }
        parent = keys == nil ? record.parent.map(Parent.named) ?? .none : .unchanged
        deleted = false
        if let system = record.system {
            recordChangeTag = system.changeTag
            created = WireStamp(timestamp: system.createdAt.timeIntervalSince1970 * 1000, userRecordName: system.createdBy)
            modified = WireStamp(timestamp: system.modifiedAt.timeIntervalSince1970 * 1000, userRecordName: system.modifiedBy)
        }
    }

    /// What a CloudNotes device sends to save a record: all of it, the keys it changed, and the change tag it
    /// was fetched at.
    public init(saving record: Record) {
        self.init(recordName: record.id.name, zoneID: WireZoneID(record.id.zone))
        recordType = record.type
        recordChangeTag = record.changeTag
        fields.reserveCapacity(record.fields.count + record.encryptedFields.count)
        for (key, value) in record.fields { fields[key] = .plain(value) }
        for (key, data) in record.encryptedFields { fields[key] = .encrypted(data) }
        for key in record.changedKeys where fields[key] == nil && key != Record.parentKey { fields[key] = .some(nil) }
        // No parent is said only when it is a change (removing one): a record that never had one carries none.
        parent = record.parent.map(Parent.named) ?? (record.changedKeys.contains(Record.parentKey) ? .none : .unchanged)
        changedKeys = record.changedKeys.sorted()
        movedFrom = record.movedFrom
    }

    /// A deletion's record: its name, and the change tag a non-force delete is checked against.
    public init(deleting id: RecordID) {
        self.init(recordName: id.name, zoneID: WireZoneID(id.zone))
    }

    /// A record gone, as answers write it: `{recordName, deleted: true}`, with its type where known.
    public static func deleted(_ id: RecordID, type: String? = nil) -> WireRecord {
        var gone = WireRecord(deleting: id)
        gone.deleted = true
        gone.recordType = type
        return gone
    }

    /// The record in `zone` (its own `zoneID` when it names one) as a save request hands it to the cloud: the keys
    /// `changedKeys` names marked changed, or, without it, every key it carries (a removal and a parent included).
    public func changes(in zone: ZoneID) throws(WireFormatError) -> Record {
        try record(in: zone, system: recordChangeTag.map {
            SystemFields(changeTag: $0, createdAt: .distantPast, createdBy: "", modifiedAt: .distantPast, modifiedBy: "")
        }, changed: true)
    }

    /// The record as the cloud holds it (an answer's), nothing marked changed.
    public func stored(in zone: ZoneID) throws(WireFormatError) -> Record {
        guard let recordChangeTag, let created, let modified else {
            // Without both stamps (another server's answer, say), the change tag alone still says which version it is.
            return try record(in: zone, system: recordChangeTag.map {
                SystemFields(changeTag: $0, createdAt: .distantPast, createdBy: "", modifiedAt: .distantPast, modifiedBy: "")
            }, changed: false)
        }
        return try record(in: zone, system: SystemFields(
            changeTag: recordChangeTag,
            createdAt: Date(timeIntervalSince1970: created.timestamp / 1000), createdBy: created.userRecordName,
            modifiedAt: Date(timeIntervalSince1970: modified.timestamp / 1000), modifiedBy: modified.userRecordName), changed: false)
    }

    /// Built whole in one go (setting a record's keys one at a time tracks each change: a third of a server's
    /// work on a save).
    private func record(in zone: ZoneID, system: SystemFields?, changed: Bool) throws(WireFormatError) -> Record {
        guard let recordType else { throw WireFormatError("record \(recordName) has no recordType") }
        var plain: [String: FieldValue] = [:], encrypted: [String: Data] = [:]
        plain.reserveCapacity(fields.count)
        for (key, value) in fields {
            switch value {
            case .plain(let value)?: plain[key] = value
            case .encrypted(let data)?: encrypted[key] = data
            case nil: break
            }
        }
        let parentName: String? = if case .named(let name) = parent { name } else { nil }
        var changedKeys: Set<String> = []
        if changed {
            if let named = self.changedKeys {
                changedKeys = Set(named)
            } else {
                changedKeys = Set(fields.keys)
                if parent != .unchanged { changedKeys.insert(Record.parentKey) }
            }
        }
        var record = Record(id: RecordID(name: recordName, zone: zoneID?.zoneID ?? zone), type: recordType, fields: plain,
                            encryptedFields: encrypted, parent: parentName, system: system, changedKeys: changedKeys)
        if changed { record.movedFrom = movedFrom }
        return record
    }
}

extension WireRecord: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("a record")
        self.init(recordName: try object.requiredString("recordName"), zoneID: try object.value("zoneID"))
        recordType = try object.string("recordType")
        recordChangeTag = try object.string("recordChangeTag")
        created = try object.value("created")
        modified = try object.value("modified")
        deleted = try object.bool("deleted")
        changedKeys = try object.strings("changedKeys")
        if let source = object["movedFrom"], source != .null {
            let named = try source.object("movedFrom")
            let zone: WireZoneID? = try named.value("zoneID")
            movedFrom = RecordID(name: try named.requiredString("recordName"), zone: zone?.zoneID ?? ZoneID(name: ZoneID.defaultName))
        }
        if let written = object["fields"], written != .null {
            // A field written as null, or as {"value": null}, is removed; anything else is a value or refused.
            let members = try written.object("fields").members
            fields.reserveCapacity(members.count)
            for member in members {
                if member.value == .null {
                    fields[member.key] = .some(nil)
                } else {
                    let field = try member.value.object("field \(member.key)")
                    fields[member.key] = field["value"] == .null ? .some(nil) : try WireValue(json: member.value)
                }
            }
        }
        if let written = object["parent"] {
            parent = written == .null ? .none : .named(try written.object("parent").requiredString("recordName"))
        }
    }

    public var json: JSON {
        var object: JSONObject = ["recordName": .string(recordName)]
        object.add("recordType", recordType)
        object.add("recordChangeTag", recordChangeTag)
        if !fields.isEmpty {
            var written = JSONObject()
            for (key, value) in fields { written.add(key, value?.json ?? .null) }
            object.add("fields", .object(written))
        }
        object.add("created", created)
        object.add("modified", modified)
        object.add("deleted", deleted)
        switch parent {
        case .unchanged: break
        case .none: object.add("parent", .null)
        case .named(let name): object.add("parent", .object(["recordName": .string(name)]))
        }
        object.add("zoneID", zoneID)
        object.add("changedKeys", changedKeys)
        if let movedFrom {
            object.add("movedFrom", .object(["recordName": .string(movedFrom.name), "zoneID": WireZoneID(movedFrom.zone).json]))
        }
        return .object(object)
    }
}

extension WireZoneID: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("a zoneID")
        zoneName = try object.requiredString("zoneName")
        ownerRecordName = try object.string("ownerRecordName")
    }

    public var json: JSON {
        var object: JSONObject = ["zoneName": .string(zoneName)]
        object.add("ownerRecordName", ownerRecordName)
        return .object(object)
    }
}

extension WireStamp: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("a created or modified stamp")
        guard let timestamp = try object.double("timestamp") else { throw WireFormatError("timestamp is required") }
        self.timestamp = timestamp
        userRecordName = try object.requiredString("userRecordName")
        deviceID = try object.string("deviceID")
    }

    public var json: JSON {
        var object: JSONObject = ["timestamp": .double(timestamp), "userRecordName": .string(userRecordName)]
        object.add("deviceID", deviceID)
        return .object(object)
    }
}
