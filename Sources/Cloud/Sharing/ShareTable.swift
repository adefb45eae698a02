import Foundation
import GRDB

/// A share as stored: the grant's identity, its link's hash and public permission.
struct ShareRow: Equatable {
    let id: Int64
    let zone: Int64
    let name: String
    let root: String?
    let publicPermission: SharePermission

    init(_ row: Row) {
        id = row["id"]
        zone = row["zone"]
        name = row["name"]
        root = row["root"]
        publicPermission = SharePermission(rawValue: row["public_permission"]) ?? .none
    }
}

/// A participant as stored; `account` is nil for an unclaimed one-time invitation.
struct ParticipantRow {
    let id: Int64
    let share: Int64
    var account: String?
    var role: ShareRole
    var permission: SharePermission
    var status: AcceptanceStatus
    var oneTimeID: String?
    /// When this row last changed: the shared database's history for `account`.
    let seq: Int64
    /// When they last became an accepted participant (nil for rows from before the cloud kept it: no limit).
    let joinedSeq: Int64?

    init(_ row: Row) {
        id = row["id"]
        share = row["share"]
        account = row["account"]
        role = ShareRole(rawValue: row["role"]) ?? .privateUser
        permission = SharePermission(rawValue: row["permission"]) ?? .none
        status = AcceptanceStatus(rawValue: row["status"]) ?? .unknown
        oneTimeID = row["one_time_id"]
        seq = row["seq"]
        joinedSeq = row["joined_seq"]
    }

    var hasAccess: Bool { status == .accepted && permission != .none }
}

/// Queries on the `shares`, `participants` and `access_requests` tables.
enum ShareTable {
    static func find(_ db: Database, zone: Int64, name: String) throws -> ShareRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM shares WHERE zone = ? AND name = ? AND deleted = 0"),
                         arguments: [zone, name]).map(ShareRow.init)
    }

    static func find(_ db: Database, tokenHash: Data) throws -> ShareRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM shares WHERE token_hash = ? AND deleted = 0"), arguments: [tokenHash])
            .map(ShareRow.init)
    }

    static func find(_ db: Database, id: Int64) throws -> ShareRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM shares WHERE id = ? AND deleted = 0"), arguments: [id]).map(ShareRow.init)
    }

    /// The live shares of a zone.
    static func live(_ db: Database, zone: Int64) throws -> [ShareRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM shares WHERE zone = ? AND deleted = 0 ORDER BY id"), arguments: [zone])
            .map(ShareRow.init)
    }

    /// The share whose root is this record, if any.
    static func rooted(_ db: Database, zone: Int64, at name: String) throws -> ShareRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM shares WHERE zone = ? AND root = ? AND deleted = 0"),
                         arguments: [zone, name]).map(ShareRow.init)
    }

    static func insert(_ db: Database, zone: Int64, name: String, root: String?, tokenHash: Data,
                       publicPermission: SharePermission) throws -> ShareRow {
        try db.execute(sql: "INSERT INTO shares(zone, name, root, token_hash, public_permission) VALUES (?, ?, ?, ?, ?)",
                       arguments: [zone, name, root, tokenHash, publicPermission.rawValue])
        return try find(db, id: db.lastInsertedRowID)!
    }

    static func setPublicPermission(_ db: Database, share: Int64, _ permission: SharePermission) throws {
        try db.execute(sql: "UPDATE shares SET public_permission = ? WHERE id = ?", arguments: [permission.rawValue, share])
    }

    /// Ends a share: every participant loses it (their rows stay, as the
    /// history their shared databases report).
    static func delete(_ db: Database, share: Int64, seq: Int64) throws {
        try db.execute(sql: "UPDATE shares SET deleted = 1 WHERE id = ?", arguments: [share])
        try db.execute(sql: "UPDATE participants SET status = 'removed', seq = ? WHERE share = ? AND status != 'removed'",
                       arguments: [seq, share])
        try db.execute(sql: "DELETE FROM access_requests WHERE share = ?", arguments: [share])
    }

    // MARK: Participants

    static func participants(_ db: Database, share: Int64) throws -> [ParticipantRow] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM participants WHERE share = ? ORDER BY id"), arguments: [share])
            .map(ParticipantRow.init)
    }

    static func participant(_ db: Database, share: Int64, account: String) throws -> ParticipantRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM participants WHERE share = ? AND account = ?"), arguments: [share, account])
            .map(ParticipantRow.init)
    }

    static func participant(_ db: Database, oneTimeHash: Data) throws -> ParticipantRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM participants WHERE one_time_hash = ?"), arguments: [oneTimeHash])
            .map(ParticipantRow.init)
    }

    static func insertParticipant(_ db: Database, share: Int64, account: String?, role: ShareRole,
                                  permission: SharePermission, status: AcceptanceStatus, seq: Int64,
                                  oneTime: (id: String, hash: Data)? = nil) throws {
        try db.execute(sql: """
            INSERT INTO participants(share, account, role, permission, status, one_time_id, one_time_hash, seq, joined_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [share, account, role.rawValue, permission.rawValue, status.rawValue,
                             oneTime?.id, oneTime?.hash, seq, status == .accepted ? seq : nil])
    }

    /// Writes a participant's changed row, stamping it with `seq`.
    static func update(_ db: Database, _ participant: ParticipantRow, seq: Int64, by actor: String) throws {
        try db.execute(sql: """
            UPDATE participants SET account = ?1, role = ?2, permission = ?3, status = ?4, seq = ?5, changed_by = ?6,
                joined_seq = CASE WHEN ?4 = 'accepted' AND status != 'accepted' THEN ?5 ELSE joined_seq END
            WHERE id = ?7
            """, arguments: [participant.account, participant.role.rawValue, participant.permission.rawValue,
                             participant.status.rawValue, seq, actor, participant.id])
    }

    /// The caller's live grants in a zone: accepted, with some permission, on a live share.
    static func grants(_ db: Database, zone: Int64, account: String) throws -> [(share: ShareRow, participant: ParticipantRow)] {
        let participants = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT p.* FROM participants p JOIN shares s ON p.share = s.id
            WHERE s.zone = ? AND s.deleted = 0 AND p.account = ? AND p.status = 'accepted' AND p.permission != 'none'
            ORDER BY s.id
            """), arguments: [zone, account]).map(ParticipantRow.init)
        return try participants.map { (try find(db, id: $0.share)!, $0) }
    }

    /// When the caller's part in any share of this zone last changed; a
    /// zone change token from before that no longer describes what they see.
    static func lastGrantChange(_ db: Database, zone: Int64, account: String) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT max(p.seq) FROM participants p JOIN shares s ON p.share = s.id WHERE s.zone = ? AND p.account = ?
            """), arguments: [zone, account]) ?? 0
    }

    /// Accounts whose shared database shows this zone: they hear of its changes.
    static func audience(_ db: Database, zone: Int64) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: """
            SELECT DISTINCT p.account FROM participants p JOIN shares s ON p.share = s.id
            WHERE s.zone = ? AND s.deleted = 0 AND p.status = 'accepted' AND p.role != 'owner' AND p.account IS NOT NULL
            """), arguments: [zone])
    }

    // MARK: Access requests

    static func accessRequests(_ db: Database, share: Int64) throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.*, a.name, a.email FROM access_requests r JOIN accounts a ON a.id = r.account
            WHERE r.share = ? ORDER BY r.requested_at, a.name
            """), arguments: [share])
    }

    static func accessRequestStatus(_ db: Database, share: Int64, account: String) throws -> AccessRequest.Status? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT status FROM access_requests WHERE share = ? AND account = ?"),
                            arguments: [share, account]).flatMap(AccessRequest.Status.init(rawValue:))
    }

    static func setAccessRequest(_ db: Database, share: Int64, account: String, status: AccessRequest.Status?, now: Date) throws {
        if let status {
            try db.execute(sql: """
                INSERT INTO access_requests(share, account, status, requested_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(share, account) DO UPDATE SET status = excluded.status
                """, arguments: [share, account, status.rawValue, now.timeIntervalSince1970])
        } else {
            try db.execute(sql: "DELETE FROM access_requests WHERE share = ? AND account = ?", arguments: [share, account])
        }
    }
}
