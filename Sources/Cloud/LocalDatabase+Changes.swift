import Foundation

extension LocalDatabase {
    /// The zones changed or deleted since `token`, oldest first, at most
    /// `limit` of them (the cloud's batch size by default). No token means
    /// every live zone. The default zone is not reported, as in CloudKit.
    ///
    /// In the shared database, a zone appears when the caller accepts a share
    /// in it, and is reported deleted when they lose it: removed, left, the
    /// share stopped, or the zone deleted.
    public func databaseChanges(since token: ChangeToken?, limit: Int? = nil) throws(CloudError) -> DatabaseChanges {
        guard scope != .public else { throw .invalidArguments("the public database keeps no database change history") }
        let limit = batchLimit(limit)
        return try cloud.performRead { db, now in
            try token?.check(before: now)
            var entries: [(id: ZoneID, seq: Int64, deletion: ZoneDeletionReason?)]
            if scope == .shared {
                entries = try SharedDatabase.entries(db, of: caller.id, container: cloud.container)
                    .filter { token == nil ? $0.isLive : $0.seq > token!.sequence }
                    .map { ($0.id, $0.seq, $0.isLive ? nil : $0.zone.deletionReason ?? .deleted) }
            } else {
                guard let database = try database(db, owner: caller.id) else {
                    return DatabaseChanges(token: ChangeToken(now), moreComing: false)
                }
                try token?.check(after: database.purgedThrough)
                entries = try ZoneTable.changed(db, database: database.id, after: token?.sequence, limit: limit + 1)
                    .map { (ZoneID(name: $0.name, owner: caller.id), $0.seq, $0.deletionReason) }
            }
            let moreComing = entries.count > limit
            entries = Array(entries.prefix(limit))
            var changes = DatabaseChanges(token: ChangeToken(moreComing ? entries.last!.seq : now, issued: now), moreComing: moreComing)
            for entry in entries {
                if let reason = entry.deletion {
                    changes.deleted.append(ZoneDeletion(zone: entry.id, reason: reason))
                } else {
                    changes.modified.append(entry.id)
                }
            }
            return changes
        }
    }

    /// The records saved or deleted in a zone since `token`, in the order
    /// they changed, at most `limit` of them. No token means every live record.
    ///
    /// A participant of hierarchical shares sees only the shared hierarchies.
    /// When what they see may have shrunk (their part in the zone changed, or
    /// a record moved to another parent), older tokens expire, so they fetch
    /// what they now see afresh.
    ///
    /// `known` names, by record name, the change tags of versions the caller
    /// already holds (its own saves, say): those are left out of the batch,
    /// and the token moves past them as if they had been sent.
    public func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int? = nil,
                            known: [String: String] = [:]) throws(CloudError) -> ZoneChanges {
        let zoneID = try normalize(zone)
        let limit = batchLimit(limit)
        return try cloud.performRead { db, now in
            try token?.check(before: now)
            guard let access = try access(db, zoneID) else {
                return ZoneChanges(token: ChangeToken(now), moreComing: false)
            }
            if let token {
                // A token from before the zone was (re)created, or from before purged tombstones, has expired.
                var horizon = max(access.zone.purgedThrough, access.zone.createdSeq)
                if scope == .shared {
                    horizon = max(horizon, try ShareTable.lastGrantChange(db, zone: access.zone.id, account: caller.id))
                    if case .hierarchies = access.grant { horizon = max(horizon, access.zone.hierarchySeq) }
                }
                try token.check(after: horizon)
            }
            // Known versions are not sent, so they do not count against the limit: at most `known.count` of the rows are.
            let rows = limit + 1 + known.count
            var stored: [StoredRecord]
            if let visible = try access.visibleNames(db) {
                stored = try RecordTable.changed(db, zone: access.zone.id, after: token?.sequence, limit: rows, zoneID: zoneID,
                                                 known: known, visible: visible)
            } else {
                stored = try RecordTable.changed(db, zone: access.zone.id, after: token?.sequence, limit: rows, zoneID: zoneID,
                                                 known: known)
            }
            let moreComing = Self.cutAfter(limit, sent: &stored)
            var changes = ZoneChanges(token: ChangeToken(moreComing ? stored.last!.seq : now, issued: now), moreComing: moreComing)
            for item in stored where !item.isKnown {
                if let record = item.record {
                    changes.modified.append(record)
                } else {
                    changes.deleted.append(RecordDeletion(id: RecordID(name: item.name, zone: zoneID), type: item.type))
                }
            }
            return changes
        }
    }

    /// The batch size asked for, or the cloud's, and never more than the cloud's: one answer is one transaction,
    /// which holds the store while it is read, and any account may ask.
    private func batchLimit(_ requested: Int?) -> Int {
        min(max(1, requested ?? cloud.limits.fetchBatchSize), cloud.limits.fetchBatchSize)
    }

    /// Keeps `stored` up to its `limit`-th change that is sent (not known to the caller); true when more follow.
    private static func cutAfter(_ limit: Int, sent stored: inout [StoredRecord]) -> Bool {
        var sent = 0
        guard let next = stored.firstIndex(where: { record in
            if !record.isKnown { sent += 1 }
            return sent > limit
        }) else { return false }
        stored.removeSubrange(next...)
        return true
    }
}
