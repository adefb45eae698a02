/// A zone that went away, and why.
public struct ZoneDeletion: Hashable, Codable, Sendable {
    public var zone: ZoneID
    public var reason: ZoneDeletionReason

    public init(zone: ZoneID, reason: ZoneDeletionReason) {
        self.zone = zone
        self.reason = reason
    }
}

/// A record that went away, and what type it was.
public struct RecordDeletion: Hashable, Codable, Sendable {
    public var id: RecordID
    public var type: String

    public init(id: RecordID, type: String) {
        self.id = id
        self.type = type
    }
}

/// One batch of a database's history: which zones changed or went away.
public struct DatabaseChanges: Sendable {
    public var modified: [ZoneID] = []
    public var deleted: [ZoneDeletion] = []
    /// Hand this back to fetch what comes after this batch.
    public var token: ChangeToken
    /// More changes wait: fetch again with `token`.
    public var moreComing: Bool

    public init(modified: [ZoneID] = [], deleted: [ZoneDeletion] = [], token: ChangeToken, moreComing: Bool) {
        self.modified = modified
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}

/// One batch of a zone's history: records saved and records deleted.
public struct ZoneChanges: Sendable {
    public var modified: [Record] = []
    public var deleted: [RecordDeletion] = []
    public var token: ChangeToken
    public var moreComing: Bool

    public init(modified: [Record] = [], deleted: [RecordDeletion] = [], token: ChangeToken, moreComing: Bool) {
        self.modified = modified
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}
