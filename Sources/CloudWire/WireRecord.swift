import Cloud
import Foundation

/// A zone ID as the protocol writes it; no `ownerRecordName` means the caller's own.
public struct WireZoneID: Codable, Hashable, Sendable {
    public var zoneName: String
    public var ownerRecordName: String?

    public init(_ zone: ZoneID) {
        zoneName = zone.name
        ownerRecordName = zone.owner == ZoneID.defaultOwner ? nil : zone.owner
    }

    public var zoneID: ZoneID { ZoneID(name: zoneName, owner: ownerRecordName ?? ZoneID.defaultOwner) }
}

/// When and by whom a record was created or last modified.
public struct WireStamp: Codable, Hashable, Sendable {
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
        for key in record.allKeys where record.fields[key] == nil && wanted?.contains(key) ?? true {
            fields[key] = record.encrypted(key).map(WireValue.encrypted)
        }
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
        for (key, value) in record.fields { fields[key] = .plain(value) }
        for key in record.allKeys where record.fields[key] == nil { fields[key] = record.encrypted(key).map(WireValue.encrypted) }
        for key in record.changedKeys where !record.allKeys.contains(key) && key != Record.parentKey { fields[key] = .some(nil) }
        parent = record.parent.map(Parent.named) ?? .none
        changedKeys = record.changedKeys.sorted()
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

    /// The record in `zone` (its own `zoneID` when it names one), with every key it carries marked changed,
    /// as a save request hands it to the cloud.
    public func changes(in zone: ZoneID) throws(WireFormatError) -> Record {
        guard let recordType else { throw WireFormatError("record \(recordName) has no recordType") }
        var record = Record(type: recordType, id: RecordID(name: recordName, zone: zoneID?.zoneID ?? zone))
        for (key, value) in fields {
            switch value {
            case .plain(let plain)?: record[key] = plain
            case .encrypted(let data)?: record.setEncrypted(key, data)
            case nil: record[key] = nil
            }
        }
        switch parent {
        case .unchanged: break
        case .none: record.setParent(nil)
        case .named(let name): record.setParent(name)
        }
        if let changedKeys {
            // Only the keys named changed: the rest travel so that a save that creates the record has it whole.
            let whole = record
            record.markClean()
            for key in changedKeys {
                if key == Record.parentKey {
                    record.setParent(whole.parent)
                } else if let data = whole.encrypted(key) {
                    record.setEncrypted(key, data)
                } else {
                    record[key] = whole[key]
                }
            }
        }
        if let recordChangeTag {
            record.restoreSystemFields(SystemFields(changeTag: recordChangeTag, createdAt: .distantPast, createdBy: "",
                                                    modifiedAt: .distantPast, modifiedBy: ""))
        }
        return record
    }

    /// The record as the cloud holds it (an answer's), nothing marked changed.
    public func stored(in zone: ZoneID) throws(WireFormatError) -> Record {
        var record = try changes(in: zone)
        record.markClean()
        if let recordChangeTag, let created, let modified {
            record.restoreSystemFields(SystemFields(
                changeTag: recordChangeTag,
                createdAt: Date(timeIntervalSince1970: created.timestamp / 1000), createdBy: created.userRecordName,
                modifiedAt: Date(timeIntervalSince1970: modified.timestamp / 1000), modifiedBy: modified.userRecordName))
        }
        return record
    }
}

extension WireRecord: Codable {
    private enum Key: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, created, modified, deleted, parent, zoneID, changedKeys
    }

    /// A field's name, whatever it is.
    private struct FieldKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        recordName = try c.decode(String.self, forKey: .recordName)
        recordType = try c.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try c.decodeIfPresent(String.self, forKey: .recordChangeTag)
        created = try c.decodeIfPresent(WireStamp.self, forKey: .created)
        modified = try c.decodeIfPresent(WireStamp.self, forKey: .modified)
        deleted = try c.decodeIfPresent(Bool.self, forKey: .deleted)
        zoneID = try c.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        changedKeys = try c.decodeIfPresent([String].self, forKey: .changedKeys)
        if c.contains(.fields), try !c.decodeNil(forKey: .fields) {
            // A field written as null, or as {"value": null}, is removed.
            let written = try c.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
            for key in written.allKeys {
                fields[key.stringValue] = try written.decodeNil(forKey: key) ? .some(nil)
                    : WireValue.decodeIfPresent(from: try written.superDecoder(forKey: key))
            }
        }
        if c.contains(.parent) {
            parent = try c.decodeNil(forKey: .parent) ? .none
                : .named(try c.decode([String: String].self, forKey: .parent)["recordName"] ?? "")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(recordName, forKey: .recordName)
        try c.encodeIfPresent(recordType, forKey: .recordType)
        try c.encodeIfPresent(recordChangeTag, forKey: .recordChangeTag)
        if !fields.isEmpty {
            var written = c.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
            for (key, value) in fields {
                if let value { try written.encode(value, forKey: FieldKey(stringValue: key)) } else { try written.encodeNil(forKey: FieldKey(stringValue: key)) }
            }
        }
        try c.encodeIfPresent(created, forKey: .created)
        try c.encodeIfPresent(modified, forKey: .modified)
        try c.encodeIfPresent(deleted, forKey: .deleted)
        switch parent {
        case .unchanged: break
        case .none: try c.encodeNil(forKey: .parent)
        case .named(let name): try c.encode(["recordName": name], forKey: .parent)
        }
        try c.encodeIfPresent(zoneID, forKey: .zoneID)
        try c.encodeIfPresent(changedKeys, forKey: .changedKeys)
    }
}
