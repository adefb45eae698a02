import Cloud
import Foundation
import Testing
import TestSupport

/// Every walk up a chain of parents reaches its root: no cycle however long,
/// and no hierarchy deeper than the cloud's limit of 1,000 levels.
@Suite struct HierarchyDepthTests {
    let test: TestCloud
    let db: CloudDatabase
    let zone: ZoneID

    init() throws {
        test = try TestCloud()
        db = try test.privateDatabase("heather")
        zone = try db.save(zone: ZoneID(name: "Notes"))
    }

    /// Saves a1 … aN, each the child of the one before, in requests of 400.
    func chain(_ count: Int) throws {
        let records = (1...count).map { i in
            var record = Record.make("a\(i)", in: zone)
            if i > 1 { record.setParent("a\(i - 1)") }
            return record
        }
        for start in stride(from: 0, to: count, by: 400) {
            try db.modifyRecords(saving: Array(records[start..<min(start + 400, count)])).throwIfFailed()
        }
    }

    @Test func aCycleLongerThanAnyOldWalkIsRefused() throws {
        try chain(300)
        var first = try db.record(RecordID(name: "a1", zone: zone))
        first.setParent("a300")
        #expect(throws: CloudError.invalidArguments("record a1 cannot be its own ancestor")) { try db.save(first) }
        #expect(try db.record(RecordID(name: "a1", zone: zone)).parent == nil)
    }

    @Test func aHierarchyStopsAtAThousandLevels() throws {
        try chain(1_000)
        var deeper = Record.make("a1001", in: zone)
        deeper.setParent("a1000")
        #expect(throws: CloudError.invalidArguments("record a1001 would sit more than 1000 levels deep")) { try db.save(deeper) }

        // Nor does hanging a chain below a deep record get round it.
        var top = Record.make("b1", in: zone), below = Record.make("b2", in: zone)
        below.setParent("b1")
        try db.modifyRecords(saving: [top, below]).throwIfFailed()
        top = try db.record(top.id)
        top.setParent("a999")
        #expect(throws: CloudError.invalidArguments("record b1 would sit more than 1000 levels deep")) { try db.save(top) }
        top.setParent("a998")
        try db.save(top)
    }
}
