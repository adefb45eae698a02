import Crypto
import Foundation
import GRDB

/// An operator's key: the console's commands (create an account, make an enrolment code, dump, faults, purge)
/// signed with it are served from another machine, as they run where the cloud directory lives. It belongs to
/// no account and reads and writes no database.
public struct OperatorKey: Equatable, Sendable {
    public var keyID: String
    public var publicKey: Data
    public var name: String
    public var createdAt: Date
    public var revokedAt: Date?
}

extension LocalCloud {
    /// A one-time code an operator's machine enrols its key with (`cloudnotes cloud operator-sign-in`), valid for a day.
    public func makeOperatorCode() throws(CloudError) -> String {
        let code = Self.groups(random.hex(bytes: 10).uppercased())
        try file.write { db in
            try db.execute(sql: "DELETE FROM operator_codes WHERE expires_at < ?", arguments: [clock.now().timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO operator_codes(code_hash, expires_at) VALUES (?, ?)",
                           arguments: [Self.hash(Self.normalized(code)), clock.now().addingTimeInterval(Self.enrolmentLifetime).timeIntervalSince1970])
        }
        return code
    }

    /// Registers an operator's public key (P-256, DER), using its code up; refused alike when the code is wrong,
    /// used or expired.
    public func enrolOperator(code: String, publicKey: Data, name: String) throws(CloudError) -> OperatorKey {
        try redeem(code, in: "operator_codes", publicKey: publicKey, name: name) { db, _, key, name, now in
            let registered = OperatorKey(keyID: Self.keyID(of: key), publicKey: key.derRepresentation, name: name, createdAt: now, revokedAt: nil)
            try db.execute(sql: "INSERT INTO operator_keys(key_id, public_key, name, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [registered.keyID, registered.publicKey, registered.name, now.timeIntervalSince1970])
            return registered
        }
    }

    /// The operator's key with `keyID`, revoked or not; nil if none.
    public func operatorKey(keyID: String) throws(CloudError) -> OperatorKey? {
        try file.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM operator_keys WHERE key_id = ?"), arguments: [keyID]).map(Self.operatorKey(from:))
        }
    }

    public func operatorKeys() throws(CloudError) -> [OperatorKey] {
        try file.read { db in try Row.fetchAll(db, sql: "SELECT * FROM operator_keys ORDER BY created_at").map(Self.operatorKey(from:)) }
    }

    /// Cuts an operator's key off: its next request is refused.
    public func revokeOperatorKey(keyID: String) throws(CloudError) {
        try revokeKey(keyID, in: "operator_keys", missing: "no operator key \(keyID) is enrolled and not revoked")
    }

    /// Notes an operator's request (its signature's ID) as seen until `until`; false when it was seen already:
    /// a replay, refused whichever server of this directory it is sent to.
    public func noteOperatorRequest(_ signature: String, until: Date) throws(CloudError) -> Bool {
        try file.write { db in
            try db.execute(sql: "DELETE FROM operator_requests WHERE until < ?", arguments: [clock.now().timeIntervalSince1970])
            try db.execute(sql: "INSERT OR IGNORE INTO operator_requests(signature, until) VALUES (?, ?)",
                           arguments: [signature, until.timeIntervalSince1970])
            return db.changesCount == 1
        }
    }

    private static func operatorKey(from row: Row) -> OperatorKey {
        OperatorKey(keyID: row["key_id"], publicKey: row["public_key"], name: row["name"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
