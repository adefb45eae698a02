import Crypto
import Foundation

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
        try storage.write { db in
            try db.execute("DELETE FROM operator_codes WHERE expires_at < ?", [clock.now().timeIntervalSince1970])
            try db.execute("INSERT INTO operator_codes(code_hash, expires_at) VALUES (?, ?)",
                           [Self.hash(Self.normalized(code)), clock.now().addingTimeInterval(Self.enrolmentLifetime).timeIntervalSince1970])
        }
        return code
    }

    /// Registers an operator's public key (P-256, DER), using its code up; refused alike when the code is wrong,
    /// used or expired.
    public func enrolOperator(code: String, publicKey: Data, name: String) throws(CloudError) -> OperatorKey {
        try redeem(code, in: "operator_codes", publicKey: publicKey, name: name) { db, _, key, name, now in
            let registered = OperatorKey(keyID: Self.keyID(of: key), publicKey: key.derRepresentation, name: name, createdAt: now, revokedAt: nil)
            try db.execute("INSERT INTO operator_keys(key_id, public_key, name, created_at) VALUES (?, ?, ?, ?)",
                           [registered.keyID, registered.publicKey, registered.name, now.timeIntervalSince1970])
            return registered
        }
    }

    /// The operator's key with `keyID`, revoked or not; nil if none.
    public func operatorKey(keyID: String) throws(CloudError) -> OperatorKey? {
        try storage.lookUp { db in
            try db.first("SELECT * FROM operator_keys WHERE key_id = ?", [keyID]) { Self.operatorKey(from: $0) }
        }
    }

    public func operatorKeys() throws(CloudError) -> [OperatorKey] {
        try storage.read { db in try db.all("SELECT * FROM operator_keys ORDER BY created_at") { Self.operatorKey(from: $0) } }
    }

    /// Cuts an operator's key off: its next request is refused.
    public func revokeOperatorKey(keyID: String) throws(CloudError) {
        try revokeKey(keyID, in: "operator_keys", missing: "no operator key \(keyID) is enrolled and not revoked")
    }

    /// Notes an operator's request (its signature's ID) as seen until `until`; false when it was seen already:
    /// a replay, refused whichever server of this directory it is sent to.
    public func noteOperatorRequest(_ signature: String, until: Date) throws(CloudError) -> Bool {
        try storage.write { db in
            try db.execute("DELETE FROM operator_requests WHERE until < ?", [clock.now().timeIntervalSince1970])
            return try db.execute("INSERT INTO operator_requests(signature, until) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                  [signature, until.timeIntervalSince1970]) == 1
        }
    }

    private static func operatorKey(from row: any SQLRow) -> OperatorKey {
        OperatorKey(keyID: row.text("key_id"), publicKey: row.data("public_key") ?? Data(), name: row.text("name"),
                    createdAt: row.date("created_at") ?? .distantPast, revokedAt: row.date("revoked_at"))
    }
}
