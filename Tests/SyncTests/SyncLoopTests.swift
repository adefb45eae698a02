import Cloud
import Foundation
import Sync
import SyncSimulation
import Synchronization
import Testing
import TestSupport

/// The rounds a loop ran, in order.
final class RoundLog: Sendable {
    private let rounds = Mutex<[SyncRound]>([])
    func add(_ round: SyncRound) { rounds.withLock { $0.append(round) } }
    var all: [SyncRound] { rounds.withLock { $0 } }
}

@Suite struct SyncLoopTests {
    /// A loop over both of a device's engines that records each round before running it as the default loop does.
    private func loop(_ device: MemoryDevice, _ cloud: any Cloud, rounds: RoundLog) -> SyncLoop {
        let engines = [device.engine(.private), device.engine(.shared)]
        return SyncLoop(engines: engines, pushes: cloud, random: SeededRandom(seed: 1)) { round in
            rounds.add(round)
            for engine in engines {
                if round.fetch.contains(engine.scope) { try engine.fetchChanges() }
                if round.send.contains(engine.scope) { try engine.sendChanges() }
            }
        }
    }

    @Test func aSendIsNotFollowedByARoundForItsOwnPush() throws {
        let f = try SyncFixture()
        let rounds = RoundLog()
        let loop = loop(f.a, f.test.cloud, rounds: rounds)
        loop.start()
        defer { loop.stop() }
        #expect(eventually { rounds.all.count == 1 && !f.a.engine(.private).isSyncing })

        f.a.write(f.id("p1"), fields: ["title": "mine"], in: .private)
        loop.changesAdded([.private])
        #expect(eventually { f.a.engine(.private).state.pendingRecordZoneChanges.isEmpty && loop.counts.pushesDropped >= 1 })
        Thread.sleep(forTimeInterval: 0.3)  // the push of the send has long arrived
        #expect(rounds.all == [.everything([.private, .shared]), SyncRound(send: [.private])], "\(rounds.all)")
    }

    @Test func anotherDevicesChangeIsFetchedFromTheDatabaseItChangedOnly() throws {
        let f = try SyncFixture()
        let rounds = RoundLog()
        let loop = loop(f.b, f.test.cloud, rounds: rounds)
        loop.start()
        defer { loop.stop() }
        #expect(eventually { rounds.all.count == 1 && !f.b.engine(.private).isSyncing })

        f.a.write(f.id("p1"), fields: ["title": "from A"], in: .private)
        try f.send(f.a)
        #expect(eventually { f.title("p1", on: f.b) == "from A" })
        #expect(rounds.all.dropFirst().allSatisfy { $0 == SyncRound(fetch: [.private]) }, "\(rounds.all)")
    }

    /// The rule behind dropping pushes, step by step: a device's own commit counts as seen only when nobody
    /// else's came between what it last fetched and it.
    @Test func anOwnCommitIsSeenOnlyWhenItFollowedWhatTheEngineHadSeen() throws {
        let f = try SyncFixture()
        let engine = f.a.engine(.private)
        let topic = try #require(engine.pushTopic)
        try f.fetch(f.a)
        let fetched = try f.test.cloud.identity().sequence
        #expect(engine.hasSeen(Push(topic: topic, sequence: fetched)))

        // Another device commits, then this one: this one's push may not be skipped (B's change is unseen).
        f.b.write(f.id("b1"), fields: ["title": "B"], in: .private)
        try f.send(f.b)
        f.a.write(f.id("a1"), fields: ["title": "A"], in: .private)
        try f.send(f.a)
        let afterBoth = try f.test.cloud.identity().sequence
        #expect(!engine.hasSeen(Push(topic: topic, sequence: afterBoth)))

        // Once fetched, the next own commit follows only what it saw: its push is no news, a later one is.
        try f.fetch(f.a)
        f.a.write(f.id("a2"), fields: ["title": "A again"], in: .private)
        try f.send(f.a)
        let own = try f.test.cloud.identity().sequence
        #expect(engine.hasSeen(Push(topic: topic, sequence: own)))
        #expect(!engine.hasSeen(Push(topic: topic, sequence: own + 1)))
    }
}
