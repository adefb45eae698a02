import Foundation

/// A share as stored: the grant's identity, its link's hash and public permission.
struct ShareRow: Equatable {
    let id: Int64
    let zone: Int64
    let name: String
    let root: String?
    let publicPermission: SharePermission

    init(_ row: any SQLRow) {
        id = row.int64("id")
        zone = row.int64("zone")
        name = row.text("name")
        root = row.optionalText("root")
        publicPermission = SharePermission(rawValue: row.text("public_permission")) ?? .none
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

    init(_ row: any SQLRow) {
        id = row.int64("id")
        share = row.int64("share")
        account = row.optionalText("account")
        role = ShareRole(rawValue: row.text("role")) ?? .privateUser
        permission = SharePermission(rawValue: row.text("permission")) ?? .none
        status = AcceptanceStatus(rawValue: row.text("status")) ?? .unknown
        oneTimeID = row.optionalText("one_time_id")
        seq = row.int64("seq")
        joinedSeq = row.optionalInt64("joined_seq")
    }

    var hasAccess: Bool { status == .accepted && permission != .none }
}

/// Queries on the `shares`, `participants` and `access_requests` tables.
enum ShareTable {
    static func find(_ db: any SQLTransaction, zone: Int64, name: String) throws -> ShareRow? {
        try db.first("SELECT * FROM shares WHERE zone = ? AND name = ? AND deleted = 0", [zone, name]) { ShareRow($0) }
    }

    static func find(_ db: any SQLTransaction, tokenHash: Data) throws -> ShareRow? {
        try db.first("SELECT * FROM shares WHERE token_hash = ? AND deleted = 0", [tokenHash]) { ShareRow($0) }
    }

    static func find(_ db: any SQLTransaction, id: Int64) throws -> ShareRow? {
        try db.first("SELECT * FROM shares WHERE id = ? AND deleted = 0", [id]) { ShareRow($0) }
    }

    /// The live shares of a zone.
    static func live(_ db: any SQLTransaction, zone: Int64) throws -> [ShareRow] {
        try db.all("SELECT * FROM shares WHERE zone = ? AND deleted = 0 ORDER BY id", [zone]) { ShareRow($0) }
    }

    /// The share whose root is this record, if any.
    static func rooted(_ db: any SQLTransaction, zone: Int64, at name: String) throws -> ShareRow? {
        try db.first("SELECT * FROM shares WHERE zone = ? AND root = ? AND deleted = 0", [zone, name]) { ShareRow($0) }
    }

    static func insert(_ db: any SQLTransaction, zone: Int64, name: String, root: String?, tokenHash: Data,
                       publicPermission: SharePermission) throws -> ShareRow {
        try db.first("""
            INSERT INTO shares(zone, name, root, token_hash, public_permission) VALUES (?, ?, ?, ?, ?) RETURNING *
            """, [zone, name, root, tokenHash, publicPermission.rawValue]) { ShareRow($0) }!
    }

    static func setPublicPermission(_ db: any SQLTransaction, share: Int64, _ permission: SharePermission) throws {
        try db.execute("UPDATE shares SET public_permission = ? WHERE id = ?", [permission.rawValue, share])
    }

    /// Ends a share: every participant loses it (their rows stay, as the
    /// history their shared databases report).
    static func delete(_ db: any SQLTransaction, share: Int64, seq: Int64) throws {
        try db.execute("UPDATE shares SET deleted = 1 WHERE id = ?", [share])
        try db.execute("UPDATE participants SET status = 'removed', seq = ? WHERE share = ? AND status != 'removed'",
                       [seq, share])
        try db.execute("DELETE FROM access_requests WHERE share = ?", [share])
    }

    // MARK: Participants

    static func participants(_ db: any SQLTransaction, share: Int64) throws -> [ParticipantRow] {
        try db.all("SELECT * FROM participants WHERE share = ? ORDER BY id", [share]) { ParticipantRow($0) }
    }

    static func participant(_ db: any SQLTransaction, share: Int64, account: String) throws -> ParticipantRow? {
        try db.first("SELECT * FROM participants WHERE share = ? AND account = ?", [share, account]) { ParticipantRow($0) }
    }

    static func participant(_ db: any SQLTransaction, oneTimeHash: Data) throws -> ParticipantRow? {
        try db.first("SELECT * FROM participants WHERE one_time_hash = ?", [oneTimeHash]) { ParticipantRow($0) }
    }

    static func insertParticipant(_ db: any SQLTransaction, share: Int64, account: String?, role: ShareRole,
                                  permission: SharePermission, status: AcceptanceStatus, seq: Int64,
                                  oneTime: (id: String, hash: Data)? = nil) throws {
        try db.execute("""
            INSERT INTO participants(share, account, role, permission, status, one_time_id, one_time_hash, seq, joined_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [share, account, role.rawValue, permission.rawValue, status.rawValue,
                             oneTime?.id, oneTime?.hash, seq, status == .accepted ? seq : nil])
    }

    /// Writes a participant's changed row, stamping it with `seq`.
    static func update(_ db: any SQLTransaction, _ participant: ParticipantRow, seq: Int64, by actor: String) throws {
        try db.execute("""
            UPDATE participants SET account = ?1, role = ?2, permission = ?3, status = ?4, seq = ?5, changed_by = ?6,
                joined_seq = CASE WHEN ?4 = 'accepted' AND status != 'accepted' THEN ?5 ELSE joined_seq END
            WHERE id = ?7
            """, [participant.account, participant.role.rawValue, participant.permission.rawValue,
                             participant.status.rawValue, seq, actor, participant.id])
    }

    /// The caller's live grants in a zone: accepted, with some permission, on a live share.
    static func grants(_ db: any SQLTransaction, zone: Int64, account: String) throws -> [(share: ShareRow, participant: ParticipantRow)] {
        let participants = try db.all("""
            SELECT p.* FROM participants p JOIN shares s ON p.share = s.id
            WHERE s.zone = ? AND s.deleted = 0 AND p.account = ? AND p.status = 'accepted' AND p.permission != 'none'
            ORDER BY s.id
            """, [zone, account]) { ParticipantRow($0) }
        return try participants.map { (try find(db, id: $0.share)!, $0) }
    }

    /// When the caller's part in any share of this zone last changed; a
    /// zone change token from before that no longer describes what they see.
    static func lastGrantChange(_ db: any SQLTransaction, zone: Int64, account: String) throws -> Int64 {
        try db.int64("""
            SELECT max(p.seq) FROM participants p JOIN shares s ON p.share = s.id WHERE s.zone = ? AND p.account = ?
            """, [zone, account]) ?? 0
    }

    /// Accounts whose shared database shows this zone: they hear of its changes.
    static func audience(_ db: any SQLTransaction, zone: Int64) throws -> [String] {
        try db.strings("""
            SELECT DISTINCT p.account FROM participants p JOIN shares s ON p.share = s.id
            WHERE s.zone = ? AND s.deleted = 0 AND p.status = 'accepted' AND p.role != 'owner' AND p.account IS NOT NULL
            """, [zone])
    }

    // MARK: Access requests

    static func accessRequests(_ db: any SQLTransaction, share: Int64) throws -> [AccessRequest] {
        try db.all("""
            SELECT r.*, a.name, a.email FROM access_requests r JOIN accounts a ON a.id = r.account
            WHERE r.share = ? ORDER BY r.requested_at, lower(a.name)
            """, [share]) { r in
            AccessRequest(userRecordID: r.text("account"), name: r.text("name"), email: r.text("email"),
                          requestedAt: r.date("requested_at") ?? .distantPast,
                          status: AccessRequest.Status(rawValue: r.text("status")) ?? .pending)
        }
    }

    static func accessRequestStatus(_ db: any SQLTransaction, share: Int64, account: String) throws -> AccessRequest.Status? {
        try db.string("SELECT status FROM access_requests WHERE share = ? AND account = ?", [share, account]).flatMap(AccessRequest.Status.init(rawValue:))
    }

    static func setAccessRequest(_ db: any SQLTransaction, share: Int64, account: String, status: AccessRequest.Status?, now: Date) throws {
        if let status {
            try db.execute("""
                INSERT INTO access_requests(share, account, status, requested_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(share, account) DO UPDATE SET status = excluded.status
                """, [share, account, status.rawValue, now.timeIntervalSince1970])
        } else {
            try db.execute("DELETE FROM access_requests WHERE share = ? AND account = ?", [share, account])
        }
    }
}
