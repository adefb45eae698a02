import GRDB

extension DatabaseQueue {
    /// Runs `body` in one deferred transaction (a consistent snapshot) that only reads.
    ///
    /// Not `read`: GRDB's `read` turns `PRAGMA query_only` on and off around
    /// the transaction, and changing that flag expires every prepared
    /// statement of the connection, so each statement a sync had cached was
    /// compiled again after every read. Nothing here refuses a write, as
    /// `read` would: callers only read.
    public func readSnapshot<T>(_ body: (Database) throws -> T) throws -> T {
        try unsafeRead { db in
            var result: T?
            try db.inTransaction(.deferred) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }
}
