import Cloud
import Foundation
import GRDB
import Notes
import Sync
import Testing
import TestSupport

/// Collects what a live sync reports.
final class Updates: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [LiveSync.Update] = []
    func add(_ update: LiveSync.Update) { lock.withLock { all.append(update) } }
    var arrivals: [Arrival] { lock.withLock { all.flatMap(\.arrivals) } }
    var count: Int { lock.withLock { all.count } }
}

@Suite struct LiveSyncTests {
    @Test func aPushedChangeArrivesWithANoticeAndALocalWriteIsSentSoon() throws {
        let d = try TwoDevices()
        let updates = Updates()
        let live = LiveSync(sync: d.b, random: SeededRandom(seed: 7)) { updates.add($0) }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced && updates.count > 0 })

        // Another device sends; the cloud's push makes b fetch, and the arrival is reported.
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Groceries", content: "milk"))
        try d.a.syncNow()
        #expect(eventually { updates.arrivals.contains { $0.kind == .added && $0.title == "Groceries" && $0.by == d.heather.id } })
        #expect(try d.b.store.post("Groceries").content == "milk")

        // A write on b itself, announced as another process of the device would: sent without being asked.
        var post = try d.b.store.post("Groceries")
        post.content = "milk\neggs"
        try d.b.store.save(post, by: d.heather.id, now: Date())
        #expect(live.status() == .sending(1))
        DeviceLock.wake(directory: d.b.store.directory)
        #expect(eventually { live.status() == .synced })
        try d.a.syncNow()
        #expect(try d.a.store.post("Groceries").content == "milk\neggs")
    }

    /// A device hears the push of its own send like anyone's: it must not run a round that finds nothing.
    @Test func anEditIsSentInOneRoundAndItsOwnPushStartsNoOther() throws {
        let d = try TwoDevices()
        let updates = Updates()
        let live = LiveSync(sync: d.b, random: SeededRandom(seed: 7)) { updates.add($0) }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced && live.counts.rounds == 1 })

        try d.write(d.b, Post(id: "p1", zone: d.notes.zone, title: "Mine"))
        live.changesAdded()
        #expect(eventually { live.status() == .synced && live.counts.pushesDropped >= 1 })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(live.counts.rounds == 2, "\(live.counts)")

        // Another device's edit is news: one round fetches it.
        try d.write(d.a, Post(id: "p2", zone: d.notes.zone, title: "Theirs"))
        try d.a.syncNow()
        #expect(eventually { (try? d.b.store.post("Theirs")) != nil })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(live.counts.rounds == 3, "\(live.counts)")
    }

    @Test func anUnreachableCloudShowsOfflineWithWhatWaitsAndNothingIsLost() throws {
        let d = try TwoDevices()
        // The live device reads the fault switch from the cloud's directory, as every process does.
        let switchable = try TestStore.open(directory: d.test.directory.url, clock: d.test.clock, random: SeededRandom(seed: 3), faults: nil)
        let b = try NotesSync(store: d.b.store, cloud: switchable, account: FixedAccount(d.heather))
        var timing = SyncTiming()
        timing.backoffCap = 0.5
        let live = LiveSync(sync: b, timing: timing, random: SeededRandom(seed: 7)) { _ in }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced })
        try switchable.setFaultPlan(.unreachable)
        try d.write(b, Post(id: "p2", zone: d.notes.zone, title: "Offline note"))
        live.changesAdded()
        #expect(eventually { if case .offline(waiting: 1, retryAt: let at?) = live.status() { at > Date() - 1 } else { false } },
                "offline, one change waiting, and when it tries again")
        #expect(try b.store.post("Offline note").title == "Offline note")  // kept locally
        try switchable.setFaultPlan(.off)
        #expect(eventually(timeout: 10) { live.status() == .synced })  // retried after the back-off, unasked
        try d.a.syncNow()
        #expect(try d.a.store.post("Offline note").title == "Offline note")
    }
}

@Suite struct DamagedStateTests {
    @Test func aDeviceWhoseSavedSyncStateIsDamagedStartsAfreshAndLosesNothing() throws {
        let d = try TwoDevices()
        try d.write(d.b, Post(id: "p1", zone: d.notes.zone, title: "Written before the damage"))
        // Garbage where the engine's state was saved (a torn write, a bad disk).
        let file = try DatabaseQueue(path: d.b.store.directory.appendingPathComponent("private.sqlite").path)
        try file.write { try $0.execute(sql: "UPDATE sync_state SET serialization = x'7b2276657273696f6e223a' WHERE id = 1") }
        #expect(try file.read { try Data.fetchOne($0, sql: "SELECT serialization FROM sync_state WHERE id = 1") } == Data(#"{"version":"#.utf8))

        let reopened = try NotesSync(store: try DeviceStore(directory: d.b.store.directory), cloud: d.test.cloud, account: FixedAccount(d.heather))
        try reopened.syncNow()
        try d.a.syncNow()
        #expect(try d.a.store.post("Written before the damage").title == "Written before the damage")
        #expect(try reopened.store.pendingCount() == 0)
    }
}

/// The status leaves "synced" within seconds of the cloud going away, with nothing typed and no key pressed, and
/// comes back as soon as the cloud answers again (not at the end of a long back-off).
@Suite struct HeartbeatTests {
    @Test func anIdleDeviceSeesTheCloudGoAndComeBack() throws {
        let d = try TwoDevices(faults: nil)
        var timing = SyncTiming()
        timing.heartbeat = 0.2
        timing.backoffBase = 30  // a round's own retry would come far too late to pass
        let live = LiveSync(sync: d.b, timing: timing, random: SeededRandom(seed: 7)) { _ in }
        live.start()
        defer { live.stop() }
        #expect(eventually { live.status() == .synced })

        try d.test.cloud.setFaultPlan(.unreachable)
        #expect(eventually(timeout: 3) { if case .offline = live.status() { true } else { false } }, "\(live.status())")

        try d.test.cloud.setFaultPlan(.off)
        #expect(eventually(timeout: 3) { live.status() == .synced }, "\(live.status())")
    }
}

extension HeartbeatTests {
    /// A second front end of the device, which follows the syncing one, says what that one sees.
    @Test func aFollowingProcessSaysWhatTheSyncingOneSees() throws {
        let d = try TwoDevices(faults: nil)
        var timing = SyncTiming()
        timing.heartbeat = 0.2
        let store = d.b.store
        let leader = DeviceSync(store: store, timing: timing, makeSync: { d.b }, onUpdate: { _ in })
        leader.start()
        defer { leader.stop() }
        #expect(eventually { leader.isSyncing })
        let follower = DeviceSync(store: try DeviceStore(directory: store.directory), timing: timing,
                                  makeSync: { throw StoreError.invalid("the follower never syncs here") }, onUpdate: { _ in })
        follower.start()
        defer { follower.stop() }
        #expect(eventually { follower.status() == .elsewhere(waiting: 0) })

        try d.test.cloud.setFaultPlan(.unreachable)
        #expect(eventually(timeout: 3) { if case .offline = follower.status() { true } else { false } }, "\(follower.status())")
        try d.test.cloud.setFaultPlan(.off)
        #expect(eventually(timeout: 3) { follower.status() == .elsewhere(waiting: 0) }, "\(follower.status())")
    }
}
