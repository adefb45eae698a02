import Cloud
import Foundation
import Logging
import PostgresNIO

/// The cloud's state in a PostgreSQL database, which several `cloudnotes cloud serve` processes share.
///
/// - Writers are serialized through the `sequence` row: a write's rules run after `SELECT … FOR UPDATE` on it, so
///   commits happen in sequence order across every server, as `BEGIN IMMEDIATE` makes them in the SQLite file,
///   and the change-tag compare-and-swap and the `seq > token` feeds stay right with nothing more.
/// - Reads run at `REPEATABLE READ`: one snapshot for the whole read.
/// - Pushes go by `NOTIFY` on one channel, which every server `LISTEN`s to (`PostgresPushListener`).
/// - A database that cannot be reached is `serviceUnavailable` (clients retry later); nothing is acknowledged
///   before its commit.
public final class PostgresStorage: CloudStorage, @unchecked Sendable {
    public let postgres: PostgresLocation
    /// Reads' connections, and writers' apart: a writer waits for the sequence row's lock holding its
    /// connection, and reads must never wait behind the writers' queue.
    private let pool: PostgresPool
    private let writers: PostgresPool
    private let statements = StatementCache()
    private let logger: Logger
    private let listener: PostgresPushListener

    public var dialect: SQLDialect { .postgres }
    public var location: String { postgres.description }

    /// Connects, and brings the database's schema up to date (`PostgresSchema`).
    /// - Parameters:
    ///   - connections: for reads (and pushes); writers have `writeConnections` more. Writers beyond those wait
    ///     in this process, not on the database's lock.
    public init(_ location: PostgresLocation, connections: Int = 8, writeConnections: Int = 2,
                logger: Logger = Logger(label: "cloudnotes.postgres")) throws(CloudError) {
        postgres = location
        self.logger = logger
        pool = PostgresPool(location: location, size: connections, logger: logger)
        writers = PostgresPool(location: location, size: writeConnections, logger: logger)
        listener = PostgresPushListener(pool: pool, logger: logger)
        do {
            try pool.with { connection in try PostgresSchema.migrate(connection, logger: logger) }
        } catch let refusal as CloudError {
            // The schema's own refusals (another program's database, a version it did not make), said once.
            if case .storage(let why) = refusal { throw .storage("cannot use the cloud's database \(location): \(why)") }
            if case .invalidArguments(let why) = refusal { throw .invalidArguments("\(location): \(why)") }
            throw refusal
        } catch {
            let failure = PostgresFailure(error)
            // Not there now (refused, starting up): a server waits for it, a console command says so.
            if case .serviceUnavailable = failure.cloudError { throw failure.cloudError }
            throw .storage("cannot use the cloud's database \(location): \(failure.reason)")
        }
    }

    public convenience init(url: String) throws(CloudError) {
        try self.init(try PostgresLocation(parsing: url))
    }

    /// Whether the database holds a cloud (its tables), asked without making one: a command that only uses a cloud
    /// must not start a new, empty one in a database named by mistake.
    public static func holdsCloud(_ location: PostgresLocation, logger: Logger = Logger(label: "cloudnotes.postgres")) throws(CloudError) -> Bool {
        let pool = PostgresPool(location: location, size: 1, logger: logger)
        defer { pool.close() }
        do {
            return try pool.with { connection in
                try connection.queryAnswered(PostgresQuery(unsafeSQL: "SELECT to_regclass('identity') IS NOT NULL"), logger: logger).wait()
                    .rows.first.map { try $0.decode(Bool.self) } ?? false
            }
        } catch {
            throw PostgresFailure(error).cloudError
        }
    }

    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try write(unlocked: { _ in }, body)
    }

    /// The writers' lock is the sequence row's, taken by a query that also reads what a write's rules read
    /// first (the cloud's identity and sequence, `LocalCloud.identityQuery`'s columns): one round trip for both.
    public func write<T>(unlocked: (any SQLTransaction) throws -> Void,
                         _ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try transaction(["BEGIN"], writes: true, in: writers) { db in
            try unlocked(db)
            try db.lockWriters(with: Self.lockingIdentityQuery)
            return try body(db)
        }
    }

    /// The sequence row's lock, then `LocalCloud.identityQuery`'s columns read after it (schema step 5). Not one
    /// `SELECT … FOR UPDATE` of both: its snapshot is taken before the wait, and would show an identity the
    /// writer before changed as it was.
    static let lockingIdentityQuery = "SELECT cloud_id, current_sequence FROM cloudnotes_lock_writers()"

    public func read<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try transaction(["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], writes: false, in: pool, body)
    }

    /// Each statement in its own transaction (PostgreSQL's autocommit): nothing to open or end.
    public func lookUp<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        try transaction(nil, writes: false, in: pool, body)
    }

    /// - Parameter opening: what begins the transaction, sent with its first statement; nil for none at all.
    private func transaction<T>(_ opening: [String]?, writes: Bool, in pool: PostgresPool,
                                _ body: (PostgresTransaction) throws -> T) throws(CloudError) -> T {
        do {
            return try pool.lending { connection in
                let transaction = PostgresTransaction(connection, opening: opening, statements: statements, logger: logger)
                do {
                    let result = try body(transaction)
                    if writes { try transaction.commit() } else { transaction.end() }
                    return result
                } catch {
                    transaction.rollBack()
                    throw error
                }
            }
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(storageFailure: PostgresFailure(error))
        }
    }

    public func post(_ topics: Set<PushTopic>, sequence: Int64) {
        listener.post(topics, sequence: sequence)
    }

    public func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        listener.subscribe(to: topics, handler: handler)
    }

    /// `amcheck`'s check of every B-tree index of the cloud's tables (when the extension is installed), and that
    /// no change carries a number past the sequence (the next write would hand it out again).
    public func integrityCheck() throws(CloudError) -> String {
        try read { db in
            var problems: [String] = []
            if try db.exists("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'amcheck')") {
                try db.execute("""
                    SELECT bt_index_check(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                    JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am am ON am.oid = c.relam
                    WHERE n.nspname = current_schema() AND am.amname = 'btree'
                    """)
            } else {
                problems.append("amcheck is not installed (CREATE EXTENSION amcheck): indexes not checked")
            }
            let beyond = try db.int64("""
                SELECT count(*) FROM (SELECT seq FROM records UNION ALL SELECT seq FROM zones UNION ALL SELECT seq FROM participants) c
                WHERE seq > (SELECT value FROM sequence WHERE id = 1)
                """) ?? 0
            if beyond > 0 { problems.append("\(beyond) changes numbered past the sequence") }
            return problems.isEmpty ? "ok" : problems.joined(separator: "; ")
        }
    }
}
