import Crypto
import Foundation
import GRDB

/// A device allowed to call the cloud over the network: the public half of
/// the key it signs every request with (the private half never leaves it).
public struct DeviceKey: Equatable, Sendable {
    /// The SHA-256 of the public key (DER), in hex: the `X-Apple-CloudKit-Request-KeyID` it signs with.
    public var keyID: String
    public var account: String
    public var publicKey: Data
    public var name: String
    public var createdAt: Date
    public var revokedAt: Date?
}

/// A web token pair (CloudKit's `ckAPIToken` and `ckWebAuthToken`) for a client that cannot sign.
public struct WebToken: Equatable, Sendable {
    public var apiToken: String
    /// Shown once: the cloud keeps only its hash.
    public var webAuthToken: String
    public var expiresAt: Date
}

/// Who may call the cloud from another machine. Operator commands make enrolment codes and web tokens where
/// the cloud directory lives; a device trades a code for the registration of its public key.
extension LocalCloud {
    /// How long an enrolment code works.
    public static let enrolmentLifetime: TimeInterval = 24 * 3600

    /// A one-time code another machine signs in with as `account`, valid for a day.
    public func makeEnrolmentCode(for account: Account) throws(CloudError) -> String {
        let code = Self.groups(random.hex(bytes: 10).uppercased())
        try file.write { db in
            try db.execute(sql: "DELETE FROM enrolments WHERE expires_at < ?", arguments: [clock.now().timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO enrolments(code_hash, account, expires_at) VALUES (?, ?, ?)",
                           arguments: [Self.hash(Self.normalized(code)), account.id,
                                       clock.now().addingTimeInterval(Self.enrolmentLifetime).timeIntervalSince1970])
        }
        return code
    }

    /// A new account, and the code its first device signs in with (`cloud create-account`, here or through a server).
    public func createAccountWithCode(name: String, email: String?) throws(CloudError) -> (account: Account, code: String) {
        let account = try createAccount(name: name, email: email)
        return (account, try makeEnrolmentCode(for: account))
    }

    /// A code another device of the account named signs in with (`cloud enrol`).
    public func makeEnrolmentCode(forAccountNamed name: String) throws(CloudError) -> (account: Account, code: String) {
        let account = try account(named: name)
        return (account, try makeEnrolmentCode(for: account))
    }

    /// Registers a device's public key (P-256, DER) for the account a code was made for, using the code up.
    /// A wrong, used or expired code is refused alike.
    public func enrol(code: String, publicKey: Data, deviceName: String) throws(CloudError) -> (account: Account, key: DeviceKey) {
        try redeem(code, in: "enrolments", publicKey: publicKey, name: deviceName) { db, code, key, name, now in
            guard let account = try Self.fetchAccount(db, column: "id", value: code["account"]) else { return nil }
            let device = DeviceKey(keyID: Self.keyID(of: key), account: account.id, publicKey: key.derRepresentation, name: name,
                                   createdAt: now, revokedAt: nil)
            try db.execute(sql: "INSERT INTO devices(key_id, account, public_key, name, created_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [device.keyID, device.account, device.publicKey, device.name, now.timeIntervalSince1970])
            return (account, device)
        }
    }

    /// Trades a one-time code of `table` for the registration of a public key (P-256, DER) under `name`:
    /// `register` stores it, in the transaction that uses the code up (nil: the code is refused after all).
    func redeem<T>(_ code: String, in table: String, publicKey: Data, name: String,
                   register: (Database, _ code: Row, P256.Signing.PublicKey, _ name: String, Date) throws -> T?) throws(CloudError) -> T {
        guard let key = try? P256.Signing.PublicKey(derRepresentation: publicKey) else {
            throw .invalidArguments("the public key is not a P-256 key in DER")
        }
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100, !name.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 32 } == true }) else {
            throw .invalidArguments("a device name is 1 to 100 characters on one line")
        }
        let now = clock.now()
        let hash = Self.hash(Self.normalized(code))
        let refused = CloudError.permissionFailure("that enrolment code is not valid (wrong, used, or more than a day old)")
        // Looked up in a read first: guesses do not take the cloud's write lock from everyone's saves.
        guard try file.read({ db in try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE code_hash = ?", arguments: [hash]) }) == true else {
            throw refused
        }
        return try file.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE code_hash = ?", arguments: [hash]),
                  (row["expires_at"] as Double) >= now.timeIntervalSince1970 else { throw refused }
            // A key enrols once: another code cannot take over (or revive) a key, nor make a device's an operator's.
            let keyID = Self.keyID(of: key)
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE key_id = ? UNION SELECT 1 FROM operator_keys WHERE key_id = ?",
                                    arguments: [keyID, keyID]) != true else {
                throw CloudError.invalidArguments("this key is already enrolled; a device makes a new key to enrol again")
            }
            try db.execute(sql: "DELETE FROM \(table) WHERE code_hash = ?", arguments: [hash])
            guard let registered = try register(db, row, key, name, now) else { throw refused }
            return registered
        }
    }

    /// The device that signs with `keyID`, revoked or not; nil if none.
    public func device(keyID: String) throws(CloudError) -> DeviceKey? {
        try file.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM devices WHERE key_id = ?"), arguments: [keyID]).map(Self.device(from:))
        }
    }

    public func devices(of account: Account) throws(CloudError) -> [DeviceKey] {
        try file.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM devices WHERE account = ? ORDER BY created_at", arguments: [account.id]).map(Self.device(from:))
        }
    }

    /// Cuts a device off: its next request is refused.
    public func revokeDevice(keyID: String) throws(CloudError) {
        try revokeKey(keyID, in: "devices", missing: "no device with key \(keyID) is enrolled and not revoked")
    }

    /// Marks a live key of `table` (devices', operators') revoked now; `missing` says why not when there is none.
    func revokeKey(_ keyID: String, in table: String, missing: String) throws(CloudError) {
        try file.write { db in
            try db.execute(sql: "UPDATE \(table) SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                           arguments: [clock.now().timeIntervalSince1970, keyID])
            guard db.changesCount == 1 else { throw CloudError.invalidArguments(missing) }
        }
    }

    /// A web token pair for `account`, valid for `lifetime`.
    public func makeWebToken(for account: Account, lifetime: TimeInterval) throws(CloudError) -> WebToken {
        guard lifetime > 0 else { throw .invalidArguments("a web token lives for more than no time") }
        let token = WebToken(apiToken: random.hex(bytes: 16), webAuthToken: random.hex(bytes: 32),
                             expiresAt: clock.now().addingTimeInterval(lifetime))
        try file.write { db in
            try db.execute(sql: "INSERT INTO web_tokens(api_token, auth_hash, account, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [token.apiToken, Self.hash(token.webAuthToken), account.id, clock.now().timeIntervalSince1970,
                                       token.expiresAt.timeIntervalSince1970])
        }
        return token
    }

    /// The account a web token pair stands for, if it is one the cloud issued, unexpired and not revoked.
    public func account(apiToken: String, webAuthToken: String) throws(CloudError) -> Account? {
        let now = clock.now().timeIntervalSince1970
        return try file.read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM web_tokens WHERE api_token = ?"), arguments: [apiToken]),
                  (row["auth_hash"] as Data) == Self.hash(webAuthToken), (row["expires_at"] as Double) > now,
                  (row["revoked_at"] as Double?) == nil else { return nil }
            return try Self.fetchAccount(db, column: "id", value: row["account"])
        }
    }

    /// Whether a web token pair with this API token works now (issued, unexpired, not revoked).
    public func webTokenIsLive(apiToken: String) throws(CloudError) -> Bool {
        let now = clock.now().timeIntervalSince1970
        return try file.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM web_tokens WHERE api_token = ? AND expires_at > ? AND revoked_at IS NULL",
                              arguments: [apiToken, now]) == true
        }
    }

    public func revokeWebToken(apiToken: String) throws(CloudError) {
        try file.write { db in
            try db.execute(sql: "UPDATE web_tokens SET revoked_at = ? WHERE api_token = ? AND revoked_at IS NULL",
                           arguments: [clock.now().timeIntervalSince1970, apiToken])
            guard db.changesCount == 1 else { throw CloudError.invalidArguments("no live web token \(apiToken)") }
        }
    }

    /// A key's ID, as devices and the server compute it.
    public static func keyID(of key: P256.Signing.PublicKey) -> String {
        SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined()
    }

    private static func device(from row: Row) -> DeviceKey {
        DeviceKey(keyID: row["key_id"], account: row["account"], publicKey: row["public_key"], name: row["name"],
                  createdAt: Date(timeIntervalSince1970: row["created_at"]),
                  revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    static func hash(_ text: String) -> Data { Data(SHA256.hash(data: Data(text.utf8))) }

    /// A code as typed: case, spaces and dashes do not matter.
    static func normalized(_ code: String) -> String { code.uppercased().filter { $0.isLetter || $0.isNumber } }

    static func groups(_ text: String) -> String {
        stride(from: 0, to: text.count, by: 5).map { String(text.dropFirst($0).prefix(5)) }.joined(separator: "-")
    }
}
