import Foundation

extension LocalDatabase {
    /// The shares of a zone in the caller's shared database that they took part in and no longer do.
    public func endedShares(in zone: ZoneID) throws(CloudError) -> [EndedShare] {
        guard scope == .shared else { return [] }
        let zoneID = try normalize(zone)
        let now = cloud.clock.now()
        return try cloud.performRead { db in
            guard let database = try databaseID(db, owner: zoneID.owner, create: false),
                  let zoneRow = try db.int64("SELECT id FROM zones WHERE database = ? AND name = ?", [database, zoneID.name]) else { return [] }
            // Who ended a share is who last saved its record (a tombstone when it ended); who took a participant
            // off is who last changed their row. A share that ended with its zone (in the same change) or whose root record
            // is deleted went with what it shared.
            return try db.all("""
                SELECT s.name, s.deleted, p.status, p.changed_by, r.modified_by, r.modified_at,
                    CASE WHEN (z.deleted_at IS NOT NULL AND p.seq = z.seq) OR EXISTS (SELECT 1 FROM records root
                        WHERE root.zone = s.zone AND root.name = s.root AND root.deleted = 1) THEN 1 ELSE 0 END
                FROM shares s JOIN participants p ON p.share = s.id JOIN zones z ON z.id = s.zone
                LEFT JOIN records r ON r.zone = s.zone AND r.name = s.name
                WHERE s.zone = ? AND p.account = ? AND p.role != 'owner'
                ORDER BY s.id
                """, [zoneRow, caller.id]) { row -> EndedShare? in
                let name = row.text(0), deleted = row.bool(1), status = row.text(2)
                let changedBy = row.optionalText(3), savedBy = row.optionalText(4)
                let at = row.double(5).map(Date.init(timeIntervalSince1970:)) ?? now  // its record went with its zone
                if deleted {
                    return EndedShare(shareName: name, reason: row.bool(6) ? .deleted : .ended, by: savedBy ?? zoneID.owner, at: at)
                }
                guard status == AcceptanceStatus.removed.rawValue else { return nil }
                let by = changedBy ?? savedBy ?? zoneID.owner
                return EndedShare(shareName: name, reason: by == caller.id ? .left : .removed, by: by, at: at)
            }.compactMap { $0 }
        }
    }
}
