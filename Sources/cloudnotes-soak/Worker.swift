import ArgumentParser
import Cloud
import CloudClient
import Foundation
import Notes
import Sync

/// One process of the soak: a device of an account doing what people do
/// (write, append lines to what its screen showed before the last sync,
/// comment), syncing as it goes, with faults from `CLOUDNOTES_FAULTS`. Every write the store acknowledged goes into the
/// process's journal (after the commit, flushed), so the checker knows what
/// must survive. A read-only participant also tries to write through the
/// share behind the app's back; if the cloud ever lets it, that is logged too.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker", shouldDisplay: false)

    @Option var root: String
    @Option var process: Int
    @Option var seed: UInt64
    @Option(help: "Reach the cloud through these servers (comma-separated, tried in turn) instead of its directory.") var server: String?
    @Option(help: "The cloud's PostgreSQL database (when it is not the directory's file).") var store: String?

    func run() throws {
        let layout = SoakLayout(root: URL(fileURLWithPath: root), store: store)
        let random = SeededRandom(seed: seed)
        // Through a server, the faults are the server's (from its environment); otherwise this process's own.
        let cloud: any Cloud = try server.map { try layout.remoteCloud(process, servers: $0.split(separator: ",").compactMap { URL(string: String($0)) }) }
            ?? layout.openCloud(faults: nil, environment: ProcessInfo.processInfo.environment)
        let account = try server == nil ? cloud.account(named: SoakLayout.account(of: process))
            : (cloud as! RemoteCloud).credentials.account
        let store = try DeviceStore(directory: layout.device(process))
        let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account))
        let notes = try store.ensureDefaultNotebook(owner: account.id)
        let journal = try Journal(layout.journal(process))
        let editor = Editor(account: account, device: "soak-\(process)")
        var counter = 0
        var shown: [Post] = []  // the screen: what the store held before the last sync
        while true {
            counter += 1
            let token = "w\(process)-\(seed)-\(counter)"
            switch random.below(10) {
            case 0..<3:
                // A new post in this account's Notes, or (a1) in the notebook a0 shares.
                let shared = account.name == "a1" && random.below(2) == 0
                let zone = shared ? (try store.notebooks().first { $0.scope == .shared }?.zone) ?? notes.zone : notes.zone
                let post = Post(id: "p" + random.hex(bytes: 6), zone: zone, scope: zone == notes.zone ? .private : .shared,
                                title: "post \(token)", content: token)
                try store.save(post, by: account.id, now: Date())
                journal.record(post, token)
            case 3..<8:
                // Append a line to a post this account may edit, as the screen showed it before the last sync:
                // the save merges with whatever arrived since.
                let candidates = shown.filter { $0.scope == .private || account.name == "a1" }
                guard !candidates.isEmpty else { continue }
                let base = candidates[random.below(candidates.count)]
                var post = base
                post.content += "\n" + token
                _ = try store.saveEdit(post, from: base.fields, by: editor, now: Date())
                journal.record(post, token)
            case 8:
                if account.name == "a2" { try tryForbiddenWrite(cloud: cloud, account: account, store: store, journal: journal) }
            default:
                break
            }
            shown = try store.posts()
            try? sync.syncNow()
            Thread.sleep(forTimeInterval: random.unit() * 0.05)
        }
    }

    /// a2 may only read a0's notebook: its writes must be refused by the cloud itself.
    func tryForbiddenWrite(cloud: any Cloud, account: Account, store: DeviceStore, journal: Journal) throws {
        guard let target = try store.posts().first(where: { $0.scope == .shared }),
              var record = try store.record(for: target.recordID, in: .shared) else { return }
        record["content"] = .string("forbidden write by a2")
        if (try? cloud.database(.shared, as: account).save(record)) != nil {
            journal.violation("a2 wrote \(target.id) through a read-only share")
        }
    }
}

/// Lines appended with O_APPEND and fsync: `ack POSTSCOPE ZONE OWNER POST TOKEN` or `violation TEXT`.
final class Journal {
    private let fd: Int32

    init(_ url: URL) throws {
        fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ValidationError("cannot open \(url.path)") }
    }

    deinit { close(fd) }

    func record(_ post: Post, _ token: String) {
        write("ack \(post.scope.rawValue) \(post.zone.name) \(post.zone.owner) \(post.id) \(token)")
    }

    func violation(_ text: String) { write("violation \(text)") }

    private func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
    }
}
