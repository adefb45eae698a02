import CloudClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for a test: `initdb` into a temporary directory, a server on a free loopback
/// port with its Unix socket in that directory too, stopped and removed when the value goes away. As root
/// (`initdb` refuses root) the cluster belongs to the `postgres` account and its programs run through
/// `runuser`.
///
/// Where PostgreSQL is not installed the tests that need it are skipped, and `missing` says why, so a run
/// shows it; under CI (`CI` set) they are not skipped: `.ci/run` installs PostgreSQL, and a machine without
/// it fails.
public final class PostgresCluster: @unchecked Sendable {
    public static let binaries = URL(fileURLWithPath: ProcessInfo.processInfo.environment["CLOUDNOTES_PG_BIN"] ?? "/usr/lib/postgresql/15/bin")

    /// Why PostgreSQL tests cannot run here; nil when they can.
    public static var missing: String? {
        let initdb = binaries.appendingPathComponent("initdb").path
        return FileManager.default.isExecutableFile(atPath: initdb) ? nil : "PostgreSQL is not installed (no \(initdb)); scripts/setup installs it"
    }

    /// Whether a test needing PostgreSQL runs: it is there, or this is CI (where its absence must fail).
    public static var runs: Bool {
        if let missing, ProcessInfo.processInfo.environment["CI"] == nil {
            FileHandle.standardError.write(Data("note: skipping PostgreSQL tests: \(missing)\n".utf8))
            return false
        }
        return true
    }

    public let directory = TemporaryDirectory("postgres")
    public let port: Int
    private var data: URL { directory.path("data") }
    private let owner: String?

    /// `postgresql://` URL of the cluster's `postgres` database over TCP.
    public var url: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    /// The server's certificate and key (PEM files) when it takes TLS connections.
    private let tls: (certificate: String, key: String)?

    /// - Parameter tls: a certificate and key (PEM files) for the server to take TLS connections with; copied
    ///   into the cluster's directory, the key readable by the cluster's owner alone, as PostgreSQL demands.
    public init(tls: (certificate: String, key: String)? = nil) throws {
        if let missing = Self.missing { throw PostgresClusterError(missing) }
        owner = getuid() == 0 ? "postgres" : nil
        port = try Self.freePort()
        let given = tls
        let directory = directory
        self.tls = tls.map { _ in (directory.path("server.crt").path, directory.path("server.key").path) }
        if let owner {  // the directory is root's; the cluster's must be the postgres account's
            chmod(directory.url.path, 0o755)
            try run("/bin/chown", [owner, directory.url.path], asOwner: false)
        }
        try run(Self.binaries.appendingPathComponent("initdb").path,
                ["-D", data.path, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        if let given, let copies = self.tls {
            try FileManager.default.copyItem(atPath: given.certificate, toPath: copies.certificate)
            try FileManager.default.copyItem(atPath: given.key, toPath: copies.key)
            chmod(copies.key, 0o600)
            if let owner { try run("/bin/chown", [owner, copies.certificate, copies.key], asOwner: false) }
        }
        try start()
    }

    deinit { stop() }

    public func start() throws {
        try run(Self.binaries.appendingPathComponent("pg_ctl").path, pgctl("start"), capture: false)
    }

    /// `pg_ctl`'s arguments for `action` (start, or restart) on this cluster.
    private func pgctl(_ action: String) -> [String] {
        ["-D", data.path, "-l", directory.path("server.log").path, "-w", "-t", "60", "-m", "immediate",
         // Every test of a process shares the cluster, each server holding up to eleven connections.
         "-o", "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory.url.path) -c fsync=off -c max_connections=400"
            + (tls.map { " -c ssl=on -c ssl_cert_file=\($0.certificate) -c ssl_key_file=\($0.key)" } ?? ""), action]
    }

    /// A shell command that crashes the server and starts it again (for a process outside the test's, such as
    /// `cloudnotes-soak --restart-store`).
    public var restartCommand: String {
        let argv = (owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [Self.binaries.appendingPathComponent("pg_ctl").path]
            + pgctl("restart")
        return argv.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Stops the server at once (as a crash would); `start` brings it back with what it had committed.
    public func stop() {
        _ = try? run(Self.binaries.appendingPathComponent("pg_ctl").path, ["-D", data.path, "-m", "immediate", "-w", "stop"], capture: false)
    }

    public func restart() throws {
        stop()
        try start()
    }

    /// Runs SQL through `psql` and returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try run("/usr/bin/psql", ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres",
                                  "-d", database, "-c", sql], asOwner: false)
    }

    /// The database's rows as `pg_dump` writes them (data only, as INSERT statements).
    public func dump(database: String) throws -> String {
        try run(Self.binaries.appendingPathComponent("pg_dump").path,
                ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "--data-only", "--inserts", database], asOwner: false)
    }

    // MARK: Processes

    /// Runs a program (as the cluster's owner where there is one) to its end; its output unless it starts
    /// a server (`capture` false: see `Spawn`).
    @discardableResult
    private func run(_ program: String, _ arguments: [String], asOwner: Bool = true, capture: Bool = true) throws -> String {
        let argv = asOwner && owner != nil ? ["/usr/sbin/runuser", "-u", owner!, "--", program] + arguments : [program] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["PGCONNECT_TIMEOUT"] = "10"
        let (status, output) = try Spawn.run(argv, environment: environment, capture: capture)
        guard status == 0 else {
            let log = capture ? output : ((try? String(contentsOf: directory.path("server.log"), encoding: .utf8)) ?? "")
            throw PostgresClusterError("\(URL(fileURLWithPath: program).lastPathComponent) exited \(status): \(log)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A loopback port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresClusterError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw PostgresClusterError("could not find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct PostgresClusterError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
