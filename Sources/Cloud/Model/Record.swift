import Foundation

/// Fields the cloud sets on every save; a client never writes them.
public struct SystemFields: Hashable, Codable, Sendable {
    /// Changes on every save; an if-unchanged save must name the current one.
    public var changeTag: String
    public var createdAt: Date
    /// The user record ID of the account that created the record.
    public var createdBy: String
    public var modifiedAt: Date
    public var modifiedBy: String

    public init(changeTag: String, createdAt: Date, createdBy: String, modifiedAt: Date, modifiedBy: String) {
        self.changeTag = changeTag
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.modifiedAt = modifiedAt
        self.modifiedBy = modifiedBy
    }
}

/// A record: typed fields, opaque encrypted fields, an optional parent,
/// and the system fields of its last save.
///
/// Like `CKRecord`, a record remembers which keys were set since it came
/// from the cloud, so a changed-keys save sends only those.
///
///     var post = Record(type: "Post", id: RecordID(name: "p1", zone: notes))
///     post["title"] = .string("Groceries")
///     post.setEncrypted("location", sealedBytes)
public struct Record: Hashable, Codable, Sendable {
    /// The key under which a parent change is tracked in `changedKeys`.
    public static let parentKey = "___parent"

    public let id: RecordID
    public let type: String
    public private(set) var fields: [String: FieldValue]
    /// Values the client encrypted itself; the cloud stores them as opaque bytes.
    public private(set) var encryptedFields: [String: Data]
    /// The record name of the parent, which lives in the same zone.
    public private(set) var parent: String?
    /// Nil until the record has been saved to, or fetched from, the cloud.
    public internal(set) var system: SystemFields?
    /// Keys set since the record was last fetched or saved.
    public private(set) var changedKeys: Set<String>
    /// Ours, in a save only: the record (of another zone of the owner's) this one is the moved copy of; the save is
    /// then a move, made only from the version its change tag names (`LocalDatabase.move`). Never stored.
    public var movedFrom: RecordID?

    public init(type: String, id: RecordID) {
        self.id = id
        self.type = type
        self.fields = [:]
        self.encryptedFields = [:]
        self.parent = nil
        self.system = nil
        self.changedKeys = []
    }

    /// A record whole, as stored or as a request carries it (`changedKeys` names its changes; `parentKey` a
    /// change of parent).
    public init(id: RecordID, type: String, fields: [String: FieldValue], encryptedFields: [String: Data],
                parent: String?, system: SystemFields?, changedKeys: Set<String> = []) {
        self.id = id
        self.type = type
        self.fields = fields
        self.encryptedFields = encryptedFields
        self.parent = parent
        self.system = system
        self.changedKeys = changedKeys
    }

    public subscript(key: String) -> FieldValue? {
        get { fields[key] }
        set {
            fields[key] = newValue
            encryptedFields[key] = nil
            changedKeys.insert(key)
        }
    }

    public func encrypted(_ key: String) -> Data? { encryptedFields[key] }

    /// Sets an encrypted field (sealed by the caller), replacing a plain one of the same key.
    public mutating func setEncrypted(_ key: String, _ value: Data?) {
        encryptedFields[key] = value
        fields[key] = nil
        changedKeys.insert(key)
    }

    /// The names of the records its fields reference, at any depth.
    public var referencedNames: Set<String> { Set(fields.values.flatMap(\.references).map(\.recordName)) }

    public mutating func setParent(_ recordName: String?) {
        parent = recordName
        changedKeys.insert(Self.parentKey)
    }

    public var changeTag: String? { system?.changeTag }

    /// Every key the record holds, plain or encrypted.
    public var allKeys: Set<String> { Set(fields.keys).union(encryptedFields.keys) }

    /// Copies one key (plain or encrypted, or its absence) from another record.
    mutating func copyKey(_ key: String, from other: Record) {
        if key == Self.parentKey {
            parent = other.parent
        } else {
            fields[key] = other.fields[key]
            encryptedFields[key] = other.encryptedFields[key]
        }
    }

    /// The record as the cloud returns it: stamped, with nothing marked changed.
    func stamped(_ system: SystemFields) -> Record {
        var copy = self
        copy.system = system
        copy.changedKeys = []
        return copy
    }

    /// Puts back system fields archived from an earlier fetch, as
    /// `CKRecord(coder:)` does, so a save names that fetch's change tag.
    public mutating func restoreSystemFields(_ system: SystemFields?) {
        self.system = system
    }

    /// Marks a key changed without touching its value, as an archive of a record being edited records it.
    mutating func markChanged(_ key: String) { changedKeys.insert(key) }

    /// Clears the change tracking, as a fresh fetch would.
    public mutating func markClean() { changedKeys = [] }
}
