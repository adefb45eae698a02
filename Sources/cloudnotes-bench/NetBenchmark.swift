import ArgumentParser
import Cloud
import CloudClient
import CloudPostgres
import CloudWire
import Crypto
import Foundation
import Notes
import Sync

/// The cloud through `cloudnotes cloud serve` on loopback (the server a process of its own, built beside this
/// benchmark), beside the same through the cloud directory in the same run: sync throughput, live latency store
/// to store, and the server's load with many devices editing at once.
struct NetBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "net", abstract: "Sync through the server: throughput, latency, load.")

    @Option(help: "Posts per throughput run.") var posts = 10_000
    @Option(help: "Edits measured for live latency.") var edits = 200
    @Option(help: "Devices of the load run.") var devices = 100
    @Option(help: "Seconds of the load run.") var seconds = 60.0
    @Option(help: "Which parts to run (comma-separated): wire, throughput, live, load.") var parts = "wire,throughput,live,load"
    @Option(help: ArgumentHelp("Keep the cloud on PostgreSQL: each run in a new database beside this one (dropped after).",
                               valueName: "postgresql://USER@HOST[:PORT]/DB")) var store: String?
    @Option(help: "Servers of the cloud for the load run (the devices take turns among them).") var servers = 1
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        let parts = Set(parts.split(separator: ",").map(String.init))
        let store = try store.map { try PostgresLocation(parsing: $0) }
        var figures: [Figure] = []
        if parts.contains("wire") { figures += try WireBenchmark.measure(posts) }
        if parts.contains("throughput") { figures += try store.map { try Self.throughput(posts, on: $0) } ?? Self.throughput(posts) }
        if parts.contains("live") { figures += try Self.live(edits: edits, store: store) }
        if parts.contains("load") { figures += try Self.load(devices: devices, seconds: seconds, servers: servers, store: store) }
        try report(figures, json: json, title: store == nil ? "net" : "net, cloud on PostgreSQL")
    }

    /// Device A sends `n` posts and device B fetches them through a server on PostgreSQL; beside each round, the
    /// raw cost of the same rows: A's and B's stores, and the cloud's `records` in the same PostgreSQL, in
    /// transactions of 400. The ratio is of the medians.
    static func throughput(_ n: Int, on store: PostgresLocation, rounds: Int = 3) throws -> [Figure] {
        var served = Timings(), raw = Timings()
        for _ in 0..<rounds {
            let scratch = try Scratch(store: store)
            let server = try ServedCloud(scratch)
            let (took, posts) = try sendAndFetch(n, from: try server.device("a"), to: try server.device("b"), as: scratch.account)
            served.samples.append(took)
            let rawScratch = try Scratch(store: store)
            raw.samples.append(try SyncBenchmark.rawCost(posts, in: rawScratch.directory.appendingPathComponent("raw"),
                                                         store: try PostgresStorage(rawScratch.database!)))
        }
        return [
            Figure(name: "send and fetch \(n) posts through a server on PostgreSQL", median: served.median, unit: "ms", target: "—"),
            Figure(name: "raw: the same rows into A, PostgreSQL's records (400 a transaction), B", median: raw.median, unit: "ms",
                   target: "—"),
            Figure(name: "through the server on PostgreSQL / raw", median: served.median / raw.median, unit: "×", target: "≤ 2"),
        ]
    }

    /// A writes `n` new posts and sends them, then B fetches them: the time of those two syncs, and the posts.
    static func sendAndFetch(_ n: Int, from a: NotesSync, to b: NotesSync, as account: Account) throws -> (ms: Double, posts: [Post]) {
        let notes = try a.store.ensureDefaultNotebook(owner: account.id)
        try a.syncNow()
        try b.syncNow()
        let posts = Scratch.posts(n, in: notes.zone)
        try a.store.save(posts, by: account.id, now: Date())
        let took = try Timings.once { try a.syncNow() } + Timings.once { try b.syncNow() }
        guard try b.store.postCount() == n else { throw ValidationError("device B holds \(try b.store.postCount()) posts, not \(n)") }
        return (took, posts)
    }

    /// Device A sends `n` posts and device B fetches them, through the server and through the directory, rounds
    /// alternating; the ratio is of the medians.
    static func throughput(_ n: Int, rounds: Int = 5) throws -> [Figure] {
        var served = Timings(), direct = Timings()
        for _ in 0..<rounds {
            for throughServer in [true, false] {
                let scratch = try Scratch()
                let server = throughServer ? try ServedCloud(scratch) : nil
                let a = try server?.device("a") ?? scratch.device("a"), b = try server?.device("b") ?? scratch.device("b")
                let took = try sendAndFetch(n, from: a, to: b, as: scratch.account).ms
                if throughServer { served.samples.append(took) } else { direct.samples.append(took) }
            }
        }
        return [
            Figure(name: "send and fetch \(n) posts through the server", median: served.median, unit: "ms", target: "—"),
            Figure(name: "the same through the cloud directory", median: direct.median, unit: "ms", target: "—"),
            Figure(name: "through the server / through the directory", median: served.median / direct.median, unit: "×", target: "≤ 2"),
        ]
    }

    /// An edit on A until B's store holds it, both syncing live through the server.
    static func live(edits: Int, store: PostgresLocation? = nil) throws -> [Figure] {
        let scratch = try Scratch(store: store)
        let server = try ServedCloud(scratch)
        let figures = try LiveBenchmark.measure(edits: edits, scratch: scratch, a: try server.device("a"), b: try server.device("b"))
        return figures.map { figure in
            var through = figure
            through.name = "server: " + figure.name.trimmingCharacters(in: .whitespaces)
            if figure.target.hasPrefix("p95") { through.target = "p95 ≤ 100" }
            return through
        }
    }

    /// `devices` devices (four to an account), each editing its own post and syncing once a second for `seconds`:
    /// every HTTP exchange timed as its client saw it, and the processor time each side took.
    ///
    /// The devices run on this machine, beside the servers, so their stores are kept in memory (`/dev/shm`) where
    /// there is one: two hundred SQLite files each synced to disk twice a second took more than half this
    /// 2-core machine's time in the kernel, and the servers' latency then measured the devices' disk. The
    /// cloud's own store stays where it is (its file on disk, or PostgreSQL).
    static func load(devices count: Int, seconds: Double, servers: Int = 1, store: PostgresLocation? = nil) throws -> [Figure] {
        let scratch = try Scratch(store: store)
        let server = try ServedCloud(scratch, servers: servers, devicesIn: MemoryDirectory.make())
        defer { server.removeDevices() }
        let exchanges = Exchanges()
        var syncs: [NotesSync] = []
        for i in 0..<count {
            let account = try scratch.cloud.accountCreatingIfNeeded(name: "load\(i / 4)")
            syncs.append(try server.device("d\(i)", account: account, observer: exchanges.add))
        }
        for sync in syncs { try sync.syncNow() }
        exchanges.reset()
        let logged = server.logEnds()
        let time = ProcessorTime(servers: server.servers.map(\.processIdentifier), database: store != nil)
        let failures = Failures()
        let deadline = Date() + seconds
        let group = DispatchGroup()
        for (i, sync) in syncs.enumerated() {
            let thread = Thread {
                defer { group.leave() }
                do {
                    let notes = try sync.store.ensureDefaultNotebook(owner: sync.account.currentAccount()!.id)
                    var post = Post(id: "load\(i)", zone: notes.zone, title: "Device \(i)")
                    var tick = Date() + Double(i % 100) / 100  // spread over the second
                    var edit = 0
                    while tick < deadline {
                        Thread.sleep(until: tick)
                        post.content = "edit \(edit)"
                        edit += 1
                        try sync.store.save(post, by: sync.account.currentAccount()!.id, now: Date())
                        do { try sync.syncNow() } catch { failures.add() }
                        // A person edits on, whatever the sync took: a device that fell behind edits again at once
                        // (its next sync carries the newest text) and the run still ends on time.
                        tick = max(tick + 1, Date())
                    }
                } catch {
                    failures.add()
                }
            }
            group.enter()
            thread.start()
        }
        group.wait()
        let used = time.sinceStart()
        let elapsed = Date().timeIntervalSince(deadline - seconds)
        let timings = exchanges.timings
        let saves = exchanges.timings { $0 == "records/modify" }
        let fetches = exchanges.timings { $0.hasPrefix("changes/") }
        let served = try server.served(since: logged)
        let servedAll = Timings(samples: served.map(\.milliseconds))
        let servedSaves = Timings(samples: served.filter { $0.operation == "records/modify" }.map(\.milliseconds))
        let devicesWhere = server.devicesDirectory.path.hasPrefix(MemoryDirectory.root) ? "in memory" : "on disk"
        return [
            Figure(name: "load: \(count) devices on \(servers) server\(servers == 1 ? "" : "s"), an edit a second each, \(Int(seconds)) s: requests",
                   value: Double(timings.samples.count),
                   unit: "requests", target: "—"),
            Figure(name: "load: request latency as clients saw it", median: timings.median, p95: timings.p95, p99: timings.p99, unit: "ms",
                   target: "p95 ≤ 100"),
            // Saves and fetches apart: saves wait for the writers' turn (docs/STORAGE.md), fetches only for threads.
            Figure(name: "load: of which saves (records/modify, \(saves.samples.count))", median: saves.median, p95: saves.p95, p99: saves.p99, unit: "ms", target: "—"),
            Figure(name: "load: saves the cloud took a second (\(count) offered)", value: Double(saves.samples.count) / elapsed,
                   unit: "saves/s", target: "—"),
            Figure(name: "load: of which fetches (changes/…, \(fetches.samples.count))", median: fetches.median, p95: fetches.p95, p99: fetches.p99, unit: "ms",
                   target: "—"),
            // The same requests as the servers timed them (their access logs): without the time the devices' own
            // process, which shares this machine, took to send them and to read the answers.
            Figure(name: "load: request latency as the servers timed it (\(served.count) logged)", median: servedAll.median, p95: servedAll.p95,
                   p99: servedAll.p99, unit: "ms", target: "—"),
            Figure(name: "load: of which saves, as the servers timed them", median: servedSaves.median, p95: servedSaves.p95,
                   p99: servedSaves.p99, unit: "ms", target: "—"),
            Figure(name: "load: failed requests (transport or 5xx) / syncs that failed", value: Double(exchanges.errors), unit: "requests",
                   target: "0"),
            Figure(name: "load: syncs that failed", value: Double(failures.count), unit: "syncs", target: "0"),
            Figure(name: "load: processor time of the devices (their stores \(devicesWhere))", value: used.devices, unit: "% of a core", target: "—"),
            Figure(name: "load: processor time of the servers", value: used.servers, unit: "% of a core", target: "—"),
        ] + (used.database.map { [Figure(name: "load: processor time of PostgreSQL", value: $0, unit: "% of a core", target: "—")] } ?? [])
    }
}

/// The scratch cloud served by `cloudnotes cloud serve` processes on free loopback ports, stopped on release.
final class ServedCloud {
    let scratch: Scratch
    let servers: [ServerProcess]
    private var devices = 0

    /// Where the devices' stores and keychains are.
    let devicesDirectory: URL

    init(_ scratch: Scratch, servers count: Int = 1, devicesIn directory: URL? = nil) throws {
        self.scratch = scratch
        devicesDirectory = directory ?? scratch.directory
        let environment = scratch.database.map { ["CLOUDNOTES_STORE": $0.description] } ?? [:]
        logs = (0..<max(1, count)).map { scratch.directory.appendingPathComponent("server-\($0).log") }
        servers = try logs.map { log in
            try ServerProcess(executable: beside("cloudnotes"), cloud: scratch.directory.appendingPathComponent("cloud"), environment: environment,
                              log: log)
        }
    }

    /// Each server's access log (one JSON object a request, with the milliseconds the server took).
    let logs: [URL]

    /// How far each access log reaches now: what `served(since:)` starts after.
    func logEnds() -> [UInt64] {
        logs.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? UInt64) ?? 0 }
    }

    /// The requests the servers logged since `ends` (`logEnds()`), each with its operation ("records/modify") and the
    /// milliseconds the server took: from the request read to the answer handed back to the network.
    func served(since ends: [UInt64]) throws -> [(operation: String, milliseconds: Double)] {
        var found: [(String, Double)] = []
        for (log, end) in zip(logs, ends) {
            let handle = try FileHandle(forReadingFrom: log)
            defer { try? handle.close() }
            try handle.seek(toOffset: end)
            for line in (try handle.readToEnd() ?? Data()).split(separator: UInt8(ascii: "\n")) {
                guard let entry = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: String], entry["message"] == "request",
                      let path = entry["path"], let ms = entry["ms"].flatMap(Double.init) else { continue }
                found.append((Exchanges.operation(path), ms))
            }
        }
        return found
    }

    /// A device of `account` (the scratch's by default), enrolled with a key of its own, syncing through the next
    /// server in turn.
    func device(_ name: String, account: Account? = nil, observer: (@Sendable (String, Double, Int) -> Void)? = nil) throws -> NotesSync {
        let url = servers[devices % servers.count].url
        devices += 1
        let account = account ?? scratch.account
        let key = P256.Signing.PrivateKey()
        let credentials = try RemoteCloud.enrol(server: url, code: try scratch.cloud.makeEnrolmentCode(for: account), key: key, deviceName: name)
        let cloud = RemoteCloud(server: url, credentials: credentials, observer: observer)
        let store = try DeviceStore(directory: devicesDirectory.appendingPathComponent("devices/\(name)"))
        store.keyring = try Keyring(directory: devicesDirectory.appendingPathComponent("keychains/\(account.name)"), account: account, cloud: cloud)
        return try NotesSync(store: store, cloud: cloud, account: FixedAccount(account))
    }
}

extension ServedCloud {
    /// Removes the devices' directory when it is not the scratch's (which removes itself).
    func removeDevices() {
        if devicesDirectory != scratch.directory { try? FileManager.default.removeItem(at: devicesDirectory) }
    }
}

/// Every exchange's duration, from many threads.
final class Exchanges: @unchecked Sendable {
    private let lock = NSLock()
    /// Milliseconds by operation ("records/modify", "changes/zone").
    private var byOperation: [String: [Double]] = [:]
    private var failed = 0

    /// The operation a request's path names (the path itself when it names none, as `/healthz`).
    static func operation(_ path: String) -> String { WirePath(parsing: path)?.operation ?? path }

    func add(_ path: String, _ seconds: Double, _ status: Int) {
        lock.withLock {
            byOperation[Self.operation(path), default: []].append(seconds * 1000)
            if status == 0 || status >= 500 || status == 429 { failed += 1 }
        }
    }

    func reset() { lock.withLock { byOperation = [:]; failed = 0 } }
    var timings: Timings { timings { _ in true } }
    /// The exchanges of the operations `include` picks.
    func timings(of include: (String) -> Bool) -> Timings {
        lock.withLock { Timings(samples: byOperation.filter { include($0.key) }.flatMap(\.value)) }
    }
    var errors: Int { lock.withLock { failed } }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var count: Int { lock.withLock { n } }
}
