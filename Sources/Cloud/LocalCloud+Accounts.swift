import Foundation
import GRDB

extension LocalCloud {
    /// Registers an account with a new random user record ID.
    ///
    /// The email defaults to `NAME@example.com`; names and emails are unique,
    /// ignoring case.
    @discardableResult
    public func createAccount(name: String, email: String? = nil) throws(CloudError) -> Account {
        try Account.validate(name: name)
        let email = email ?? "\(name.lowercased())@example.com"
        try Account.validate(email: email)
        let account = Account(id: "_" + random.hex(bytes: 16), name: name, email: email, createdAt: clock.now())
        return try file.write { db in
            if try Self.fetchAccount(db, column: "name", value: name) != nil {
                throw CloudError.invalidArguments("an account named \(name) already exists")
            }
            if try Self.fetchAccount(db, column: "email", value: email) != nil {
                throw CloudError.invalidArguments("an account with the email \(email) already exists")
            }
            try db.execute(
                sql: "INSERT INTO accounts(id, name, email, created_at) VALUES (?, ?, ?, ?)",
                arguments: [account.id, account.name, account.email, account.createdAt.timeIntervalSince1970])
            return account
        }
    }

    /// The account with this name, creating it on first use.
    public func accountCreatingIfNeeded(name: String) throws(CloudError) -> Account {
        do {
            return try account(named: name)
        } catch .unknownAccount {
            do {
                return try createAccount(name: name)
            } catch .invalidArguments {
                return try account(named: name)  // another process created it first
            }
        }
    }

    public func account(named name: String) throws(CloudError) -> Account {
        guard let account = try file.read({ db in try Self.fetchAccount(db, column: "name", value: name) }) else {
            throw .unknownAccount(name)
        }
        return account
    }

    /// Looks an account up by email, as participant lookup does; nil if none has it.
    public func account(email: String) throws(CloudError) -> Account? {
        try file.read { db in try Self.fetchAccount(db, column: "email", value: email) }
    }

    public func account(id: String) throws(CloudError) -> Account? {
        try file.read { db in try Self.fetchAccount(db, column: "id", value: id) }
    }

    /// The accounts `caller` meets: itself, the people of every share it owns or takes part in (the owner of a
    /// zone shared with it among them), and those asking to join its shares. What a server tells a device: every
    /// account's name and email is not every device's business.
    public func accounts(knownTo caller: Account) throws(CloudError) -> [Account] {
        try file.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM accounts WHERE id = :me
                   OR id IN (SELECT other.account FROM participants mine JOIN participants other ON other.share = mine.share
                             WHERE mine.account = :me AND other.account IS NOT NULL)
                   OR id IN (SELECT d.owner FROM participants mine JOIN shares s ON s.id = mine.share
                             JOIN zones z ON z.id = s.zone JOIN databases d ON d.id = z.database WHERE mine.account = :me)
                   OR id IN (SELECT r.account FROM access_requests r JOIN shares s ON s.id = r.share JOIN zones z ON z.id = s.zone
                             JOIN databases d ON d.id = z.database WHERE d.owner = :me)
                ORDER BY name
                """, arguments: ["me": caller.id]).map(Self.account(from:))
        }
    }

    public func accounts() throws(CloudError) -> [Account] {
        try file.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM accounts ORDER BY name")).map(Self.account(from:))
        }
    }

    static func fetchAccount(_ db: Database, column: String, value: String) throws -> Account? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM accounts WHERE \(column) = ?"), arguments: [value]).map(account(from:))
    }

    private static func account(from row: Row) -> Account {
        Account(id: row["id"], name: row["name"], email: row["email"],
                createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }
}
