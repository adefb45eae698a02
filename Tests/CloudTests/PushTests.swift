@testable import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

/// Collects the pushes a subscription reports.
final class PushLog: Sendable {
    private let pushes = Mutex<[Push]>([])
    func record(_ push: Push) { pushes.withLock { $0.append(push) } }
    var all: [PushTopic] { pushes.withLock { $0.map(\.topic) } }
    var sequences: [Int64] { pushes.withLock { $0.map(\.sequence) } }
}

@Suite struct PushTests {
    /// Through inotify alone (no polling) on the file; through LISTEN on PostgreSQL.
    @Test func aCommitOnAnotherConnectionReachesTheSubscriber() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        let log = PushLog()
        let topics: Set<PushTopic> = [.database(.private, of: heather.id)]
        let subscription: any PushWatch
        if TestStore.isPostgres {
            subscription = test.cloud.subscribe(to: topics, handler: log.record)
        } else {
            let files = PushSubscription(directory: test.directory.path("notify"), topics: topics, polling: false, handler: log.record)
            #expect(files.isEventDriven)
            subscription = files
        }
        defer { subscription.cancel() }

        let other = try test.reopen()
        try other.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))

        #expect(eventually { !log.all.isEmpty })
        #expect(log.all.first == .database(.private, of: heather.id))
    }

    @Test func onlyTheAffectedAccountsAndDatabasesHear() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather"), mary = try test.cloud.createAccount(name: "mary")
        let log = PushLog()
        let subscription = test.cloud.subscribe(
            to: [.database(.private, of: mary.id), .database(.shared, of: heather.id), .publicDatabase], handler: log.record)
        defer { subscription.cancel() }

        try test.cloud.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))
        try test.cloud.database(.public, as: heather).save(.make("n", in: ZoneID(name: ZoneID.defaultName)))

        #expect(eventually { log.all.contains(.publicDatabase) })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(log.all == [.publicDatabase])
    }

    @Test func aCancelledSubscriptionHearsNothing() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather")
        let log = PushLog()
        let subscription = heather.subscribe(log.record)
        subscription.cancel()

        try heather.save(zone: ZoneID(name: "Notes"))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(log.all.isEmpty)
    }

    @Test func aRequestThatChangesNothingPostsNothing() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather")
        try heather.save(zone: ZoneID(name: "Notes"))
        let log = PushLog()
        let subscription = heather.subscribe(log.record)
        defer { subscription.cancel() }

        try heather.save(zone: ZoneID(name: "Notes"))  // already there
        _ = try? heather.save(.make("x", in: ZoneID(name: "Missing")))

        Thread.sleep(forTimeInterval: 0.2)
        #expect(log.all.isEmpty)
    }

    @Test func aPushCarriesTheSequenceNumberOfTheCommitThatMadeIt() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather")
        let log = PushLog()
        let subscription = heather.subscribe(log.record)
        defer { subscription.cancel() }

        let made = try heather.modifyZones(saving: [ZoneID(name: "Notes")], deleting: [])
        let commit = try #require(made.commit)
        #expect(eventually { log.sequences.contains(commit.sequence) })
    }

    /// What lets a device drop the push of its own change: the commit names the one before it in the database,
    /// whoever made it, and commits elsewhere do not count.
    @Test func aCommitNamesTheCommitBeforeItInTheCallersDatabase() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather"), mary = try test.privateDatabase("mary")
        let zone = ZoneID(name: "Notes")
        let first = try #require(try heather.modifyZones(saving: [zone], deleting: []).commit)
        _ = try mary.modifyZones(saving: [zone], deleting: [])  // another account's database: not heather's news
        let second = try #require(try heather.modifyRecords(saving: [.make("a", in: zone)]).commit)
        #expect(second.previous == first.sequence)
        #expect(second.sequence > first.sequence)

        // Another device of heather's (another connection) commits: the next commit follows that one.
        let elsewhere = try test.reopen().database(.private, as: heather.caller)
        let third = try #require(try elsewhere.modifyRecords(saving: [.make("b", in: zone)]).commit)
        let fourth = try #require(try heather.modifyRecords(saving: [.make("c", in: zone)]).commit)
        #expect(third.previous == second.sequence)
        #expect(fourth.previous == third.sequence)

        // A request that changes nothing commits nothing to tell.
        #expect(try heather.modifyZones(saving: [zone], deleting: []).commit == nil)
        #expect(try heather.modifyRecords(saving: [.make("x", in: ZoneID(name: "Missing"))]).commit == nil)
    }
}
