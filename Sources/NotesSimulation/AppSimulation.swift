import Cloud
import Foundation
import Notes
import Sync
import SyncSimulation

/// `cloudnotes-sim --app`: devices of several accounts using the app itself
/// (real device stores, the sync delegate, merges, sealed locations, shares)
/// against one cloud, in steps drawn from a seed, with transient faults.
///
/// Its people are as careless as real ones: they edit what their screen
/// showed a while ago, keep an editor open over many steps, edit on two
/// devices at once, resolve conflicts, and delete lines. Around them the
/// cloud's file is emptied or put back to an older copy, store writes fail
/// while a fetch is applied, and a second process of a device writes while
/// the first syncs. Every edit types a uniquely tagged word (`[t123]`) into
/// the text, the title or the location; the check is that every word whose
/// save was acknowledged is, after settling, in the post (in whichever field,
/// or in a conflict block) on every device that shows it, unless a person
/// removed it on purpose, the post was deleted, or the cloud refused the edit
/// and said so.
public final class AppSimulation {
    struct Device {
        let index: Int
        let account: Account
        let sync: NotesSync
        /// Sees every event of the device's sync, so a second process can write in the middle of one.
        let hook: EventHook
        var name: String { "\(account.name)/d\(index)" }
        var store: DeviceStore { sync.store }
        var editor: Editor { Editor(account: account, device: "d\(index)") }
    }

    /// An editor a person keeps open over several steps: the copy it opened, and what they typed since.
    struct Session {
        var base: Post
        var typed: [String] = []
    }

    let options: SimulationOptions
    let random: SeededRandom
    let clock = ManualClock()
    let cloud: LocalCloud
    let directory: URL
    let tampering: CloudTampering
    var accounts: [Account] = []
    var devices: [Device] = []
    var counts: [String: Int] = [:]
    var violations: [String] = []
    /// Tags whose save was acknowledged, by post; tags a person removed on purpose.
    var typed: [RecordID: Set<String>] = [:]
    var removed: Set<String> = []
    /// Posts with an edit the cloud refused (and said so), and posts someone deleted.
    var refusedPosts: Set<RecordID> = []
    var deletedPosts: Set<RecordID> = []
    /// Where each moved post went: words typed into a copy of it its device had not heard was moved belong there.
    var movedTo: [RecordID: RecordID] = [:]
    var urls: [(url: ShareURL, owner: Account)] = []
    /// What each device's screen showed of each post, and when: the base of a stale edit.
    var screens: [Int: [String: (post: Post, step: Int)]] = [:]
    var sessions: [Int: Session] = [:]
    var snapshots: [Data] = []
    /// eve, who runs no app and goes for the keys (see `Intruder`).
    var intruder: Intruder?
    /// Where each step is written, when the run is logged.
    let log: SyncLog?

    public init(_ options: SimulationOptions, directory: URL, log: (any SyncLogSink)? = nil) throws {
        self.options = options
        self.directory = directory
        random = SeededRandom(seed: options.seed)
        let cloudDirectory = directory.appendingPathComponent("cloud")
        cloud = try LocalCloud(directory: cloudDirectory, clock: clock, random: SeededRandom(seed: options.seed &+ 0x5EED),
                          faults: nil, environment: [:])
        tampering = CloudTampering(directory: cloudDirectory)
        self.log = log.map { [clock] in SyncLog(sink: $0, device: "sim", clock: clock) }
        if options.intruder {
            let eve = try cloud.createAccount(name: "eve")
            let keyring = try Keyring(directory: directory.appendingPathComponent("eve-keychain"), account: eve, cloud: cloud)
            try keyring.publish()
            intruder = Intruder(account: eve, keyring: keyring,
                                observer: try LocalCloud(directory: cloudDirectory, clock: clock, faults: .off, environment: [:]))
        }
        for a in 0..<max(1, options.accounts) { accounts.append(try cloud.createAccount(name: "a\(a)")) }
        for d in 0..<max(1, options.devices) {
            let account = accounts[d % accounts.count]
            let store = try openStore(d, account: account)
            try store.keyring?.publish()
            _ = try store.ensureDefaultNotebook(owner: account.id)
            let hook = EventHook(forward: log)
            let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/d\(d)",
                                     log: SyncLog(sink: hook, device: "\(account.name)/d\(d)", clock: clock))
            devices.append(Device(index: d, account: account, sync: sync, hook: hook))
        }
    }

    /// A store over device `d`'s files, as a process of that device opens it.
    func openStore(_ d: Int, account: Account) throws -> DeviceStore {
        let store = try DeviceStore(directory: directory.appendingPathComponent("devices/\(d)"))
        store.keyring = try Keyring(directory: directory.appendingPathComponent("keychain"), account: account, cloud: cloud)
        return store
    }

    public func run() -> SimulationReport {
        violations += runSeeded(cloud: cloud, clock: clock, accounts: accounts, options: options, step: perform, settle: settle, check: {
            try check()
            return []
        })
        return SimulationReport(seed: options.seed, steps: options.steps, counts: counts, violations: violations)
    }

    func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[random.below(items.count)] }

    private func perform(_ step: Int) throws {
        let harsh = options.faultRate
        let choices: [(Double, String)] = [
            (18, "new"), (14, "edit"), (8, "staleEdit"), (4, "concurrentEdit"), (3, "openEditor"), (5, "typeInEditor"),
            (3, "saveEditor"), (0.5, "leaveEditor"), (2, "resolve"), (1, "trim"), (3, "delete"), (4, "comment"), (1, "notebook"), (2, "move"),
            (3, "sharePost"), (1, "shareNotebook"), (4, "accept"), (1, "remove"), (1, "leave"), (24, "sync"), (4, "look"),
            (2, "restoreVersion"), (1, "restoreDeleted"),
            (intruder == nil ? 0 : 3, "intrude"), (intruder == nil ? 0 : 0.5, "evict"),
            (15 * harsh, "secondProcess"), (10 * harsh, "brokenStore"),
            (3 * harsh, "snapshotCloud"), (0.5 * harsh, "emptyCloud"), (0.5 * harsh, "restoreCloud"),
            // (Last, and weighing nothing when off: the draw of every other step stays as it was.)
            (options.notebookChurn ? 0.7 : 0, "renameNotebook"), (options.notebookChurn ? 0.3 : 0, "deleteNotebook"),
        ]
        var draw = random.unit() * choices.map(\.0).reduce(0, +)
        var action = choices.last!.1
        for (weight, name) in choices {
            if draw < weight { action = name; break }
            draw -= weight
        }
        counts[action, default: 0] += 1
        guard let device = pick(devices) else { return }
        log?.note("step \(step) \(action) on \(device.name)")
        let now = clock.now()
        switch action {
        case "new":
            let books = try device.store.notebooks().filter { $0.scope == .private }
            guard let book = pick(books) else { return }
            let tag = "[t\(step)]"
            let post = Post(id: "p\(step)", zone: book.zone, title: "post \(step)", content: tag,
                            location: random.below(2) == 0 ? "place \(step)" : nil)
            try device.store.save(post, by: device.account.id, on: device.editor.device, now: now)
            typed[post.recordID, default: []].insert(tag)
        case "edit": try edit(on: device, step: step, stale: false, now: now)
        case "staleEdit": try edit(on: device, step: step, stale: true, now: now)
        case "concurrentEdit": try concurrentEdit(from: device, step: step, now: now)
        case "openEditor", "typeInEditor", "saveEditor", "leaveEditor": try editorSession(action, on: device, step: step, now: now)
        case "resolve": try resolve(on: device, now: now)
        case "trim": try trim(on: device, now: now)
        case "look": try look(on: device, step: step)
        case "delete":
            guard let post = pick(try device.store.posts().filter { $0.scope == .private }) else { return }
            markDeleted(post.recordID)
            log?.note("deleted \(post.recordID)")
            try device.store.delete(post)
        case "comment":
            guard let post = pick(try writable(device)) else { return }
            try device.store.add(Comment(id: "c\(step)", postID: post.id, zone: post.zone, scope: post.scope, text: "c\(step)"),
                                 by: device.account.id, now: now)
        case "notebook":
            _ = try device.store.createNotebook("Work", owner: device.account.id)
        case "renameNotebook", "deleteNotebook": try churn(action, on: device, step: step, now: now)
        case "move":
            // Into another of the person's notebooks; its words go with it (and stay in a stale copy another device
            // edits, which brings the post back where it was).
            let books = try device.store.notebooks().filter { $0.scope == .private }
            guard let post = pick(try device.store.posts().filter { $0.scope == .private }),
                  let book = pick(books.filter { $0.zone != post.zone }), try device.store.moveRefusal(post, to: book) == nil else { return }
            var moved: Post?
            guard try fits({ moved = try device.store.move(post, to: book, by: device.account.id, on: device.editor.device, now: now) }),
                  let moved else { return }
            // The words its copy holds go with it; those typed elsewhere and not yet here follow it when they are sent.
            typed[moved.recordID, default: []].formUnion(typed[post.recordID, default: []].intersection(Self.tags(in: post)))
            movedTo[post.recordID] = moved.recordID
            log?.note("moved \(post.recordID) to \(moved.recordID)")
        case "sharePost", "shareNotebook":
            try share(from: device, notebook: action == "shareNotebook")
        case "accept":
            guard let link = pick(urls.filter { $0.owner.id != device.account.id }) else { return }
            _ = try? cloud.acceptShare(link.url, as: device.account)
        case "remove", "leave":
            try endSharing(action, on: device)
        case "intrude":
            guard var eve = intruder else { return }
            let (note, found) = try eve.attack(cloud, accounts: accounts, links: urls.map(\.url), random: random)
            for id in eve.overwritten { removed.formUnion(typed[id, default: []]) }
            eve.overwritten = []
            intruder = eve  // with what she planted
            log?.note("step \(step) eve\(note)")
            violations += (found + (try checkIntruder())).map { "step \(step): \($0)" }
        case "evict": try evict(by: device)
        case "restoreVersion": try restoreVersion(on: device, step: step, now: now)
        case "restoreDeleted": try restoreDeleted(on: device)
        case "secondProcess": try syncWithSecondProcess(device, step: step, now: now)
        case "brokenStore": try syncWithBrokenStore(device)
        case "snapshotCloud": snapshots = Array((snapshots + [try tampering.snapshot()]).suffix(3))
        case "emptyCloud": try tampering.empty()
        case "restoreCloud": if let copy = pick(snapshots) { try tampering.restore(copy) }
        default: sync(device)
        }
    }

    /// Syncs a device; one that finds the cloud emptied or put back rebuilds it, as its person is told to.
    func sync(_ device: Device) {
        do {
            try device.sync.syncNow()
        } catch SyncError.cloudChanged {
            counts["reupload", default: 0] += 1
            try? device.sync.reupload()
        } catch {
            // Transient faults, a store that failed to write: the next sync goes on.
        }
    }

    func writable(_ device: Device) throws -> [Post] {
        let provider = StoreSharingProvider(store: device.store, account: device.account) { $0 }
        return try device.store.posts().filter { provider.canEdit($0) }
    }
}

/// Passes a sync's log lines on, and lets the simulation act in the middle of a sync as another process would.
final class EventHook: SyncLogSink, @unchecked Sendable {
    private let forward: (any SyncLogSink)?
    var onLine: ((String) -> Void)?

    init(forward: (any SyncLogSink)?) { self.forward = forward }

    func write(_ line: String) {
        forward?.write(line)
        onLine?(line)
    }
}
