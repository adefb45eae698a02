import Foundation

/// Where the cloud keeps its state: the SQLite file in its directory (`SQLiteStorage`, the default) or a
/// PostgreSQL database that several servers share (`CloudPostgres`). The rules live in `LocalCloud` and are
/// written once; a store gives them transactions and carries pushes between processes.
public protocol CloudStorage: Sendable {
    var dialect: SQLDialect { get }

    /// Where the state is, as an operator names it (a path, or a URL without its password).
    var location: String { get }

    /// Runs `body` in one transaction that commits whole or not at all. Writers are serialized against every
    /// other writer of the store, in any process or server, so commit order is sequence order.
    func write<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T

    /// `write`, whose transaction runs `unlocked` before it takes the writers' lock, then `body` under it. For
    /// statements on rows no rule reads under the lock (a request's signature: a replay's copy of the row waits
    /// for the first's transaction, not for the lock), so a store that takes the lock itself (PostgreSQL's)
    /// holds it over fewer round trips. A store locked from its `BEGIN` (SQLite's) runs both in order.
    func write<T>(unlocked: (any SQLTransaction) throws -> Void,
                  _ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T

    /// Runs `body` in one transaction that only reads, on a consistent snapshot.
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T

    /// Runs a read whose statements need no common snapshot (one statement, or lookups each sound alone): a
    /// store across a network runs each on its own, saving a transaction's opening and end, which are most of
    /// the statements a request's authentication costs.
    func lookUp<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T

    /// Tells every subscriber of the store, in any process, that a commit moved `topics` to `sequence`.
    /// Called after the commit; a push lost here only delays a subscriber (`push_topics` keeps the truth).
    func post(_ topics: Set<PushTopic>, sequence: Int64)

    /// Calls `handler` for each push to one of `topics` (every topic when nil) until the watch is cancelled.
    func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch

    /// The store's own consistency check: "ok" when sound, else what it found.
    func integrityCheck() throws(CloudError) -> String
}

extension CloudStorage {
    public func write<T>(unlocked: (any SQLTransaction) throws -> Void,
                         _ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try write { db in
            try unlocked(db)
            return try body(db)
        }
    }

    public func lookUp<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try read(body)
    }
}

/// An error a store's driver throws that says what the cloud's client should hear (a lock held too long, a
/// database that cannot be reached: try again later).
public protocol StorageFailure: Error {
    var cloudError: CloudError { get }
}

extension CloudError {
    /// What a failure inside a store means to the cloud's client: cloud errors pass through, a driver's error
    /// says (`StorageFailure`), anything else is a storage failure.
    public init(storageFailure error: any Error) {
        if let cloudError = error as? CloudError {
            self = cloudError
        } else if let failure = error as? any StorageFailure {
            self = failure.cloudError
        } else {
            self = .storage("\(error)")
        }
    }
}
