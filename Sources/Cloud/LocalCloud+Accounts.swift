import Foundation

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
        return try storage.write { db in
            if try Self.fetchAccount(db, column: "name", value: name) != nil {
                throw CloudError.invalidArguments("an account named \(name) already exists")
            }
            if try Self.fetchAccount(db, column: "email", value: email) != nil {
                throw CloudError.invalidArguments("an account with the email \(email) already exists")
            }
            try db.execute(
                "INSERT INTO accounts(id, name, email, created_at) VALUES (?, ?, ?, ?)",
                [account.id, account.name, account.email, account.createdAt.timeIntervalSince1970])
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
        guard let account = try storage.read({ db in try Self.fetchAccount(db, column: "name", value: name) }) else {
            throw .unknownAccount(name)
        }
        return account
    }

    /// Looks an account up by email, as participant lookup does; nil if none has it.
    public func account(email: String) throws(CloudError) -> Account? {
        try storage.read { db in try Self.fetchAccount(db, column: "email", value: email) }
    }

    public func account(id: String) throws(CloudError) -> Account? {
        try storage.lookUp { db in try Self.fetchAccount(db, column: "id", value: id) }
    }

    /// The accounts `caller` meets: itself, the people of every share it owns or takes part in (the owner of a
    /// zone shared with it among them), and those asking to join its shares. What a server tells a device: every
    /// account's name and email is not every device's business.
    public func accounts(knownTo caller: Account) throws(CloudError) -> [Account] {
        try storage.read { db in
            try db.all("""
                SELECT \(Self.accountColumns) FROM accounts WHERE id = ?1
                   OR id IN (SELECT other.account FROM participants mine JOIN participants other ON other.share = mine.share
                             WHERE mine.account = ?1 AND other.account IS NOT NULL)
                   OR id IN (SELECT d.owner FROM participants mine JOIN shares s ON s.id = mine.share
                             JOIN zones z ON z.id = s.zone JOIN databases d ON d.id = z.database WHERE mine.account = ?1)
                   OR id IN (SELECT r.account FROM access_requests r JOIN shares s ON s.id = r.share JOIN zones z ON z.id = s.zone
                             JOIN databases d ON d.id = z.database WHERE d.owner = ?1)
                ORDER BY lower(name)
                """, [caller.id]) { Self.account(from: $0) }
        }
    }

    public func accounts() throws(CloudError) -> [Account] {
        try storage.read { db in
            try db.all("SELECT \(Self.accountColumns) FROM accounts ORDER BY lower(name)") { Self.account(from: $0) }
        }
    }

    /// The account whose `column` is `value`; names and emails ignore case (ASCII's, in both stores).
    static func fetchAccount(_ db: any SQLTransaction, column: String, value: String) throws -> Account? {
        let match = column == "id" ? "id = ?" : "lower(\(column)) = lower(\(db.dialect.name("?")))"
        return try db.first("SELECT \(accountColumns) FROM accounts WHERE \(match)", [value]) { account(from: $0) }
    }

    /// The columns `account(from:at:)` reads, by position (so a row asked ahead, `SQLTransaction.ask`, reads too).
    static let accountColumns = accountColumnNames.joined(separator: ", ")
    static let accountColumnNames = ["id", "name", "email", "created_at"]

    /// `accountColumns` of the table that `alias` names in a join.
    static func accountColumns(of alias: String) -> String {
        accountColumnNames.map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// An account from `accountColumns`, read by position from column `first` on.
    static func account(from row: any SQLRow, at first: Int = 0) -> Account {
        Account(id: row.text(first), name: row.text(first + 1), email: row.text(first + 2),
                createdAt: row.double(first + 3).map(Date.init(timeIntervalSince1970:)) ?? .distantPast)
    }
}
