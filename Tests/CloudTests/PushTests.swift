@testable import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

/// Collects the topics a subscription reports.
final class PushLog: Sendable {
    private let topics = Mutex<[PushTopic]>([])
    func record(_ topic: PushTopic) { topics.withLock { $0.append(topic) } }
    var all: [PushTopic] { topics.withLock { $0 } }
}

@Suite struct PushTests {
    @Test func aCommitOnAnotherConnectionReachesTheSubscriberThroughInotify() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        let log = PushLog()
        let subscription = PushSubscription(
            directory: test.directory.path("notify"), topics: [.database(.private, of: heather.id)], polling: false,
            handler: log.record)
        defer { subscription.cancel() }
        #expect(subscription.isEventDriven)

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
}
