import Foundation
import GRDB

/// A zone that went away, and why.
public struct ZoneDeletion: Hashable, Sendable {
    public var zone: ZoneID
    public var reason: ZoneDeletionReason

    public init(zone: ZoneID, reason: ZoneDeletionReason) {
        self.zone = zone
        self.reason = reason
    }
}

/// A record that went away, and what type it was.
public struct RecordDeletion: Hashable, Sendable {
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
}

/// One batch of a zone's history: records saved and records deleted.
public struct ZoneChanges: Sendable {
    public var modified: [Record] = []
    public var deleted: [RecordDeletion] = []
    public var token: ChangeToken
    public var moreComing: Bool
}

extension CloudDatabase {
    /// The zones changed or deleted since `token`, oldest first, at most
    /// `limit` of them (the cloud's batch size by default). No token means
    /// every live zone. The default zone is not reported, as in CloudKit.
    public func databaseChanges(since token: ChangeToken?, limit: Int? = nil) throws(CloudError) -> DatabaseChanges {
        guard scope != .public else { throw .invalidArguments("the public database keeps no database change history") }
        let limit = max(1, limit ?? cloud.limits.fetchBatchSize)
        return try cloud.performRead { db in
            let now = try currentSequence(db)
            guard scope == .private, let database = try databaseID(db, create: false) else {
                return DatabaseChanges(token: ChangeToken(now), moreComing: false)
            }
            if let token, token.sequence < (try ZoneTable.purgedThrough(db, database: database)) {
                throw CloudError.changeTokenExpired
            }
            var rows = try ZoneTable.changed(db, database: database, after: token?.sequence, limit: limit + 1)
            let moreComing = rows.count > limit
            if moreComing { rows.removeLast() }
            var changes = DatabaseChanges(token: ChangeToken(moreComing ? rows.last!.seq : now), moreComing: moreComing)
            for row in rows {
                let id = ZoneID(name: row.name, owner: caller.id)
                if let reason = row.deletionReason {
                    changes.deleted.append(ZoneDeletion(zone: id, reason: reason))
                } else {
                    changes.modified.append(id)
                }
            }
            return changes
        }
    }

    /// The records saved or deleted in a zone since `token`, in the order
    /// they changed, at most `limit` of them. No token means every live record.
    public func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int? = nil) throws(CloudError) -> ZoneChanges {
        let zoneID = try normalize(zone)
        let limit = max(1, limit ?? cloud.limits.fetchBatchSize)
        return try cloud.performRead { db in
            let now = try currentSequence(db)
            guard let row = try liveZone(db, zoneID) else {
                return ZoneChanges(token: ChangeToken(now), moreComing: false)
            }
            if let token, token.sequence < row.purgedThrough { throw CloudError.changeTokenExpired }
            var stored = try RecordTable.changed(db, zone: row.id, after: token?.sequence, limit: limit + 1, zoneID: zoneID)
            let moreComing = stored.count > limit
            if moreComing { stored.removeLast() }
            var changes = ZoneChanges(token: ChangeToken(moreComing ? stored.last!.seq : now), moreComing: moreComing)
            for item in stored {
                if let record = item.record {
                    changes.modified.append(record)
                } else {
                    changes.deleted.append(RecordDeletion(id: RecordID(name: item.name, zone: zoneID), type: item.type))
                }
            }
            return changes
        }
    }
}
