import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct LimitTests {
    @Test func moreThan400ItemsIsRefusedWholeAnd400Pass() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let records = (0..<401).map { Record.make("r\($0)", in: zone) }

        #expect(throws: CloudError.limitExceeded("401 items in one request; at most 400")) {
            try db.modifyRecords(saving: records)
        }
        #expect(try db.zoneChanges(in: zone, since: nil).modified.isEmpty)
        try db.modifyRecords(saving: Array(records.prefix(400))).throwIfFailed()
        #expect(try db.zoneChanges(in: zone, since: nil, limit: 1000).modified.count == 400)
    }

    @Test func recordAndRequestSizesAreBounded() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        var big = Record.make("big", in: zone)
        big["blob"] = .bytes(Data(count: 1024 * 1024))
        #expect(throws: CloudError.self) { try db.save(big) }

        let nearlyMB = Data(count: 700 * 1024)
        let three = (0..<3).map { i -> Record in
            var r = Record.make("m\(i)", in: zone)
            r["blob"] = .bytes(nearlyMB)
            return r
        }
        #expect(throws: CloudError.self) { try db.modifyRecords(saving: three) }
        #expect(try db.zoneChanges(in: zone, since: nil).modified.isEmpty)
        try db.modifyRecords(saving: Array(three.prefix(2))).throwIfFailed()
    }

    @Test func limitsAreConfigurable() throws {
        var limits = CloudLimits()
        limits.maxItemsPerRequest = 3
        let test = try TestCloud(limits: limits)
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        #expect(throws: CloudError.limitExceeded("4 items in one request; at most 3")) {
            try db.modifyRecords(saving: (0..<4).map { Record.make("r\($0)", in: zone) })
        }
    }

    @Test func theSameRecordTwiceInOneRequestIsRefused() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        #expect(throws: CloudError.self) {
            try db.modifyRecords(saving: [.make("a", in: zone)], deleting: [RecordID(name: "a", zone: zone)])
        }
    }
}

@Suite struct AtomicityTests {
    /// Zone A gets one good new record and one stale save; zone B one good record.
    func request(atomically: Bool) throws -> (ModifyResult, CloudDatabase, ZoneID, ZoneID) {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let a = try db.save(zone: ZoneID(name: "A")), b = try db.save(zone: ZoneID(name: "B"))
        try db.save(.make("taken", in: a))
        let result = try db.modifyRecords(
            saving: [.make("new", in: a), .make("taken", in: a), .make("fine", in: b)],
            deleting: [], atomically: atomically)
        return (result, db, a, b)
    }

    @Test func atomicByZoneRollsBackTheFailingZoneOnly() throws {
        let (result, db, a, b) = try request(atomically: true)

        #expect(throws: CloudError.batchRequestFailed) { try result.saveResults[RecordID(name: "new", zone: a)]!.get() }
        guard case .failure(.serverRecordChanged) = result.saveResults[RecordID(name: "taken", zone: a)]! else {
            Issue.record("the stale save should fail with server record changed")
            return
        }
        #expect(throws: Never.self) { try result.saveResults[RecordID(name: "fine", zone: b)]!.get() }
        #expect(try db.zoneChanges(in: a, since: nil).modified.map(\.id.name) == ["taken"])
        #expect(try db.zoneChanges(in: b, since: nil).modified.map(\.id.name) == ["fine"])
    }

    @Test func withoutAtomicityEachItemStandsAlone() throws {
        let (result, db, a, _) = try request(atomically: false)

        #expect(throws: Never.self) { try result.saveResults[RecordID(name: "new", zone: a)]!.get() }
        #expect(result.failures.count == 1)
        #expect(Set(try db.zoneChanges(in: a, since: nil).modified.map(\.id.name)) == ["new", "taken"])
        #expect(throws: CloudError.self) { try result.throwIfFailed() }
    }
}
