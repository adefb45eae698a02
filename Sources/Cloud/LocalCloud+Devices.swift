import Crypto
import Foundation

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
        try storage.write { db in
            try db.execute("DELETE FROM enrolments WHERE expires_at < ?", [clock.now().timeIntervalSince1970])
            try db.execute("INSERT INTO enrolments(code_hash, account, expires_at) VALUES (?, ?, ?)",
                           [Self.hash(Self.normalized(code)), account.id,
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
        try redeem(code, in: "enrolments", publicKey: publicKey, name: deviceName) { db, codeAccount, key, name, now in
            guard let account = try Self.fetchAccount(db, column: "id", value: codeAccount ?? "") else { return nil }
            let device = DeviceKey(keyID: Self.keyID(of: key), account: account.id, publicKey: key.derRepresentation, name: name,
                                   createdAt: now, revokedAt: nil)
            try db.execute("INSERT INTO devices(key_id, account, public_key, name, created_at) VALUES (?, ?, ?, ?, ?)",
                           [device.keyID, device.account, device.publicKey, device.name, now.timeIntervalSince1970])
            return (account, device)
        }
    }

    /// Trades a one-time code of `table` for the registration of a public key (P-256, DER) under `name`:
    /// `register` stores it, in the transaction that uses the code up (nil: the code is refused after all), given
    /// the account the code was made for (`table`'s `account` column, when it has one).
    func redeem<T>(_ code: String, in table: String, publicKey: Data, name: String,
                   register: (any SQLTransaction, _ codeAccount: String?, P256.Signing.PublicKey, _ name: String, Date) throws -> T?)
        throws(CloudError) -> T {
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
        guard try storage.read({ db in try db.exists("SELECT 1 FROM \(table) WHERE code_hash = ?", [hash]) }) == true else {
            throw refused
        }
        return try storage.write { db in
            let account = table == "enrolments" ? "account" : "NULL"
            guard let code = try db.first("SELECT expires_at, \(account) FROM \(table) WHERE code_hash = ?", [hash], {
                      (expires: $0.double(0) ?? 0, account: $0.optionalText(1))
                  }), code.expires >= now.timeIntervalSince1970 else { throw refused }
            // A key enrols once: another code cannot take over (or revive) a key, nor make a device's an operator's.
            let keyID = Self.keyID(of: key)
            guard try db.exists("SELECT 1 FROM devices WHERE key_id = ? UNION SELECT 1 FROM operator_keys WHERE key_id = ?", [keyID, keyID]) != true else {
                throw CloudError.invalidArguments("this key is already enrolled; a device makes a new key to enrol again")
            }
            try db.execute("DELETE FROM \(table) WHERE code_hash = ?", [hash])
            guard let registered = try register(db, code.account, key, name, now) else { throw refused }
            return registered
        }
    }

    /// The device that signs with `keyID`, revoked or not; nil if none.
    public func device(keyID: String) throws(CloudError) -> DeviceKey? {
        try storage.lookUp { db in
            try db.first("SELECT * FROM devices WHERE key_id = ?", [keyID]) { Self.device(from: $0) }
        }
    }

    /// The device that signs with `keyID` and its account (nil when the account is gone), in one statement: a
    /// signed request's caller in one round trip to a store across a network, not two.
    public func signer(keyID: String) throws(CloudError) -> (device: DeviceKey, account: Account?)? {
        try storage.lookUp { db -> (device: DeviceKey, account: Account?)? in
            // The device's columns first, so that its decoder, which reads by name, finds its own `name` and
            // `created_at`; the account's four last, read by position.
            try db.first("SELECT d.*, \(Self.accountColumns(of: "a")) FROM devices d LEFT JOIN accounts a ON a.id = d.account WHERE d.key_id = ?",
                         [keyID]) { row in
                let first = row.columnCount - Self.accountColumnNames.count
                return (Self.device(from: row), row.isNull(first) ? nil : Self.account(from: row, at: first))
            }
        }
    }

    public func devices(of account: Account) throws(CloudError) -> [DeviceKey] {
        try storage.read { db in
            try db.all("SELECT * FROM devices WHERE account = ? ORDER BY created_at", [account.id]) { Self.device(from: $0) }
        }
    }

    /// Cuts a device off: its next request is refused.
    public func revokeDevice(keyID: String) throws(CloudError) {
        try revokeKey(keyID, in: "devices", missing: "no device with key \(keyID) is enrolled and not revoked")
    }

    /// Marks a live key of `table` (devices', operators') revoked now; `missing` says why not when there is none.
    func revokeKey(_ keyID: String, in table: String, missing: String) throws(CloudError) {
        try storage.write { db in
            let revoked = try db.execute("UPDATE \(table) SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                                         [clock.now().timeIntervalSince1970, keyID])
            guard revoked == 1 else { throw CloudError.invalidArguments(missing) }
        }
    }

    /// A web token pair for `account`, valid for `lifetime`.
    public func makeWebToken(for account: Account, lifetime: TimeInterval) throws(CloudError) -> WebToken {
        guard lifetime > 0 else { throw .invalidArguments("a web token lives for more than no time") }
        let token = WebToken(apiToken: random.hex(bytes: 16), webAuthToken: random.hex(bytes: 32),
                             expiresAt: clock.now().addingTimeInterval(lifetime))
        try storage.write { db in
            try db.execute("INSERT INTO web_tokens(api_token, auth_hash, account, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                           [token.apiToken, Self.hash(token.webAuthToken), account.id, clock.now().timeIntervalSince1970,
                                       token.expiresAt.timeIntervalSince1970])
        }
        return token
    }

    /// The account a web token pair stands for, if it is one the cloud issued, unexpired and not revoked.
    public func account(apiToken: String, webAuthToken: String) throws(CloudError) -> Account? {
        let now = clock.now().timeIntervalSince1970
        return try storage.lookUp { db in  // the token, then its account: each sound alone
            let account = try db.first("SELECT * FROM web_tokens WHERE api_token = ?", [apiToken]) { row -> String? in
                guard row.data("auth_hash") == Self.hash(webAuthToken), (row.double("expires_at") ?? 0) > now,
                      row.double("revoked_at") == nil else { return nil }
                return row.text("account")
            }
            guard let account = account ?? nil else { return nil }
            return try Self.fetchAccount(db, column: "id", value: account)
        }
    }

    /// Whether a web token pair with this API token works now (issued, unexpired, not revoked).
    public func webTokenIsLive(apiToken: String) throws(CloudError) -> Bool {
        let now = clock.now().timeIntervalSince1970
        return try storage.lookUp { db in
            try db.exists("SELECT 1 FROM web_tokens WHERE api_token = ? AND expires_at > ? AND revoked_at IS NULL", [apiToken, now]) == true
        }
    }

    public func revokeWebToken(apiToken: String) throws(CloudError) {
        try storage.write { db in
            let revoked = try db.execute("UPDATE web_tokens SET revoked_at = ? WHERE api_token = ? AND revoked_at IS NULL",
                                         [clock.now().timeIntervalSince1970, apiToken])
            guard revoked == 1 else { throw CloudError.invalidArguments("no live web token \(apiToken)") }
        }
    }

    /// A key's ID, as devices and the server compute it.
    public static func keyID(of key: P256.Signing.PublicKey) -> String {
        SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined()
    }

    private static func device(from row: any SQLRow) -> DeviceKey {
        DeviceKey(keyID: row.text("key_id"), account: row.text("account"), publicKey: row.data("public_key") ?? Data(),
                  name: row.text("name"), createdAt: row.date("created_at") ?? .distantPast, revokedAt: row.date("revoked_at"))
    }

    static func hash(_ text: String) -> Data { Data(SHA256.hash(data: Data(text.utf8))) }

    /// A code as typed: case, spaces and dashes do not matter.
    static func normalized(_ code: String) -> String { code.uppercased().filter { $0.isLetter || $0.isNumber } }

    static func groups(_ text: String) -> String {
        stride(from: 0, to: text.count, by: 5).map { String(text.dropFirst($0).prefix(5)) }.joined(separator: "-")
    }
}
