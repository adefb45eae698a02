import Foundation
import GRDB
import SQLiteDirect

/// Queries on the `versions` table: the versions a record had before its current one (or its deletion),
/// numbered from 1 per record, in the same columns as `records`.
enum VersionTable {
    /// Keeps the live record `name` as a version (before a save replaces it or a deletion tombstones it),
    /// then drops the versions past the cloud's retention. A record not live (new, or a tombstone) keeps nothing.
    static func keep(_ db: Database, zone: Int64, name: String, now: Date) throws {
        try db.cachedStatement(sql: """
            INSERT INTO versions(zone, name, version, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by)
            SELECT zone, name, coalesce((SELECT max(version) FROM versions v WHERE v.zone = r.zone AND v.name = r.name), 0) + 1,
                type, body, parent, change_tag, created_at, created_by, modified_at, modified_by
            FROM records r WHERE zone = ? AND name = ? AND deleted = 0
            """).execute(arguments: [zone, name])
        guard db.changesCount > 0 else { return }
        let retention = try retention(db)
        // The current version counts as one of the kept; a deleted record's last is its current.
        try db.cachedStatement(sql: """
            DELETE FROM versions WHERE zone = ?1 AND name = ?2
                AND (version <= (SELECT max(version) FROM versions WHERE zone = ?1 AND name = ?2) - ?3 OR modified_at < ?4)
                AND version < (SELECT max(version) FROM versions WHERE zone = ?1 AND name = ?2)
            """).execute(arguments: [zone, name, max(0, retention.historyVersions - 1), now.timeIntervalSince1970 - retention.historyAge])
    }

    /// A record's kept versions, newest first, each with its number.
    static func versions(_ db: Database, zone: Int64, name: String, zoneID: ZoneID) throws -> [(number: Int, record: Record)] {
        var found: [(Int, Record)] = []
        try db.cachedStatement(sql: """
            SELECT name, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by, version, 0
            FROM versions WHERE zone = ? AND name = ? ORDER BY version DESC
            """).run(binding: { $0.add(zone); $0.add(name) }, row: { row in
                let stored = try RecordTable.stored(from: row, zoneID: zoneID)
                if let record = stored.record { found.append((Int(stored.seq), record)) }
            })
        return found
    }

    static func lastNumber(_ db: Database, zone: Int64, name: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT max(version) FROM versions WHERE zone = ? AND name = ?"),
                         arguments: [zone, name]) ?? 0
    }

    static func retention(_ db: Database) throws -> Retention {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT history_versions, history_days, trash_days FROM retention")) else {
            return .standard
        }
        return Retention(historyVersions: row[0], historyDays: row[1], trashDays: row[2])
    }

    static func setRetention(_ db: Database, _ retention: Retention) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO retention VALUES (1, ?, ?, ?)",
                       arguments: [retention.historyVersions, retention.historyDays, retention.trashDays])
    }
}
