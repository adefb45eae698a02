import Cloud
import CloudPostgres
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// `cloudnotes cloud migrate`: a cloud that devices used for a while moves from its file into PostgreSQL, and the
/// devices go on from their change tokens: no fetch from scratch, no token expired, nothing lost, all converge.
@Suite struct MigrateTests {
    /// Two accounts, two devices each; heather shares her notebook with mary, read-write.
    final class Devices {
        let directory = TemporaryDirectory("migrate")
        var cloudDirectory: URL { directory.path("cloud") }
        let random = SeededRandom(seed: 20)
        var accounts: [Account] = []
        var devices: [(account: Account, name: String)] = []
        var syncs: [NotesSync] = []
        let log = MemoryLogSink()

        init() throws {
            let cloud = try LocalCloud(directory: cloudDirectory, environment: [:])  // the file, whichever run this is
            accounts = try ["heather", "mary"].map { try cloud.accountCreatingIfNeeded(name: $0) }
            devices = accounts.flatMap { account in ["laptop", "phone"].map { (account, $0) } }
            try open(cloud)
            let heather = syncs[0]
            _ = try heather.store.ensureDefaultNotebook(owner: accounts[0].id)
            try heather.syncNow()
            let url = try PostSharing(store: heather.store, cloud: cloud, account: accounts[0])
                .share(notebook: "Notes", inviting: ["mary"], permission: .readWrite)
            _ = try cloud.acceptShare(url, as: accounts[1])
            for sync in syncs { try sync.syncNow() }
        }

        /// Every device's sync, over `cloud`, logging to `log`.
        func open(_ cloud: LocalCloud) throws {
            syncs = try devices.map { device in
                try NotesSync(store: try DeviceStore(directory: directory.path("devices/\(device.account.name)-\(device.name)")), cloud: cloud,
                              account: FixedAccount(device.account), deviceName: device.name,
                              log: SyncLog(sink: log, device: "\(device.account.name)/\(device.name)"))
            }
        }

        /// A few dozen seeded steps of people writing, editing each other's words, deleting and syncing.
        func work(steps: Int, tag: String) throws {
            for step in 0..<steps {
                let index = random.below(syncs.count)
                let sync = syncs[index], account = devices[index].account
                let posts = try sync.store.posts().filter { !$0.conflicted }
                switch random.below(6) {
                case 0, 1:
                    let notebook = try sync.store.posts().first?.zone
                        ?? (try sync.store.ensureDefaultNotebook(owner: account.id)).zone
                    try sync.store.save(Post(id: "\(tag)-\(step)", zone: notebook, scope: posts.first?.scope ?? .private,
                                             title: "\(tag) \(step)", content: "words of \(account.name)"),
                                        by: account.id, now: Date())
                case 2, 3:
                    guard var post = posts.isEmpty ? nil : posts[random.below(posts.count)] else { continue }
                    post.content += "\n\(tag) \(step) by \(account.name)"
                    try sync.store.save(post, by: account.id, now: Date())
                case 4:
                    guard let post = posts.isEmpty ? nil : posts[random.below(posts.count)], post.scope == .private else { continue }
                    try sync.store.delete(post)
                default:
                    try sync.syncNow()
                }
            }
        }

        /// Syncs every device until all have everything (three rounds: send, then hear what others sent).
        func settle() throws {
            for _ in 0..<3 { for sync in syncs { try sync.syncNow() } }
        }

        /// Each account's devices, as what they hold.
        func held() throws -> [[String: String]] {
            try syncs.map { sync in
                Dictionary(uniqueKeysWithValues: try sync.store.posts().map { ($0.id, "\($0.title)|\($0.content)|\($0.conflicted)") })
            }
        }
    }

    @Test(.enabled(if: PostgresCluster.runs)) func devicesGoOnFromTheirTokensAfterTheCloudMovesToPostgreSQL() throws {
        let people = try Devices()
        try people.work(steps: 60, tag: "before")
        try people.settle()
        let before = try people.held()
        #expect(before[0] == before[1] && before[2] == before[3], "each account's devices agree before the move")
        #expect(before[0].count > 5)

        let file = try LocalCloud(directory: people.cloudDirectory, environment: [:])
        let identity = try file.identity()
        // The last commit pushed to each database: a device drops a push of the commit it made itself by it.
        let topics = Set(people.accounts.flatMap { [PushTopic.database(.private, of: $0.id), .database(.shared, of: $0.id)] })
        let pushed = try file.lastPushes(to: topics)
        #expect(pushed.values.filter { $0 > 0 }.count >= 3, "heather's and mary's private databases and mary's shared one were pushed to")

        let cluster = try PostgresCluster()
        try cluster.psql("CREATE DATABASE moved")
        let url = "postgresql://postgres@127.0.0.1:\(cluster.port)/moved"
        let moved = try CloudNotesBinary.run(["cloud", "migrate", "--from", people.cloudDirectory.path, "--to", url])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("copied cloud "))
        let again = try CloudNotesBinary.run(["cloud", "migrate", "--from", people.cloudDirectory.path, "--to", url])
        #expect(again.status == 0 && again.stdout.contains("already held cloud"), "\(again.stderr)")

        let postgres = try LocalCloud(directory: people.cloudDirectory, storage: PostgresStorage(url: url), environment: [:])
        #expect(try postgres.identity() == identity, "the same cloud, at the same change")
        #expect(try postgres.lastPushes(to: topics) == pushed)

        // A device still on the file (as through a server of it nobody stopped) types on: the file refuses its
        // edit, saying where the cloud went, and the device keeps it for the new store.
        let heather = people.accounts[0], late = people.syncs[0]
        let notebook = try late.store.ensureDefaultNotebook(owner: heather.id)
        try late.store.save(Post(id: "late", zone: notebook.zone, title: "Late", content: "typed as the cloud moved"), by: heather.id, now: Date())
        let refused = #expect(throws: CloudError.self) { try late.syncNow() }
        #expect(refused.map { "\($0)" }?.contains("moved to postgresql://") == true, "\(String(describing: refused))")
        #expect(try late.store.pendingCount() > 0, "kept")
        // A new process opens the file to read it (a check, a dump) and is refused its writes; a server on it is
        // refused at its start, saying where the cloud went.
        let reopened = try LocalCloud(directory: people.cloudDirectory, environment: [:])
        #expect(try reopened.accounts().count == people.accounts.count && reopened.integrityCheck() == "ok")
        let written = #expect(throws: CloudError.self) { _ = try reopened.createAccount(name: "late") }
        #expect(written.map { "\($0)" }?.contains("moved to postgresql://") == true, "\(String(describing: written))")
        let serving = try CloudNotesBinary.start(["cloud", "serve", "--cloud", people.cloudDirectory.path, "--listen", "127.0.0.1:0"],
                                                 environment: ["CLOUDNOTES_STORE": ""])
        let ended = eventually(timeout: 30) { !serving.isRunning }
        serving.terminate()
        let served = serving.finish()
        #expect(ended && served.isOneLineRefusal && served.stderr.contains("serve it with --store postgresql://"), "\(served.stderr)")
        try people.open(postgres)
        let heard = people.log.lines.count
        try people.work(steps: 40, tag: "after")
        try people.settle()

        let after = try people.held()
        #expect(after[0] == after[1] && after[2] == after[3], "each account's devices agree after the move")
        #expect(people.log.lines.prefix(heard).contains { $0.contains("fromScratch=true") }, "the log says when a fetch starts afresh")
        let since = people.log.lines.dropFirst(heard)
        #expect(!since.contains { $0.contains("fromScratch=true") }, "no device fetched everything again")
        #expect(!since.contains { $0.contains("changeTokenExpired") || $0.contains("different cloud") })
        #expect(after[0].keys.contains { $0.hasPrefix("after-") } || after[2].keys.contains { $0.hasPrefix("after-") })
        #expect(after[1]["late"]?.hasPrefix("Late|typed as the cloud moved") == true, "what was typed as the cloud moved reached the new store")
        #expect(try postgres.integrityCheck() == "ok")
    }

    /// `migrate --undo` takes the mark back: the file serves its cloud again, as it was when copied.
    @Test(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's")) func anUndoneMigrateServesTheFileAgain() throws {
        let directory = TemporaryDirectory("undone")
        let cloud = directory.path("cloud").path
        _ = try LocalCloud(directory: directory.path("cloud"), environment: [:]).createAccount(name: "heather")
        let url = try #require(try TestStore.database(for: directory.url))
        let moved = try CloudNotesBinary.run(["cloud", "migrate", "--from", cloud, "--to", url])
        #expect(moved.status == 0, "\(moved.stderr)")
        let refused = #expect(throws: CloudError.self) { _ = try LocalCloud(directory: directory.path("cloud"), environment: [:]).createAccount(name: "mary") }
        #expect(refused.map { "\($0)" }?.contains("moved to postgresql://") == true, "\(String(describing: refused))")
        let undone = try CloudNotesBinary.run(["cloud", "migrate", "--from", cloud, "--undo"])
        #expect(undone.status == 0 && undone.stdout.contains("serves its cloud again"), "\(undone.stderr)")
        let file = try LocalCloud(directory: directory.path("cloud"), environment: [:])
        _ = try file.createAccount(name: "mary")
        #expect(try file.accounts().map(\.name).sorted() == ["heather", "mary"])
        let again = try CloudNotesBinary.run(["cloud", "migrate", "--from", cloud, "--undo"])
        #expect(again.isOneLineRefusal && again.stderr.contains("has not moved"), "\(again.stderr)")
    }
}

extension ProcessResult {
    /// A refusal: non-zero status and one line on stderr.
    fileprivate var isOneLineRefusal: Bool { status != 0 && stderr.hasPrefix("cloudnotes: ") && stderr.split(separator: "\n").count == 1 }
}
