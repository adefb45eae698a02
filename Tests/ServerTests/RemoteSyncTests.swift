import Cloud
@testable import CloudClient
import Crypto
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// Devices with no directory in common but the server's: each has its own data directory and its own key.
struct RemoteDevices {
    let f: ServerFixture
    let dir = TemporaryDirectory("remote-devices")

    init() throws { f = try ServerFixture() }

    /// A new device of heather's: enrolled with a code of its own, syncing through the server.
    func device(_ name: String, observer: (@Sendable (String, Double, Int) -> Void)? = nil) throws -> NotesSync {
        let key = P256.Signing.PrivateKey()
        let credentials = try RemoteCloud.enrol(server: f.server.url, code: try f.cloud.makeEnrolmentCode(for: f.heather), key: key,
                                                deviceName: "heather/\(name)")
        let cloud = RemoteCloud(server: f.server.url, credentials: credentials, timeout: 5, observer: observer)
        return try NotesSync(store: try DeviceStore(directory: dir.path(name)), cloud: cloud, account: FixedAccount(credentials.account))
    }
}

/// The paths of a device's exchanges, in order.
final class Paths: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [String] = []
    func add(_ path: String) { lock.withLock { all.append(path) } }
    func take() -> [String] { lock.withLock { defer { all = [] }; return all } }
    func count(endingWith suffix: String) -> Int { lock.withLock { all.filter { $0.hasSuffix(suffix) }.count } }
}

/// Counts the rounds a live sync reported finished.
final class RoundsDone: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    func add() { lock.withLock { done += 1 } }
    var count: Int { lock.withLock { done } }
}

@Suite(.serialized) struct RemoteSyncTests {
    @Test func postsTravelBetweenDevicesThroughTheServer() throws {
        let r = try RemoteDevices()
        let a = try r.device("a"), b = try r.device("b")
        let notes = try a.store.ensureDefaultNotebook(owner: r.f.heather.id)
        try a.store.save(Post(id: "p1", zone: notes.zone, title: "Groceries", content: "milk", tags: ["home"]), by: r.f.heather.id, now: Date())
        try a.syncNow()
        try b.syncNow()
        #expect(try b.store.post("Groceries").content == "milk")
        #expect(try b.store.post("Groceries").tags == ["home"])

        // Both edit the same post from the copy they hold: the merge keeps both.
        var onA = try a.store.post("Groceries"), onB = try b.store.post("Groceries")
        onA.content = "milk\neggs"
        onB.content = "bread\nmilk"
        try a.store.save(onA, by: r.f.heather.id, now: Date())
        try b.store.save(onB, by: r.f.heather.id, now: Date())
        try a.syncNow()
        try b.syncNow()
        try a.syncNow()
        let merged = try a.store.post("Groceries").content
        #expect(merged.contains("eggs") && merged.contains("bread"), "\(merged)")
        #expect(try b.store.post("Groceries").content == merged)
        // The server's own copy is what both hold.
        #expect(try r.f.zones() == ["Notes"])
    }

    /// Every answer names the cloud that gave it, so a round does not ask for it before each fetch and send.
    /// A move through the server: the copy names its original, a stale one waits for a merge, and the post keeps
    /// its history and its age.
    /// Devices a and b of heather's both holding "Trip" (tickets); `beforeEdit` happens on a, then b adds "visa".
    func tripEditedOnB(_ r: RemoteDevices, beforeEdit: (NotesSync) throws -> Void = { _ in }) throws -> (a: NotesSync, b: NotesSync) {
        let a = try r.device("a"), b = try r.device("b")
        let notes = try a.store.ensureDefaultNotebook(owner: r.f.heather.id)
        try a.store.save(Post(id: "p1", zone: notes.zone, title: "Trip", content: "tickets"), by: r.f.heather.id, now: Date())
        try a.syncNow()
        try b.syncNow()
        try beforeEdit(a)
        var onB = try b.store.post("Trip")
        onB.content = "tickets\nvisa"
        try b.store.save(onB, by: r.f.heather.id, now: Date())
        try b.syncNow()
        return (a, b)
    }

    @Test func aMoveThroughTheServerIsCheckedAndKeepsTheHistory() throws {
        let r = try RemoteDevices()
        let (a, b) = try tripEditedOnB(r)

        let travel = try a.store.createNotebook("Travel", owner: r.f.heather.id)
        let created = try a.store.post("Trip").createdAt
        try a.store.move(try a.store.post("Trip"), to: travel, by: r.f.heather.id, now: Date())  // from the copy before b's edit
        try a.syncNow()
        try b.syncNow()
        for device in [a, b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nvisa" && posts.first?.createdAt == created,
                    "\(posts.map { ($0.zone.name, $0.content) })")
        }
        let history = try PostHistory(store: a.store, cloud: a.cloud, account: try #require(a.account.currentAccount())).versions(of: try a.store.post("Trip"))
        #expect(history.map(\.post.content).contains("tickets"), "\(history.map(\.post.content))")
    }

    /// A deletion travels as `delete` with the change tag its device saw: the server refuses it where the post changed
    /// since, and the post comes back with the edit.
    @Test func aDeletionThroughTheServerIsCheckedAgainstTheVersionItsDeviceSaw() throws {
        let r = try RemoteDevices()
        let (a, _) = try tripEditedOnB(r) { a in try a.store.delete(try a.store.post("Trip")) }
        try a.syncNow()

        #expect(try a.store.posts().map(\.content) == ["tickets\nvisa"])
        #expect(a.takeNews().refusals.map(\.description).first?.contains("not deleted") == true)
    }

    /// The trash through the server: a post restored comes back with its comment and its age.
    @Test func aPostRestoredThroughTheServerComesBackWithItsComment() throws {
        let r = try RemoteDevices()
        let a = try r.device("a")
        let notes = try a.store.ensureDefaultNotebook(owner: r.f.heather.id)
        try a.store.save(Post(id: "p1", zone: notes.zone, title: "Trip", content: "tickets"), by: r.f.heather.id, now: Date())
        try a.store.add(Comment(id: "c1", postID: "p1", zone: notes.zone, scope: .private, text: "book early"), by: r.f.heather.id, now: Date())
        try a.syncNow()
        let created = try a.store.post("Trip").createdAt
        try a.store.delete(try a.store.post("Trip"))
        try a.syncNow()

        let history = PostHistory(store: a.store, cloud: a.cloud, account: try #require(a.account.currentAccount()))
        let back = try history.restoreDeleted(try #require(try history.trash().first))
        #expect(back.title == "Trip" && back.createdAt == created)
        #expect(try a.store.comments(on: try a.store.post("Trip")).map(\.text) == ["book early"])
    }

    /// A notebook deletion through the server names the token its device fetched the notebook to: refused where a
    /// post was written into it since, the notebook comes back with that post.
    @Test func aNotebookDeletionThroughTheServerIsRefusedWhereItChangedSince() throws {
        let r = try RemoteDevices()
        let a = try r.device("a"), b = try r.device("b")
        let travel = try a.store.createNotebook("Travel", owner: r.f.heather.id)
        try a.store.save(Post(id: "p1", zone: travel.zone, title: "Tickets", content: "book"), by: r.f.heather.id, now: Date())
        try a.syncNow()
        try b.syncNow()
        try a.store.deleteNotebook(travel)
        try b.store.save(Post(id: "p2", zone: travel.zone, title: "Visa", content: "apply"), by: r.f.heather.id, now: Date())
        try b.syncNow()
        try a.syncNow()
        try a.syncNow()

        #expect(Set(try a.store.posts().map(\.title)) == ["Tickets", "Visa"])
        #expect(a.takeNews().refusals.map(\.description).first?.contains("not deleted") == true)
    }

    @Test func aRoundAsksForTheCloudsIdentityOnlyWhenNoAnswerNamedItLately() throws {
        let r = try RemoteDevices()
        let paths = Paths()
        let a = try r.device("a", observer: { path, _, _ in paths.add(path) })
        try a.syncNow()
        let first = paths.take()
        try a.syncNow()
        let second = paths.take()
        #expect(first.filter { $0.hasSuffix("/cloud/identity") }.count <= 1, "\(first)")
        #expect(!second.contains { $0.hasSuffix("/cloud/identity") }, "\(second)")
        #expect(second.count <= 4, "an idle round: each database's changes, little more: \(second)")
        Thread.sleep(forTimeInterval: 1.1)
        try a.syncNow()
        #expect(paths.take().filter { $0.hasSuffix("/cloud/identity") }.count == 1, "asked again once the last answer is old")
    }

    @Test func aLiveDeviceHearsAnotherDevicesEditOverTheLongPoll() throws {
        let r = try RemoteDevices()
        let a = try r.device("a"), b = try r.device("b")
        let notes = try a.store.ensureDefaultNotebook(owner: r.f.heather.id)
        try a.syncNow()
        let rounds = RoundsDone()
        let live = LiveSync(sync: b, random: SeededRandom(seed: 3)) { if $0.started > 0 { rounds.add() } }
        live.start()
        defer { live.stop() }
        #expect(eventually { rounds.count >= 1 })
        let before = live.counts.rounds

        try a.store.save(Post(id: "p2", zone: notes.zone, title: "Live", content: "now"), by: r.f.heather.id, now: Date())
        try a.syncNow()
        #expect(eventually(timeout: 10) { (try? b.store.post("Live")) != nil }, "pushed, not asked for")
        #expect(live.counts.rounds > before)
    }

    @Test func changesMadeWhileTheServerIsDownWaitAndGoOutWhenItIsBack() throws {
        let r = try RemoteDevices()
        let a = try r.device("a"), b = try r.device("b")
        let notes = try a.store.ensureDefaultNotebook(owner: r.f.heather.id)
        try a.syncNow()
        let port = r.f.server.port
        r.f.server.kill()

        try a.store.save(Post(id: "p3", zone: notes.zone, title: "Offline", content: "typed on a train"), by: r.f.heather.id, now: Date())
        #expect(throws: CloudError.self) { try a.syncNow() }
        #expect(try a.store.pendingCount() > 0, "kept, waiting")

        let again = try TestServer(cloud: r.f.directory.url, listen: "127.0.0.1:\(port)")
        defer { again.stop() }
        try a.syncNow()
        try b.syncNow()
        #expect(try b.store.post("Offline").content == "typed on a train")
    }
}

/// A device whose server stops answering, or which the operator revokes, says so within seconds with nothing typed.
@Suite(.serialized) struct RemoteHeartbeatTests {
    @Test func aRevokedDeviceLeavesSyncedWithinSeconds() throws {
        let r = try RemoteDevices()
        let b = try r.device("b")
        var timing = SyncTiming()
        timing.heartbeat = 0.3
        let rounds = RoundsDone()
        let live = LiveSync(sync: b, timing: timing, random: SeededRandom(seed: 3)) { if $0.started > 0 { rounds.add() } }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced && rounds.count > 0 })
        Thread.sleep(forTimeInterval: 0.5)  // idle: nothing left for a round to find
        let remote = try #require(b.cloud as? RemoteCloud)
        try r.f.cloud.revokeDevice(keyID: remote.credentials.keyID)
        #expect(eventually(timeout: 4) { if case .error(let why) = live.status() { why.contains("not signed in") } else { false } },
                "\(live.status())")
    }

    @Test func aDeadServerShowsOfflineWithinSeconds() throws {
        let r = try RemoteDevices()
        let b = try r.device("b")
        var timing = SyncTiming()
        timing.heartbeat = 0.3
        let rounds = RoundsDone()
        let live = LiveSync(sync: b, timing: timing, random: SeededRandom(seed: 3)) { if $0.started > 0 { rounds.add() } }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced && rounds.count > 0 })
        Thread.sleep(forTimeInterval: 0.5)  // idle: nothing left for a round to find
        r.f.server.kill()
        #expect(eventually(timeout: 4) { if case .offline = live.status() { true } else { false } }, "\(live.status())")
    }
}
