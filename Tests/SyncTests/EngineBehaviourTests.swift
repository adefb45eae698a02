import Cloud
import Foundation
import Sync
import SyncSimulation
import Testing
import TestSupport

@Suite struct EngineBehaviourTests {
    @Test func eventsArriveInOrderAroundAFetchAndASend() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        let db = test.cloud.database(.private, as: heather)
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("p1", in: zone))
        let recorder = EventRecorder()
        let engine = try SyncEngine(.init(database: db, stateSerialization: nil, delegate: recorder, automaticallySync: false))

        try engine.fetchChanges()

        // The token of a fetched zone is saved only after the app has finished with the zone.
        let expected = ["accountChange", "stateUpdate", "willFetchChanges", "fetchedDatabaseChanges", "stateUpdate",
                        "willFetchRecordZoneChanges", "fetchedRecordZoneChanges", "didFetchRecordZoneChanges",
                        "stateUpdate", "didFetchChanges"]
        #expect(recorder.all == expected)

        recorder.batchRecords = [.make("p2", in: zone)]
        let before = recorder.all.count
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(RecordID(name: "p2", zone: zone))])
        try engine.sendChanges()
        #expect(Array(recorder.all[before...]) == ["stateUpdate", "willSendChanges", "sentRecordZoneChanges", "stateUpdate", "didSendChanges"])
    }

    /// An engine does not hand the app its own saves back; what another device changed since does come.
    @Test func aFetchLeavesOutTheEnginesOwnSavesUnlessChangedSince() throws {
        let f = try SyncFixture()
        try f.fetch(f.a)
        try f.fetch(f.b)
        for name in ["r1", "r2"] { f.a.write(f.id(name), fields: ["title": name], in: .private) }
        try f.send(f.a)
        try f.fetch(f.b)
        f.b.write(f.id("r2"), fields: ["title": "r2 from B"], in: .private)
        try f.send(f.b)

        try f.fetch(f.a)

        let fetched = f.log.lines.filter { $0.contains("heather/A private event fetchedRecordZoneChanges") }
        #expect(fetched.count == 1)
        #expect(fetched.first?.contains("r2@") == true && fetched.first?.contains("r1@") == false)
        #expect(f.title("r2", on: f.a) == "r2 from B" && f.title("r1", on: f.a) == "r1")
    }

    @Test func anAccountChangeIsPostedFirstAndTheOldAccountsStateIsForgotten() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather"), mary = try test.cloud.createAccount(name: "mary")
        let device = try MemoryDevice(name: "laptop", cloud: test.cloud, account: heather)
        let zone = ZoneID(name: "Notes", owner: heather.id)
        device.createZone(zone)
        device.write(RecordID(name: "p1", zone: zone), fields: ["title": "heather's"], in: .private)
        try device.engine(.private).sendChanges()
        device.write(RecordID(name: "p2", zone: zone), fields: ["title": "unsent"], in: .private)

        device.account.signIn(mary)
        try device.engine(.private).fetchChanges()

        #expect(device.items(.private).isEmpty, "heather's data is no longer shown")
        #expect(device.engine(.private).state.pendingRecordZoneChanges.isEmpty, "and never reaches mary's database")
        #expect(try test.cloud.database(.private, as: mary).allZones().isEmpty)
        device.account.signIn(nil)
        #expect(throws: SyncError.signedOut) { try device.engine(.private).fetchChanges() }
    }

    @Test func aBatchOverTheCloudsLimitsIsSplitAndSent() throws {
        var limits = CloudLimits()
        limits.maxItemsPerRequest = 7
        let f = try SyncFixture(limits: limits)
        for i in 0..<30 { f.a.write(f.id("r\(i)"), fields: ["title": "\(i)"], in: .private) }

        try f.send(f.a)

        #expect(f.a.engine(.private).state.pendingRecordZoneChanges.isEmpty)
        #expect(try f.test.cloud.database(.private, as: f.heather).zoneChanges(in: f.zone, since: nil).modified.count == 30)
        #expect(f.log.lines.contains { $0.contains("error modifyRecords limitExceeded") })
    }

    @Test func aTransientErrorStopsTheSendAndKeepsEverythingPending() throws {
        let f = try SyncFixture()
        f.a.write(f.id("p1"), fields: ["title": "x"], in: .private)
        try f.test.cloud.setFaultPlan(.unreachable)

        #expect(throws: CloudError.networkUnavailable) { try f.send(f.a) }
        #expect(f.a.engine(.private).state.pendingRecordZoneChanges == [.saveRecord(f.id("p1"))])

        try f.test.cloud.setFaultPlan(.off)
        try f.send(f.a)
        #expect(f.a.engine(.private).state.pendingRecordZoneChanges.isEmpty)
    }

    @Test func theSharedDatabaseEngineFetchesWhatWasSharedAndAccepted() throws {
        let f = try SyncFixture()
        f.a.write(f.id("p1"), fields: ["title": "for mary"], in: .private)
        try f.send(f.a)
        let mary = try f.test.cloud.createAccount(name: "mary")
        let owner = f.test.cloud.database(.private, as: f.heather)
        var share = Share(rootRecord: f.id("p1"), title: "p1")
        share.addParticipant(try owner.lookUpParticipant(accountName: "mary"), permission: .readWrite)
        let url = try owner.saveShare(share, rootRecord: try owner.record(f.id("p1"))).url!
        let marysDevice = try MemoryDevice(name: "mary/phone", cloud: f.test.cloud, account: mary)
        try f.test.cloud.acceptShare(url, as: mary)

        try marysDevice.engine(.shared).fetchChanges()
        #expect(marysDevice.item(f.id("p1"), in: .shared)?.fields["title"] == "for mary")

        marysDevice.write(f.id("p1"), fields: ["title": "from mary"], in: .shared)
        try marysDevice.engine(.shared).sendChanges()
        try f.fetch(f.a)
        #expect(f.title("p1", on: f.a) == "from mary")

        try owner.removeParticipant(mary.id, from: share.id)
        try marysDevice.engine(.shared).fetchChanges()
        #expect(marysDevice.items(.shared).isEmpty, "a removed participant's device drops the zone")
    }

    /// A notebook of more posts than one batch, shared after they were written: the participant's
    /// from-scratch fetch reads every page (its tokens mark places older than the acceptance).
    @Test func aParticipantFetchesANotebookLargerThanOneBatch() throws {
        var limits = CloudLimits()
        limits.fetchBatchSize = 3
        let f = try SyncFixture(limits: limits)
        for n in 0..<10 { f.a.write(f.id("p\(n)"), fields: ["title": "post \(n)"], in: .private) }
        try f.send(f.a)
        let mary = try f.test.cloud.createAccount(name: "mary")
        let owner = f.test.cloud.database(.private, as: f.heather)
        var share = Share(zoneWide: f.zone, title: "Notes")
        share.addParticipant(try owner.lookUpParticipant(accountName: "mary"), permission: .readOnly)
        try f.test.cloud.acceptShare(try owner.saveShare(share).url!, as: mary)
        let marysDevice = try MemoryDevice(name: "mary/phone", cloud: f.test.cloud, account: mary)

        try marysDevice.engine(.shared).fetchChanges()
        #expect(marysDevice.items(.shared).keys.map(\.name).sorted() == (0..<10).map { "p\($0)" }.sorted())
    }

    @Test func theLogNamesDeviceScopeEventsAndRequests() throws {
        let f = try SyncFixture()
        f.a.write(f.id("p1"), fields: ["title": "x"], in: .private)
        try f.send(f.a)
        let line = try #require(f.log.lines.first { $0.contains("sentRecordZoneChanges") })
        #expect(line.contains("heather/A private event sentRecordZoneChanges saved=[\"p1@Notes:"))
        #expect(line.hasPrefix("20"), "a timestamp first")
        #expect(f.log.lines.contains { $0.contains("heather/A private request modifyRecords") })
    }
}
