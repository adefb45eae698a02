import Foundation

/// Queries on the `versions` table: the versions a record had before its current one (or its deletion),
/// numbered from 1 per record, in the same columns as `records`.
enum VersionTable {
    /// Keeps the live record `name` as a version (before a save replaces it or a deletion tombstones it),
    /// then drops the versions past the cloud's retention. A record not live (new, or a tombstone) keeps nothing.
    /// Neither statement's answer is needed here, so the retention is read inside the second (a store across
    /// a network sends both without waiting).
    static func keep(_ db: any SQLTransaction, zone: Int64, name: String, now: Date) throws {
        try db.send("""
            INSERT INTO versions(zone, name, version, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by)
            SELECT zone, name, coalesce((SELECT max(version) FROM versions v WHERE v.zone = r.zone AND v.name = r.name), 0) + 1,
                type, body, parent, change_tag, created_at, created_by, modified_at, modified_by
            FROM records r WHERE zone = ? AND name = ? AND deleted = 0
            """, [zone, name])
        let standard = Retention.standard
        // The current version counts as one of the kept; a deleted record's last is its current.
        let kept = db.dialect.greatest("0", "coalesce((SELECT history_versions FROM retention), ?3) - 1")
        try db.send("""
            DELETE FROM versions WHERE zone = ?1 AND name = ?2
                AND (version <= (SELECT max(version) FROM versions WHERE zone = ?1 AND name = ?2) - \(kept)
                    OR modified_at < ?4 - coalesce((SELECT history_days FROM retention), ?5) * ?6)
                AND version < (SELECT max(version) FROM versions WHERE zone = ?1 AND name = ?2)
            """, [zone, name, standard.historyVersions, now.timeIntervalSince1970, standard.historyDays, Retention.secondsPerDay])
    }

    /// A record's kept versions, newest first, each with its number and whether it was carried in from another zone.
    static func versions(_ db: any SQLTransaction, zone: Int64, name: String,
                         zoneID: ZoneID) throws -> [(number: Int, record: Record, carried: Bool)] {
        var found: [(Int, Record, Bool)] = []
        try db.run("""
            SELECT name, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by, version, 0, carried
            FROM versions WHERE zone = ? AND name = ? ORDER BY version DESC
            """, [.integer(zone), .text(name)]) { row in
                let stored = try RecordTable.stored(from: row, zoneID: zoneID)
                if let record = stored.record { found.append((Int(stored.seq), record, row.int64(11) != 0)) }
            }
        return found
    }

    /// Carries the versions of `name` in zone `from` (just tombstoned) to the record of that name just created in
    /// zone `to`, numbered after any that name has there; the record takes the last one's creation and modification
    /// (a move edits nothing): a post its owner moved to another notebook keeps its history and its age, and leaves
    /// nothing in the first one's trash. Returns the system fields carried, nil where `from` kept no version.
    static func carry(_ db: any SQLTransaction, name: String, from: Int64, to: Int64) throws -> SystemFields? {
        guard let last = try db.first("""
            SELECT created_at, created_by, modified_at, modified_by FROM versions WHERE zone = ? AND name = ? ORDER BY version DESC LIMIT 1
            """, [from, name], { row in
                SystemFields(changeTag: "", createdAt: Date(timeIntervalSince1970: row.double(0) ?? 0), createdBy: row.text(1),
                             modifiedAt: Date(timeIntervalSince1970: row.double(2) ?? 0), modifiedBy: row.text(3))
            }) else { return nil }
        let offset = try lastNumber(db, zone: to, name: name)
        try db.execute("UPDATE versions SET zone = ?1, version = version + ?2, carried = 1 WHERE zone = ?3 AND name = ?4",
                       [to, offset, from, name])
        try db.execute("UPDATE records SET moved_to = ?1 WHERE zone = ?2 AND name = ?3 AND deleted = 1", [to, from, name])
        try db.execute("UPDATE records SET created_at = ?1, created_by = ?2, modified_at = ?3, modified_by = ?4 WHERE zone = ?5 AND name = ?6",
                       [last.createdAt.timeIntervalSince1970, last.createdBy, last.modifiedAt.timeIntervalSince1970, last.modifiedBy, to, name])
        return last
    }

    static func lastNumber(_ db: any SQLTransaction, zone: Int64, name: String) throws -> Int {
        try db.int64("SELECT max(version) FROM versions WHERE zone = ? AND name = ?", [zone, name]).map(Int.init) ?? 0
    }

    static func retention(_ db: any SQLTransaction) throws -> Retention {
        try db.first("SELECT history_versions, history_days, trash_days FROM retention") { row in
            Retention(historyVersions: Int(row.int64(0)), historyDays: row.double(1) ?? 0, trashDays: row.double(2) ?? 0)
        } ?? .standard
    }

    static func setRetention(_ db: any SQLTransaction, _ retention: Retention) throws {
        try db.execute("INSERT INTO retention VALUES (1, ?, ?, ?) "
                       + "ON CONFLICT(id) DO UPDATE SET history_versions = excluded.history_versions, "
                       + "history_days = excluded.history_days, trash_days = excluded.trash_days",
                       [retention.historyVersions, retention.historyDays, retention.trashDays])
    }
}
