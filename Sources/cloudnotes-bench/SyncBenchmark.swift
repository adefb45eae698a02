import ArgumentParser
import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Notes
import Sync

/// Sync throughput, incremental fetch and the memory of a fetch, each beside
/// the limit it is compared with, measured in the same run.
struct SyncBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Throughput, incremental fetch, fetch memory.")

    @Option(help: "Posts per throughput run (comma-separated).") var posts = "1000,10000"
    @Option(help: "Records in the large zone of the incremental fetch.") var largeZone = 100_000
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        var figures: [Figure] = []
        for n in posts.split(separator: ",").compactMap({ Int($0) }) { figures += try Self.throughput(n) }
        figures += try Self.incrementalFetch(large: largeZone)
        try report(figures, json: json, title: "sync")
    }

    /// Device A writes `n` posts and sends them; device B fetches them. Against the raw SQLite cost of the same rows.
    static func throughput(_ n: Int) throws -> [Figure] {
        let scratch = try Scratch()
        let a = try scratch.device("a"), b = try scratch.device("b")
        let notes = try a.store.ensureDefaultNotebook(owner: scratch.account.id)
        try a.syncNow()
        try b.syncNow()
        let posts = Scratch.posts(n, in: notes.zone)
        try a.store.save(posts, by: scratch.account.id, now: Date())
        let send = try Timings.once { try a.syncNow() }
        let fetch = try Timings.once { try b.syncNow() }
        guard try b.store.postCount() == n else { throw ValidationError("device B holds \(try b.store.postCount()) posts, not \(n)") }
        let raw = try rawCost(posts, in: scratch.directory.appendingPathComponent("raw"))
        let endToEnd = send + fetch
        let perSecond = { (ms: Double) in Double(n) / (ms / 1000) }
        let memory = try fetchMemory(scratch)
        return [
            Figure(name: "send \(n) posts", value: perSecond(send), unit: "records/s", target: "—"),
            Figure(name: "fetch \(n) posts", value: perSecond(fetch), unit: "records/s", target: "—"),
            Figure(name: "end to end \(n) posts", value: perSecond(endToEnd), unit: "records/s", target: "—"),
            Figure(name: "raw SQLite, same rows (A, cloud, B) \(n)", value: raw, unit: "ms", target: "—"),
            Figure(name: "end to end / raw SQLite, \(n) posts", value: endToEnd / raw, unit: "×", target: n >= 10_000 ? "≤ 2" : "—"),
            Figure(name: "peak memory of a fetch of \(n) posts", value: memory, unit: "MiB", target: "—"),
        ]
    }

    /// The same rows inserted directly into three files (A's store, the cloud, B's store) with the
    /// stores' durability (rollback journal, synchronous FULL), in transactions of the cloud's batch size.
    static func rawCost(_ posts: [Post], in directory: URL) throws -> Double {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL") }
        let files = try ["a", "cloud", "b"].map { try DatabaseQueue(path: directory.appendingPathComponent("\($0).sqlite").path, configuration: config) }
        for file in files {
            try file.write { try $0.execute(sql: """
                CREATE TABLE posts(id TEXT, zone TEXT, owner TEXT, title TEXT, content TEXT, tags TEXT, modified REAL, PRIMARY KEY(zone, owner, id))
                """) }
        }
        return try Timings.once {
            for file in files {
                for batch in stride(from: 0, to: posts.count, by: 400) {
                    try file.write { db in
                        for post in posts[batch..<min(posts.count, batch + 400)] {
                            try db.execute(sql: "INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: [
                                post.id, post.zone.name, post.zone.owner, post.title, post.content, post.tags.joined(separator: ","),
                                Date().timeIntervalSince1970])
                        }
                    }
                }
            }
        }
    }

    /// A new device fetches what the cloud holds, in a child process, so its peak memory is the fetch's alone.
    static func fetchMemory(_ scratch: Scratch) throws -> Double {
        let text = String(decoding: try runSelf(["fetch-probe", scratch.directory.path]), as: UTF8.self)
        guard let mib = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw BenchError("the fetch probe printed \(text)") }
        return mib
    }

    /// Fetching 10 changes from a zone of 100 records and from one of `large`: the cost must follow the changes.
    static func incrementalFetch(large: Int) throws -> [Figure] {
        var medians: [Int: Timings] = [:]
        for size in [100, large] {
            let scratch = try Scratch()
            let db = scratch.cloud.database(.private, as: scratch.account)
            let zone = try db.save(zone: ZoneID(name: "Z"))
            for batch in stride(from: 0, to: size, by: 400) {
                let records = (batch..<min(size, batch + 400)).map { i -> Record in
                    var record = Record(type: "Post", id: RecordID(name: String(format: "r%07d", i), zone: zone))
                    record["title"] = .string("Post \(i)")
                    return record
                }
                try db.modifyRecords(saving: records).throwIfFailed()
            }
            var changes = try db.zoneChanges(in: zone, since: nil, limit: size + 1)
            let token = changes.token
            let edited = (0..<10).map { i -> Record in
                var record = changes.modified[i * size / 10]
                record["title"] = .string("edited \(i)")
                return record
            }
            try db.modifyRecords(saving: edited).throwIfFailed()
            var timings = Timings()
            for _ in 0..<200 {
                changes = try timings.time { try db.zoneChanges(in: zone, since: token) }
                guard changes.modified.count == 10 else { throw ValidationError("expected 10 changes, got \(changes.modified.count)") }
            }
            medians[size] = timings
        }
        let small = medians[100]!, big = medians[large]!
        return [
            Figure(name: "fetch 10 changes, zone of 100", median: small.median, p95: small.p95, unit: "ms", target: "—"),
            Figure(name: "fetch 10 changes, zone of \(large)", median: big.median, p95: big.p95, unit: "ms", target: "—"),
            Figure(name: "incremental fetch, large / small zone", value: big.median / small.median, unit: "×", target: "≤ 2"),
        ]
    }
}

/// `cloudnotes-bench fetch-probe DIR`: a fresh device fetches everything from DIR's cloud; prints its peak memory.
struct FetchProbe: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch-probe", shouldDisplay: false)
    @Argument var directory: String

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        let cloud = try Cloud(directory: root.appendingPathComponent("cloud"), environment: [:])
        let account = try cloud.accountCreatingIfNeeded(name: "bench")
        let device = try NotesSync(store: try DeviceStore(directory: root.appendingPathComponent("probe")), cloud: cloud,
                                   account: FixedAccount(account))
        try device.syncNow()
        print(peakResidentMiB())
    }
}

func report(_ figures: [Figure], json: Bool, title: String) throws {
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(figures), as: UTF8.self))
    } else {
        print(title)
        printTable(figures)
    }
}
