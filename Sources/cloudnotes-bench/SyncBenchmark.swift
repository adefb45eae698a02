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

    /// Device A writes `n` posts and sends them; device B fetches them; beside each round, the raw SQLite
    /// cost of the same rows. Rounds alternate with the raw runs (this machine is shared and its disk
    /// noisy), and each figure is the median of `rounds`.
    static func throughput(_ n: Int, rounds: Int = 3) throws -> [Figure] {
        var send = Timings(), fetch = Timings(), endToEnd = Timings(), raw = Timings(), ratios = Timings()
        var memory = 0.0
        for _ in 0..<rounds {
            let scratch = try Scratch()
            let a = try scratch.device("a"), b = try scratch.device("b")
            let notes = try a.store.ensureDefaultNotebook(owner: scratch.account.id)
            try a.syncNow()
            try b.syncNow()
            let posts = Scratch.posts(n, in: notes.zone)
            try a.store.save(posts, by: scratch.account.id, now: Date())
            let sent = try Timings.once { try a.syncNow() }
            let fetched = try Timings.once { try b.syncNow() }
            guard try b.store.postCount() == n else { throw ValidationError("device B holds \(try b.store.postCount()) posts, not \(n)") }
            let direct = try rawCost(posts, in: scratch.directory.appendingPathComponent("raw"))
            send.samples.append(sent)
            fetch.samples.append(fetched)
            endToEnd.samples.append(sent + fetched)
            raw.samples.append(direct)
            ratios.samples.append((sent + fetched) / direct)
            memory = try fetchMemory(scratch)
        }
        let perSecond = { (ms: Double) in Double(n) / (ms / 1000) }
        return [
            Figure(name: "send \(n) posts", value: perSecond(send.median), unit: "records/s", target: "—"),
            Figure(name: "fetch \(n) posts", value: perSecond(fetch.median), unit: "records/s", target: "—"),
            Figure(name: "end to end \(n) posts", value: perSecond(endToEnd.median), unit: "records/s", target: "—"),
            Figure(name: "end to end \(n) posts, time", median: endToEnd.median, unit: "ms", target: "—"),
            Figure(name: "raw SQLite, same rows (A, cloud, B) \(n)", median: raw.median, unit: "ms", target: "—"),
            Figure(name: "end to end / raw SQLite, \(n) posts", median: ratios.median, unit: "×", target: n >= 10_000 ? "≤ 2" : "—"),
            Figure(name: "peak memory of a fetch of \(n) posts", value: memory, unit: "MiB", target: "—"),
        ]
    }

    /// The same rows inserted directly, in transactions of the cloud's batch size, into the tables the app
    /// keeps them in, with those tables' indexes and durability: a new device store's `posts` (A and B) and a
    /// new cloud's `records`. Nothing else: no reads, no bookkeeping, no copies of server records.
    /// - Parameter store: the cloud's rows go into this PostgreSQL database's `records` instead of the file's.
    static func rawCost(_ posts: [Post], in directory: URL, store: (any CloudStorage)? = nil) throws -> Double {
        let cloud = try LocalCloud(directory: directory.appendingPathComponent("cloud"), storage: store, environment: [:])
        let account = try cloud.accountCreatingIfNeeded(name: "raw")
        let zone = try cloud.database(.private, as: account).save(zone: ZoneID(name: "Notes"))
        for name in ["a", "b"] { _ = try DeviceStore(directory: directory.appendingPathComponent(name)) }
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL") }
        let open = { (path: String) in try DatabaseQueue(path: directory.appendingPathComponent(path).path, configuration: config) }
        let storeA = try open("a/private.sqlite"), cloudFile = try open("cloud/cloud.sqlite"), storeB = try open("b/private.sqlite")
        let zoneRow = try store?.read { try $0.int64("SELECT id FROM zones WHERE name = ?", [zone.name]) }
            ?? cloudFile.read { try Int64.fetchOne($0, sql: "SELECT id FROM zones WHERE name = ?", arguments: [zone.name]) }!
        let now = Date().timeIntervalSince1970
        let insertPost = { (db: Database, post: Post) in
            try db.cachedStatement(sql: """
                INSERT INTO posts(id, zone_name, zone_owner, title, content, tags, created_at, created_by, modified_at, modified_by,
                    saved_at, saved_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [post.id, post.zone.name, post.zone.owner, post.title, post.content,
                                         "[\"" + post.tags.joined(separator: "\",\"") + "\"]", now, account.id, now, account.id,
                                         now, account.id])
        }
        let body = { (post: Post) -> Data in
            var record = Record(type: Post.recordType, id: RecordID(name: post.id, zone: zone))
            record["title"] = .string(post.title)
            record["content"] = .string(post.content)
            record["tags"] = .list(post.tags.map { .string($0) })
            record["edited"] = .date(Date(timeIntervalSince1970: now))  // who changed the content, and when (as the app writes them)
            record["editor"] = .string(account.id)
            return RecordArchive.encode(record)
        }
        let insertSQL = """
            INSERT INTO records(zone, name, type, body, change_tag, created_at, created_by, modified_at, modified_by, seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        /// One batch of the cloud's rows, a statement a row, in one transaction: the file's, or PostgreSQL's.
        let insertRecords = { (batch: ArraySlice<Post>) in
            if let store {
                try store.write { db in
                    for (i, post) in zip(batch.indices, batch) {
                        let seq = 1_000 + i
                        try db.execute(insertSQL, [zoneRow, post.id, Post.recordType, body(post), String(seq, radix: 36), now, account.id, now,
                                                   account.id, seq])
                    }
                }
            } else {
                try cloudFile.write { db in
                    for (i, post) in zip(batch.indices, batch) {
                        let seq = 1_000 + i  // bound as GRDB binds them, as before the PostgreSQL side was added
                        try db.cachedStatement(sql: insertSQL).execute(arguments: [zoneRow, post.id, Post.recordType, body(post),
                                                                                   String(seq, radix: 36), now, account.id, now, account.id, seq])
                    }
                }
            }
        }
        return try Timings.once {
            for batch in stride(from: 0, to: posts.count, by: 400) {
                let slice = posts[batch..<min(posts.count, batch + 400)]
                try storeA.write { db in for post in slice { try insertPost(db, post) } }
                try insertRecords(slice)
                try storeB.write { db in for post in slice { try insertPost(db, post) } }
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
        let cloud = try LocalCloud(directory: root.appendingPathComponent("cloud"), environment: [:])
        let account = try cloud.accountCreatingIfNeeded(name: "bench")
        let store = try DeviceStore(directory: root.appendingPathComponent("probe"))
        store.keyring = try Keyring(directory: root.appendingPathComponent("keychain"), account: account, cloud: cloud)
        let device = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account))
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
