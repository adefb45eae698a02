/// The three kinds of database a container holds, as CloudKit has them.
public enum DatabaseScope: String, Codable, Sendable, CaseIterable {
    /// The account's own data; only the account reads or writes it.
    case `private`
    /// Zones other accounts have shared with this account.
    case shared
    /// One per container: everyone reads, any account creates.
    case `public`
}

/// Identifies a record zone: its name and the account that owns it.
///
/// Zone IDs are compared by value; a zone deleted and created again under
/// the same name is the same ID (as in CloudKit), with a new history.
public struct ZoneID: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The name CloudKit gives every database's built-in zone.
    public static let defaultName = "_defaultZone"
    /// The owner name of zones in the public database, and the placeholder
    /// a client may use for "the caller" in its private database.
    public static let defaultOwner = "__defaultOwner__"

    public var name: String
    /// The user record ID of the owning account.
    public var owner: String

    public init(name: String, owner: String = ZoneID.defaultOwner) {
        self.name = name
        self.owner = owner
    }

    public var isDefault: Bool { name == Self.defaultName }
    public var description: String { "\(name):\(owner)" }
}

/// Identifies a record: its name, unique within its zone.
public struct RecordID: Hashable, Codable, Sendable, CustomStringConvertible {
    public var name: String
    public var zone: ZoneID

    public init(name: String, zone: ZoneID) {
        self.name = name
        self.zone = zone
    }

    public var description: String { "\(name)@\(zone)" }
}

/// The subject of a per-item result or error in a request.
public enum ItemID: Hashable, Sendable, CustomStringConvertible {
    case record(RecordID)
    case zone(ZoneID)

    public var description: String {
        switch self {
        case .record(let id): "record \(id)"
        case .zone(let id): "zone \(id)"
        }
    }
}
