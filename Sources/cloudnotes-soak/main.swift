import ArgumentParser
import Cloud
import CloudClient
import Foundation
import Notes

/// `cloudnotes-soak`: several OS processes (devices of three accounts) do
/// random work against one cloud for a set time, with faults injected and
/// processes killed with SIGKILL at random moments and restarted. Then every
/// device settles and `SoakCheck` looks for anything lost, diverged, damaged
/// or written without the right to.
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudnotes-soak", abstract: "Crash-and-load harness: prints one line, exits non-zero on any violation.",
        subcommands: [Run.self, Worker.self, Race.self, RaceWorker.self], defaultSubcommand: Run.self)
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run")

    @Option(help: "Worker processes (devices), at least 3.") var processes = 8
    @Option(help: "How long the load runs, in seconds.") var seconds = 60.0
    @Option(help: "Share of requests that fail with a transient error.") var faultRate = 0.1
    @Option(help: "Mean seconds between SIGKILLs.") var killEvery = 3.0
    @Option(help: "Seed of the run (workers, kills).") var seed: UInt64 = 1
    @Option(help: "Keep the run's files here (default: a temporary directory, removed when all is well).") var directory: String?
    @Flag(help: "Workers talk to a server (cloudnotes cloud serve, built beside this), which is itself killed and restarted at random.")
    var server = false
    @Option(help: "With --server: how many servers of the cloud; each worker is given all, its own first, and moves on when one stops.")
    var servers = 1
    @Option(help: "Keep the cloud's state in this PostgreSQL database (else the directory's SQLite file).") var store: String?
    @Option(help: ArgumentHelp("A shell command run once, halfway through: restarting the store's server, say.", valueName: "COMMAND"))
    var restartStore: String?

    func validate() throws {
        if processes < 3 { throw ValidationError("--processes must be at least 3 (one per account)") }
        if servers < 1 || (servers > 1 && !server) { throw ValidationError("--servers goes with --server, and is at least 1") }
    }

    func run() throws {
        let root = URL(fileURLWithPath: directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("cloudnotes-soak-\(getpid())").path)
        let layout = SoakLayout(root: root, store: store)
        _ = try layout.prepare()
        if server { try layout.enrolDevices(processes) }
        let random = SeededRandom(seed: seed)
        let faults = "rate=\(faultRate);errors=networkFailure,serviceUnavailable,zoneBusy,requestRateLimited;retryAfter=0.05"
        var served = try server ? (0..<servers).map { _ in try serve(layout, faults: faults) } : []
        let urls = served.map(\.url)
        /// The servers a worker is given: all, starting with its own.
        func serverList(for process: Int) -> [URL]? {
            urls.isEmpty ? nil : (0..<urls.count).map { urls[(process + $0) % urls.count] }
        }
        // Every worker a seed of its own (not a few digits): two that shared one would make the same new posts
        // again, writing over what others had appended to them, which no person can do.
        var workers = (0..<processes).map {
            try! start(process: $0, root: root, seed: random.next(), faults: faults, servers: serverList(for: $0))
        }
        var kills = 0, serverKills = 0, storeRestarts = 0
        let deadline = Date() + seconds
        let halfway = Date() + seconds / 2
        while Date() < deadline {
            Thread.sleep(forTimeInterval: min(deadline.timeIntervalSinceNow, random.unit() * 2 * killEvery))
            guard Date() < deadline else { break }
            if let restartStore, storeRestarts == 0, Date() >= halfway {
                // The database goes away under every server at once, and comes back.
                storeRestarts += 1
                let status = try Self.shell(restartStore)
                guard status == 0 else { throw ValidationError("--restart-store exited \(status)") }
                continue
            }
            if !served.isEmpty, random.below(4) == 0 {
                // A server dies mid-request; it comes back on the same port a moment later.
                let which = random.below(served.count)
                served[which].kill()
                serverKills += 1
                Thread.sleep(forTimeInterval: random.unit() * 0.5)
                served[which] = try serve(layout, faults: faults, port: served[which].port)
                continue
            }
            let victim = random.below(processes)
            kill(workers[victim].processIdentifier, SIGKILL)
            workers[victim].waitUntilExit()
            kills += 1
            workers[victim] = try start(process: victim, root: root, seed: random.next(), faults: faults, servers: serverList(for: victim))
        }
        for worker in workers { kill(worker.processIdentifier, SIGKILL) }
        for worker in workers { worker.waitUntilExit() }
        for server in served { server.kill() }
        let report = try SoakCheck(layout: layout, processes: processes).run()
        var through = server ? "through \(servers) server\(servers == 1 ? "" : "s") (killed \(serverKills) times)" : "on the cloud directly"
        if store != nil { through += " on PostgreSQL" + (storeRestarts > 0 ? " (restarted \(storeRestarts) time)" : "") }
        print("soak: \(processes) processes \(through), \(Int(seconds)) s, fault rate \(faultRate), \(kills) kills, seed \(seed): \(report.summary)")
        if report.violations.isEmpty {
            if directory == nil { try? FileManager.default.removeItem(at: root) }
        } else {
            for line in report.violations.prefix(20) { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }
            FileHandle.standardError.write(Data("  files kept in \(root.path)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `cloudnotes cloud serve` (built beside this) on the run's cloud, faults injected at the server.
    func serve(_ layout: SoakLayout, faults: String, port: Int = 0) throws -> ServerProcess {
        var environment = ["CLOUDNOTES_FAULTS": faults]
        environment["CLOUDNOTES_STORE"] = store
        return try ServerProcess(executable: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cloudnotes"),
                                 cloud: layout.cloudDirectory, listen: "127.0.0.1:\(port)", environment: environment)
    }

    /// Runs `command` with /bin/sh; its exit status. (Not Foundation's `Process`: it misses the exit of a
    /// program that starts a server, as `pg_ctl restart` does.)
    static func shell(_ command: String) throws -> Int32 {
        try Spawn.run(["/bin/sh", "-c", command], environment: ProcessInfo.processInfo.environment, capture: false).status
    }

    func start(process: Int, root: URL, seed: UInt64, faults: String, servers: [URL]?) throws -> Process {
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        worker.arguments = ["worker", "--root", root.path, "--process", String(process), "--seed", String(seed)]
            + (servers.map { ["--server", $0.map(\.absoluteString).joined(separator: ",")] } ?? [])
            + (store.map { ["--store", $0] } ?? [])
        var env = ProcessInfo.processInfo.environment
        env["CLOUDNOTES_FAULTS"] = servers == nil ? faults : nil
        worker.environment = env
        worker.standardOutput = FileHandle.nullDevice
        try worker.run()
        return worker
    }
}

Soak.main()
