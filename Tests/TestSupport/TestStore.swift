import Cloud
import CloudPostgres
import Foundation

/// The store the cloud's tests run on: the SQLite file in the cloud's directory, or, with
/// `CLOUDNOTES_TEST_STORE=postgresql`, PostgreSQL: one private cluster for the whole test process and a new
/// database for each cloud a test makes. One suite, run once per store (`.ci/run` runs both).
public enum TestStore {
    /// Whether this run is the PostgreSQL one.
    public static let isPostgres = ProcessInfo.processInfo.environment["CLOUDNOTES_TEST_STORE"] == "postgresql"

    /// The store's name, for messages.
    public static var name: String { isPostgres ? "PostgreSQL" : "SQLite" }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cluster: PostgresCluster?
    nonisolated(unsafe) private static var databases = 0

    /// A new empty database's URL for one cloud (nil on the SQLite run: the cloud's directory holds its file).
    public static func freshDatabase() throws -> String? {
        guard isPostgres else { return nil }
        return try lock.withLock {
            if cluster == nil {
                cluster = try PostgresCluster()
                atexit { TestStore.stopCluster() }
            }
            databases += 1
            let name = "cloud\(databases)"
            try cluster!.psql("CREATE DATABASE \(name)")
            return "postgresql://postgres@127.0.0.1:\(cluster!.port)/\(name)"
        }
    }

    /// The storage at `url` (nil: the SQLite file). A new connection each time, as another process would make.
    public static func storage(_ url: String?) throws -> (any CloudStorage)? {
        guard let url else { return nil }
        return try PostgresStorage(url: url)
    }

    /// A cloud in `directory` on this run's store: a new database on the PostgreSQL run.
    public static func cloud(directory: URL, clock: any CloudClock = SystemClock(), random: any RandomSource = SystemRandom(),
                             limits: CloudLimits = CloudLimits(), faults: FaultPlan? = .off) throws -> (cloud: LocalCloud, url: String?) {
        let url = try freshDatabase()
        let cloud = try LocalCloud(directory: directory, storage: storage(url), clock: clock, random: random, limits: limits,
                                   faults: faults, environment: [:])
        return (cloud, url)
    }

    /// Everything the database at `url` holds, as `pg_dump` writes it (data only).
    public static func dump(_ url: String) throws -> Data {
        guard let cluster = runningCluster else { throw PostgresClusterError("no PostgreSQL cluster runs") }
        return Data(try cluster.dump(database: String(url.split(separator: "/").last!)).utf8)
    }

    /// The running cluster (PostgreSQL run only): for tests that restart it.
    public static var runningCluster: PostgresCluster? { lock.withLock { cluster } }

    private static func stopCluster() {
        lock.withLock { cluster?.stop() }
    }
}
