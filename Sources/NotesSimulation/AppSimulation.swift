import Cloud
import Foundation
import Notes
import Sync
import SyncSimulation

/// `cloudnotes-sim --app`: devices of several accounts using the app itself
/// (real device stores, the sync delegate, merges, sealed locations, shares)
/// against one cloud, in steps drawn from a seed, with transient faults.
///
/// Every edit appends a line carrying a unique tag, so the check can tell
/// whether any typed text was lost: each tag typed into a post that still
/// exists must be in it, on every device that shows the post.
public final class AppSimulation {
    struct Device {
        let name: String
        let account: Account
        let sync: NotesSync
        var store: DeviceStore { sync.store }
    }

    let options: SimulationOptions
    let random: SeededRandom
    let clock = ManualClock()
    let cloud: Cloud
    var accounts: [Account] = []
    var devices: [Device] = []
    var counts: [String: Int] = [:]
    var violations: [String] = []
    /// Tags typed into each post (by record name), and edits the cloud refused (their tags may go).
    var typed: [String: Set<String>] = [:]
    var refusedPosts: Set<String> = []
    var deletedPosts: Set<String> = []
    var urls: [(url: ShareURL, owner: Account)] = []

    public init(_ options: SimulationOptions, directory: URL, log: (any SyncLogSink)? = nil) throws {
        self.options = options
        random = SeededRandom(seed: options.seed)
        cloud = try Cloud(directory: directory.appendingPathComponent("cloud"), clock: clock,
                          random: SeededRandom(seed: options.seed &+ 0x5EED), faults: nil, environment: [:])
        for a in 0..<max(1, options.accounts) { accounts.append(try cloud.createAccount(name: "a\(a)")) }
        for d in 0..<max(1, options.devices) {
            let account = accounts[d % accounts.count]
            let store = try DeviceStore(directory: directory.appendingPathComponent("devices/\(d)"))
            let keyring = try Keyring(directory: directory.appendingPathComponent("keychain"), account: account, cloud: cloud)
            try keyring.publish()
            store.keyring = keyring
            _ = try store.ensureDefaultNotebook(owner: account.id)
            let name = "\(account.name)/d\(d)"
            let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: name,
                                     log: log.map { SyncLog(sink: $0, device: name, clock: clock) })
            devices.append(Device(name: "\(account.name)/d\(d)", account: account, sync: sync))
        }
    }

    public func run() -> SimulationReport {
        violations += runSeeded(cloud: cloud, clock: clock, accounts: accounts, options: options, step: perform, settle: settle, check: {
            try check()
            return []
        })
        return SimulationReport(seed: options.seed, steps: options.steps, counts: counts, violations: violations)
    }

    private func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[random.below(items.count)] }

    private func perform(_ step: Int) throws {
        let choices: [(Double, String)] = [
            (20, "new"), (25, "edit"), (5, "concurrentEdit"), (4, "delete"), (5, "comment"), (1, "notebook"),
            (4, "sharePost"), (1, "shareNotebook"), (5, "accept"), (1, "remove"), (1, "leave"), (30, "sync"),
        ]
        var draw = random.unit() * choices.map(\.0).reduce(0, +)
        var action = choices.last!.1
        for (weight, name) in choices {
            if draw < weight { action = name; break }
            draw -= weight
        }
        counts[action, default: 0] += 1
        guard let device = pick(devices) else { return }
        let now = clock.now()
        switch action {
        case "new":
            let books = try device.store.notebooks().filter { $0.scope == .private }
            guard let book = pick(books) else { return }
            let id = "p\(step)"
            let tag = "t\(step)"
            typed[id, default: []].insert(tag)
            try device.store.save(Post(id: id, zone: book.zone, title: "post \(step)", content: tag,
                                       location: random.below(2) == 0 ? "place \(step)" : nil), by: device.account.id, now: now)
        case "edit":
            try edit(on: device, step: step, now: now)
        case "concurrentEdit":
            // Two devices of one account edit the same post before either syncs.
            let mates = devices.filter { $0.account.id == device.account.id }
            guard mates.count > 1, let post = pick(try device.store.posts().filter { $0.scope == .private }) else { return }
            for (i, mate) in mates.prefix(2).enumerated() {
                // By exact ID: `post(_:)` also takes an ID prefix, as people type it.
                guard var copy = try mate.store.posts().first(where: { $0.recordID == post.recordID }) else { continue }
                let tag = "t\(step)-\(i)"
                copy.content += "\n" + tag
                typed[post.id, default: []].insert(tag)
                try mate.store.save(copy, by: mate.account.id, now: now)
            }
        case "delete":
            guard let post = pick(try device.store.posts().filter { $0.scope == .private }) else { return }
            deletedPosts.insert(post.id)
            try device.store.delete(post)
        case "comment":
            guard let post = pick(try writable(device)) else { return }
            try device.store.add(Comment(id: "c\(step)", postID: post.id, zone: post.zone, scope: post.scope, text: "c\(step)"),
                                 by: device.account.id, now: now)
        case "notebook":
            _ = try device.store.createNotebook("Work", owner: device.account.id)
        case "sharePost", "shareNotebook":
            try share(from: device, notebook: action == "shareNotebook")
        case "accept":
            guard let link = pick(urls.filter { $0.owner.id != device.account.id }) else { return }
            _ = try? cloud.acceptShare(link.url, as: device.account)
        case "remove", "leave":
            try endSharing(action, on: device)
        default:
            try? device.sync.syncNow()
        }
    }

    private func writable(_ device: Device) throws -> [Post] {
        let provider = StoreSharingProvider(store: device.store, account: device.account) { $0 }
        return try device.store.posts().filter { provider.canEdit($0) }
    }

    private func edit(on device: Device, step: Int, now: Date) throws {
        guard var post = pick(try writable(device)) else { return }
        let tag = "t\(step)"
        post.content += "\n" + tag
        if random.below(4) == 0 { post.title = "title \(step)" }
        typed[post.id, default: []].insert(tag)
        try device.store.save(post, by: device.account.id, now: now)
    }

    private func share(from device: Device, notebook: Bool) throws {
        let db = cloud.database(.private, as: device.account)
        let others = accounts.filter { $0.id != device.account.id }
        var share: Share
        var root: Record?
        if notebook {
            guard let book = pick(try device.store.notebooks().filter { $0.scope == .private }) else { return }
            share = Share(zoneWide: book.zone, title: book.title)
        } else {
            guard let post = pick(try device.store.posts().filter { $0.scope == .private }),
                  let record = try? device.store.record(for: post.recordID, in: .private) else { return }
            share = Share(rootRecord: post.recordID, title: post.title)
            root = record
        }
        for other in others where random.below(2) == 0 {
            guard let participant = try? db.lookUpParticipant(accountName: other.name) else { continue }
            share.addParticipant(participant, permission: random.below(2) == 0 ? .readWrite : .readOnly)
        }
        guard let saved = try? db.saveShare(share, rootRecord: root), let url = saved.url else {
            counts["shareRefused", default: 0] += 1
            return
        }
        try? device.store.keyring?.grant(zone: saved.share.id.zone, root: saved.share.rootRecord,
                                         to: saved.share.participants.compactMap(\.userRecordID))
        urls.append((url, device.account))
    }

    private func endSharing(_ action: String, on device: Device) throws {
        guard let link = pick(urls) else { return }
        guard let metadata = try? cloud.fetchShareMetadata(link.url, as: link.owner) else { return }
        if action == "remove" {
            let others = accounts.filter { $0.id != link.owner.id }
            guard let other = pick(others) else { return }
            _ = try? cloud.database(.private, as: link.owner).removeParticipant(other.id, from: metadata.share)
        } else if device.account.id != link.owner.id {
            _ = try? cloud.database(.shared, as: device.account).deleteShare(metadata.share)
        }
    }

    // MARK: Settling and checking

    private func settle() throws {
        for _ in 0..<20 {
            for device in devices { try? device.sync.syncNow() }
            if try devices.allSatisfy({ try $0.store.pendingCount() == 0 }) { break }
        }
        for device in devices { try device.sync.syncNow() }
        for device in devices { refusedPosts.formUnion(device.sync.refusals.map(\.id.name)) }
    }

    private func check() throws {
        var views: [String: [String: Post]] = [:]  // post ID → device → post
        for device in devices {
            if try device.store.pendingCount() != 0 { violations.append("\(device.name): changes still pending") }
            for post in try device.store.posts() { views[post.id, default: [:]][device.name] = post }
        }
        for (id, seen) in views {
            func describe(_ post: Post) -> String { "\(post.title)|\(post.content)|\(post.tags)|\(post.location ?? "-")" }
            if Set(seen.values.map(describe)).count > 1 {
                violations.append("post \(id) differs between devices: \(seen.map { "\($0.key): \(describe($0.value).debugDescription)" }.sorted())")
            }
            // Text in a post someone deleted went with it, even if a concurrent edit brought the post back.
            guard !refusedPosts.contains(id), !deletedPosts.contains(id) else { continue }
            for (device, post) in seen {
                for tag in typed[id, default: []] where !post.content.split(separator: "\n").contains(where: { $0.contains(tag) }) {
                    violations.append("\(device): post \(id) lost the typed text \(tag)")
                }
            }
        }
        // Devices of one account hold the same posts.
        for account in accounts {
            let mine = devices.filter { $0.account.id == account.id }
            let sets = try mine.map { Set(try $0.store.posts().map(\.id)) }
            if Set(sets).count > 1 { violations.append("\(account.name)'s devices show different posts") }
        }
    }
}
