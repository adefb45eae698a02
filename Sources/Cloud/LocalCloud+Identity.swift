import Foundation

/// Which cloud this is, and how far its history goes: devices remember the
/// ID and refuse to sync with a cloud that changed it (emptied, replaced, or
/// restored from an older copy), so they never take its loss as deletions.
public struct CloudIdentity: Equatable, Codable, Sendable, CustomStringConvertible {
    public var id: String
    /// The last change sequence number the cloud handed out.
    public var sequence: Int64

    public var description: String { "cloud \(id) at change \(sequence)" }

    public init(id: String, sequence: Int64) {
        self.id = id
        self.sequence = sequence
    }
}

extension LocalCloud {
    /// The cloud's identity, after checking that its file did not go back in history.
    public func identity() throws(CloudError) -> CloudIdentity {
        if let fault = faults.current.draw(random) { throw fault }
        let mark = highWater.read()
        let current = try storage.lookUp { db in try Self.readIdentity(db) }  // one statement
        if let id = current.id, !id.isEmpty, current.sequence >= mark?.bound(for: id) ?? 0 { return CloudIdentity(id: id, sequence: current.sequence) }
        return try storage.write { db in try Self.recoverIfRestored(db, highWater: mark, random: random, clock: clock) }
    }

    /// The cloud's identity for the answer to `request`: as its last transaction saw it, unless the store went
    /// back since the high-water mark (or nothing was seen), when `identity()` finds it, and gives the cloud a
    /// new one if it must.
    public func identity(answering request: ServedRequest) throws(CloudError) -> CloudIdentity {
        if let seen = request.identitySeen, !seen.id.isEmpty, seen.sequence >= highWater.read()?.bound(for: seen.id) ?? 0 { return seen }
        return try identity()
    }

    /// Gives a cloud file without an identity one, and a file whose history
    /// went back (its sequence below its high-water mark: emptied, or an older
    /// copy put in its place; another cloud's mark says nothing of it) a new one, moving its sequence up to the mark so
    /// no change number is ever handed out twice. Runs inside a write.
    /// Returns the identity and sequence the cloud has afterwards.
    @discardableResult
    static func recoverIfRestored(_ db: any SQLTransaction, highWater mark: HighWaterMark.Marks?, random: any RandomSource,
                                  clock: any CloudClock) throws -> CloudIdentity {
        let (known, sequence) = try readIdentity(db)
        let highWater = mark?.bound(for: known)
        let wentBack = highWater.map { sequence < $0 } ?? false
        if let known, !wentBack { return CloudIdentity(id: known, sequence: sequence) }
        let id = try giveNewIdentity(db, random: random, clock: clock)
        // Past every number any cloud of this place handed out (an older copy put back may carry the identity of a cloud
        // whose mark is lower than the one that served here last): a change tag is never handed out twice, so no
        // device's tag of before can pass for a version it never saw.
        if let ceiling = [mark?.bound(for: nil), highWater].compactMap({ $0 }).max(), sequence < ceiling {
            try db.execute("UPDATE sequence SET value = ? WHERE id = 1", [ceiling])
            return CloudIdentity(id: id, sequence: ceiling)
        }
        return CloudIdentity(id: id, sequence: sequence)
    }

    /// Gives the cloud a new ID, which devices take for another cloud's (they rebuild it from what they hold).
    static func giveNewIdentity(_ db: any SQLTransaction, random: any RandomSource, clock: any CloudClock) throws -> String {
        let id = "c" + random.hex(bytes: 12)
        try db.execute("""
            INSERT INTO identity(id, cloud, created_at) VALUES (1, ?, ?)
            ON CONFLICT(id) DO UPDATE SET cloud = excluded.cloud, created_at = excluded.created_at
            """,
                       [id, clock.now().timeIntervalSince1970])
        return id
    }

    /// The cloud's ID and its sequence, in one statement.
    static let identityQuery = "SELECT (SELECT cloud FROM identity WHERE id = 1), (SELECT value FROM sequence WHERE id = 1)"

    /// The cloud's ID (nil before it has one) and its sequence: at the start of a write, as the writers' lock
    /// read them when the store's lock reads them (one round trip fewer under it).
    static func readIdentity(_ db: any SQLTransaction) throws -> (id: String?, sequence: Int64) {
        if let read = db.identityUnderLock { return try read.rows().first.map(identity(from:)) ?? (nil, 0) }
        return try db.first(identityQuery, [SQLValue](), identity(from:)) ?? (nil, 0)
    }

    /// A row of `identityQuery`.
    static func identity(from row: any SQLRow) -> (id: String?, sequence: Int64) {
        (row.optionalText(0), row.optionalInt64(1) ?? 0)
    }

    /// Registers an account again under the user record ID it had, in a cloud
    /// that lost it (emptied, or restored from a copy older than the account),
    /// so its devices can rebuild it (`sync --reupload`). Refused when another
    /// account holds the name or email. On a shared server this belongs to
    /// the account's own authenticated devices only.
    public func restoreAccount(_ account: Account) throws(CloudError) -> Account {
        try Account.validate(name: account.name)
        try Account.validate(email: account.email)
        // A write like any other: answered once, by one server of the cloud.
        return try writeRecordingSignature { db in
            if let existing = try Self.fetchAccount(db, column: "id", value: account.id) { return existing }
            for (column, value) in [("name", account.name), ("email", account.email)] where try Self.fetchAccount(db, column: column, value: value) != nil {
                throw CloudError.invalidArguments("another account now has the \(column) \(value)")
            }
            try db.execute("INSERT INTO accounts(id, name, email, created_at) VALUES (?, ?, ?, ?)",
                           [account.id, account.name, account.email, account.createdAt.timeIntervalSince1970])
            return account
        }
    }
}
