import Foundation

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
    /// Whether the zone has a live share, when the query that read it said (nil: not asked). A zone without one
    /// has nobody to tell in other accounts, and a write to it need not ask who.
    let hasLiveShares: Bool?

    var isLive: Bool { deletionReason == nil }

    init(_ row: any SQLRow, hasLiveShares: Bool? = nil) {
        self.hasLiveShares = hasLiveShares
        id = row.int64("id")
        database = row.int64("database")
        name = row.text("name")
        seq = row.int64("seq")
        deletionReason = row.optionalText("deleted_reason").flatMap(ZoneDeletionReason.init(rawValue:))
        purgedThrough = row.int64("purged_through")
        createdSeq = row.int64("created_seq")
        hierarchySeq = row.int64("hierarchy_seq")
    }
}

/// Queries on the `databases` and `zones` tables.
enum ZoneTable {
    /// The row ID of a database, created on first write.
    static func databaseID(_ db: any SQLTransaction, container: String, scope: DatabaseScope, owner: String, create: Bool) throws -> Int64? {
        let key: [any SQLBindable] = [container, scope.rawValue, owner]
        if let id = try db.int64("SELECT id FROM databases WHERE container = ? AND scope = ? AND owner = ?", key) {
            return id
        }
        guard create else { return nil }
        return try db.int64("INSERT INTO databases(container, scope, owner) VALUES (?, ?, ?) RETURNING id", key)
    }

    /// A database's ID and the sequence its change history was purged through, in one statement; nil when it
    /// does not exist.
    static func database(_ db: any SQLTransaction, container: String, scope: DatabaseScope,
                         owner: String) throws -> (id: Int64, purgedThrough: Int64)? {
        try db.first("SELECT id, purged_through FROM databases WHERE container = ? AND scope = ? AND owner = ?",
                     [container, scope.rawValue, owner]) { ($0.int64(0), $0.int64(1)) }
    }

    /// A zone by its database's key and its name (nil: no such database, or no such zone in it), and whether it
    /// has a live share.
    static func find(_ db: any SQLTransaction, container: String, scope: DatabaseScope, owner: String, name: String) throws -> ZoneRow? {
        try db.first("""
            SELECT z.*, EXISTS (SELECT 1 FROM shares s WHERE s.zone = z.id AND s.deleted = 0) AS has_live_shares
            FROM zones z JOIN databases d ON d.id = z.database
            WHERE d.container = ? AND d.scope = ? AND d.owner = ? AND z.name = ?
            """, [container, scope.rawValue, owner, name]) { ZoneRow($0, hasLiveShares: $0.bool("has_live_shares")) }
    }

    static func find(_ db: any SQLTransaction, database: Int64, name: String) throws -> ZoneRow? {
        try db.first("SELECT * FROM zones WHERE database = ? AND name = ?", [database, name]) { ZoneRow($0) }
    }

    static func find(_ db: any SQLTransaction, id: Int64) throws -> ZoneRow? {
        try db.first("SELECT * FROM zones WHERE id = ?", [id]) { ZoneRow($0) }
    }

    static func live(_ db: any SQLTransaction, database: Int64) throws -> [ZoneRow] {
        try db.all("SELECT * FROM zones WHERE database = ? AND deleted_reason IS NULL ORDER BY name", [database]) { ZoneRow($0) }
    }

    /// Zones changed or deleted after `sequence` (live ones only when nil), oldest change first.
    static func changed(_ db: any SQLTransaction, database: Int64, after sequence: Int64?, limit: Int) throws -> [ZoneRow] {
        let sql = sequence == nil
            ? "SELECT * FROM zones WHERE database = ? AND name != ? AND deleted_reason IS NULL ORDER BY seq LIMIT ?"
            : "SELECT * FROM zones WHERE database = ? AND name != ? AND seq > ? ORDER BY seq LIMIT ?"
        let arguments: [any SQLBindable] = sequence.map { [database, ZoneID.defaultName, $0, limit] }
            ?? [database, ZoneID.defaultName, limit]
        return try db.all(sql, arguments) { ZoneRow($0) }
    }

    /// Creates the zone, or brings a deleted one back with a fresh history.
    static func create(_ db: any SQLTransaction, database: Int64, name: String, seq: Int64) throws -> ZoneRow {
        try db.execute("""
            INSERT INTO zones(database, name, seq, created_seq) VALUES (?, ?, ?, ?)
            ON CONFLICT(database, name) DO UPDATE SET
                seq = excluded.seq, created_seq = excluded.seq, deleted_reason = NULL, deleted_at = NULL
            """, [database, name, seq, seq])
        return try find(db, database: database, name: name)!
    }

    /// Leaves a tombstone for the zone and deletes its records outright, as
    /// CloudKit does: clients learn of it from the database's changes. The
    /// tombstones of records moved out stay, saying where they went: a device
    /// that edited one before it heard the zone was renamed follows it there.
    static func delete(_ db: any SQLTransaction, zone: ZoneRow, reason: ZoneDeletionReason, seq: Int64, now: Date) throws {
        try db.execute("UPDATE zones SET seq = ?, deleted_reason = ?, deleted_at = ? WHERE id = ?",
                       [seq, reason.rawValue, now.timeIntervalSince1970, zone.id])
        try db.execute("DELETE FROM records WHERE zone = ? AND (deleted = 0 OR moved_to IS NULL)", [zone.id])
        try db.execute("DELETE FROM cascades WHERE zone = ?", [zone.id])
        try db.execute("DELETE FROM versions WHERE zone = ?", [zone.id])
    }

    static func moved(_ db: any SQLTransaction, zone: Int64, seq: Int64) throws {
        try db.execute("UPDATE zones SET hierarchy_seq = ? WHERE id = ?", [seq, zone])
    }

    /// Marks the zone changed, so database change fetches report it.
    static func touch(_ db: any SQLTransaction, zone: Int64, seq: Int64) throws {
        try db.send("UPDATE zones SET seq = ? WHERE id = ?", [seq, zone])
    }
}
