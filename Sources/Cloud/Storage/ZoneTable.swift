import Foundation
import GRDB

/// A zone as stored, including the tombstone of a deleted one.
struct ZoneRow {
    let id: Int64
    let database: Int64
    let name: String
    /// The sequence number of the zone's last change, or of any record in it.
    let seq: Int64
    let deletionReason: ZoneDeletionReason?
    /// Tokens below this have missed purged tombstones.
    let purgedThrough: Int64
    /// When this incarnation of the zone was created; older tokens describe a zone that is gone.
    let createdSeq: Int64
    /// When a record last moved to another parent while the zone had
    /// hierarchical shares: what participants see may have shrunk.
    let hierarchySeq: Int64

    var isLive: Bool { deletionReason == nil }

    init(_ row: Row) {
        id = row["id"]
        database = row["database"]
        name = row["name"]
        seq = row["seq"]
        deletionReason = (row["deleted_reason"] as String?).flatMap(ZoneDeletionReason.init(rawValue:))
        purgedThrough = row["purged_through"]
        createdSeq = row["created_seq"]
        hierarchySeq = row["hierarchy_seq"]
    }
}

/// Queries on the `databases` and `zones` tables.
enum ZoneTable {
    /// The row ID of a database, created on first write.
    static func databaseID(_ db: Database, container: String, scope: DatabaseScope, owner: String, create: Bool) throws -> Int64? {
        let key: StatementArguments = [container, scope.rawValue, owner]
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM databases WHERE container = ? AND scope = ? AND owner = ?"), arguments: key) {
            return id
        }
        guard create else { return nil }
        try db.execute(sql: "INSERT INTO databases(container, scope, owner) VALUES (?, ?, ?)", arguments: key)
        return db.lastInsertedRowID
    }

    static func purgedThrough(_ db: Database, database: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT purged_through FROM databases WHERE id = ?"), arguments: [database]) ?? 0
    }

    static func find(_ db: Database, database: Int64, name: String) throws -> ZoneRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM zones WHERE database = ? AND name = ?"), arguments: [database, name])
            .map(ZoneRow.init)
    }

    static func find(_ db: Database, id: Int64) throws -> ZoneRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM zones WHERE id = ?"), arguments: [id]).map(ZoneRow.init)
    }

    static func live(_ db: Database, database: Int64) throws -> [ZoneRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM zones WHERE database = ? AND deleted_reason IS NULL ORDER BY name"),
                         arguments: [database]).map(ZoneRow.init)
    }

    /// Zones changed or deleted after `sequence` (live ones only when nil), oldest change first.
    static func changed(_ db: Database, database: Int64, after sequence: Int64?, limit: Int) throws -> [ZoneRow] {
        let statement = try db.cachedStatement(sql: sequence == nil
            ? "SELECT * FROM zones WHERE database = ? AND name != ? AND deleted_reason IS NULL ORDER BY seq LIMIT ?"
            : "SELECT * FROM zones WHERE database = ? AND name != ? AND seq > ? ORDER BY seq LIMIT ?")
        let arguments: StatementArguments = sequence.map { [database, ZoneID.defaultName, $0, limit] }
            ?? [database, ZoneID.defaultName, limit]
        return try Row.fetchAll(statement, arguments: arguments).map(ZoneRow.init)
    }

    /// Creates the zone, or brings a deleted one back with a fresh history.
    static func create(_ db: Database, database: Int64, name: String, seq: Int64) throws -> ZoneRow {
        try db.execute(sql: """
            INSERT INTO zones(database, name, seq, created_seq) VALUES (?, ?, ?, ?)
            ON CONFLICT(database, name) DO UPDATE SET
                seq = excluded.seq, created_seq = excluded.seq, deleted_reason = NULL, deleted_at = NULL
            """, arguments: [database, name, seq, seq])
        return try find(db, database: database, name: name)!
    }

    /// Leaves a tombstone for the zone and deletes its records outright, as
    /// CloudKit does: clients learn of it from the database's changes.
    static func delete(_ db: Database, zone: ZoneRow, reason: ZoneDeletionReason, seq: Int64, now: Date) throws {
        try db.execute(sql: "UPDATE zones SET seq = ?, deleted_reason = ?, deleted_at = ? WHERE id = ?",
                       arguments: [seq, reason.rawValue, now.timeIntervalSince1970, zone.id])
        try db.execute(sql: "DELETE FROM records WHERE zone = ?", arguments: [zone.id])
        try db.execute(sql: "DELETE FROM cascades WHERE zone = ?", arguments: [zone.id])
        try db.execute(sql: "DELETE FROM versions WHERE zone = ?", arguments: [zone.id])
    }

    static func moved(_ db: Database, zone: Int64, seq: Int64) throws {
        try db.execute(sql: "UPDATE zones SET hierarchy_seq = ? WHERE id = ?", arguments: [seq, zone])
    }

    /// Marks the zone changed, so database change fetches report it.
    static func touch(_ db: Database, zone: Int64, seq: Int64) throws {
        try db.cachedStatement(sql: "UPDATE zones SET seq = ? WHERE id = ?").execute(arguments: [seq, zone])
    }
}
