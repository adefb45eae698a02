import Cloud
import CloudPostgres
import Foundation

/// The store the cloud's tests run on: the SQLite file in the cloud's directory, or, with
/// `CLOUDNOTES_TEST_STORE=postgresql`, PostgreSQL: one private cluster for the whole test process and a new
/// database for each cloud directory a test makes, which every process of the test reaches (`environment`).
/// One suite, run once per store (`.ci/run` runs both).
public enum TestStore {
    /// Whether this run is the PostgreSQL one.
    public static let isPostgres = ProcessInfo.processInfo.environment["CLOUDNOTES_TEST_STORE"] == "postgresql"

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cluster: PostgresCluster?
    nonisolated(unsafe) private static var databases: [String: String] = [:]

    /// The database of the cloud in `directory`, made on first use (nil on the SQLite run: the directory holds
    /// the cloud's file).
    public static func database(for directory: URL) throws -> String? {
        guard isPostgres else { return nil }
        let key = directory.standardizedFileURL.path
        return try lock.withLock {
            if let known = databases[key] { return known }
            let cluster = try runningClusterLocked()
            let name = "cloud\(databases.count + 1)"
            try cluster.psql("CREATE DATABASE \(name)")
            let url = "postgresql://postgres@127.0.0.1:\(cluster.port)/\(name)"
            databases[key] = url
            return url
        }
    }

    /// What a process serving or opening the cloud in `directory` needs in its environment to reach its store.
    public static func environment(for directory: URL) throws -> [String: String] {
        try database(for: directory).map { ["CLOUDNOTES_STORE": $0] } ?? [:]
    }

    /// The storage at `url` (nil: the SQLite file). A new connection each time, as another process would make.
    public static func storage(_ url: String?) throws -> (any CloudStorage)? {
        guard let url else { return nil }
        return try PostgresStorage(url: url)
    }

    /// The cloud in `directory` on this run's store, as a new connection.
    public static func open(directory: URL, container: String = LocalCloud.defaultContainer, clock: any CloudClock = SystemClock(),
                            random: any RandomSource = SystemRandom(), limits: CloudLimits = CloudLimits(),
                            faults: FaultPlan? = .off) throws -> LocalCloud {
        try LocalCloud(directory: directory, storage: storage(database(for: directory)), container: container, clock: clock,
                       random: random, limits: limits, faults: faults, environment: [:])
    }

    /// Every byte the cloud in `directory` keeps: its SQLite file, or its database as `pg_dump` writes it.
    public static func storedBytes(of directory: URL) throws -> Data {
        guard let url = try database(for: directory) else { return try Data(contentsOf: directory.appendingPathComponent("cloud.sqlite")) }
        return try dump(url)
    }

    /// Everything the database at `url` holds, as `pg_dump` writes it (data only).
    public static func dump(_ url: String) throws -> Data {
        let cluster = try lock.withLock { try runningClusterLocked() }
        return Data(try cluster.dump(database: String(url.split(separator: "/").last!)).utf8)
    }

    /// Puts back the rows `dump` wrote of the database at `url`, in place of every row it holds now, in one
    /// transaction (the tables stay, so the cloud's connections go on).
    public static func putBack(_ rows: Data, into url: String) throws {
        let tables = try psql("SELECT string_agg(quote_ident(tablename), ', ') FROM pg_tables WHERE schemaname = 'public'", in: url)
        // The dump's own psql commands (`\restrict`, which guards a dump against its data) are for a psql reading
        // a file; its SQL is all that is sent here. Triggers off: rows come table by table, not in foreign-key order.
        let statements = String(decoding: rows, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\") }.joined(separator: "\n")
        try psql("BEGIN; TRUNCATE \(tables) CASCADE; SET session_replication_role = replica;\n" + statements + "\nCOMMIT;", in: url)
    }

    /// Runs SQL on the database at `url` through `psql`; what it printed.
    @discardableResult
    public static func psql(_ sql: String, in url: String) throws -> String {
        let cluster = try lock.withLock { try runningClusterLocked() }
        return try cluster.psql(sql, database: String(url.split(separator: "/").last!))
    }

    private static func runningClusterLocked() throws -> PostgresCluster {
        if let cluster { return cluster }
        let started = try PostgresCluster()
        cluster = started
        atexit { TestStore.stopCluster() }
        return started
    }

    /// Stops the cluster and removes its directory (a run's databases take gigabytes: left behind, a few runs
    /// fill the disk).
    private static func stopCluster() {
        lock.withLock { cluster = nil }
    }
}
