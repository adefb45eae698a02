import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct ZoneTests {
    @Test func savingAZoneIsIdempotentAndItAppearsInTheDatabase() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let first = try db.save(zone: ZoneID(name: "Notes"))
        let changesAfterFirst = try db.databaseChanges(since: nil)

        let second = try db.save(zone: ZoneID(name: "Notes"))

        #expect(first == second)
        #expect(first.owner == db.caller.id)
        #expect(try db.allZones() == [first])
        #expect(try db.fetchZone(ZoneID(name: "Notes")) == first)
        #expect(try db.databaseChanges(since: changesAfterFirst.token).modified.isEmpty)
    }

    @Test func deletingAZoneRemovesItsRecordsAndReportsTheReason() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let notes = try db.save(zone: ZoneID(name: "Notes"))
        let work = try db.save(zone: ZoneID(name: "Work"))
        try db.save(.make("p1", in: notes))
        let token = try db.databaseChanges(since: nil).token

        try db.delete(zone: notes, reason: .purged)
        try db.delete(zone: work, reason: .encryptedDataReset)

        let changes = try db.databaseChanges(since: token)
        #expect(changes.deleted == [ZoneDeletion(zone: notes, reason: .purged), ZoneDeletion(zone: work, reason: .encryptedDataReset)])
        #expect(throws: CloudError.zoneNotFound(notes)) { try db.record(RecordID(name: "p1", zone: notes)) }
        #expect(throws: CloudError.zoneNotFound(notes)) { try db.fetchZone(notes) }
        #expect(try db.allZones().isEmpty)
    }

    @Test func aDeletedZoneCanBeCreatedAgainEmpty() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let notes = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("p1", in: notes))
        try db.delete(zone: notes)

        try db.save(zone: notes)

        #expect(try db.zoneChanges(in: notes, since: nil).modified.isEmpty)
        #expect(try db.allZones() == [notes])
    }

    @Test func theDefaultZoneExistsAndCannotBeDeleted() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let defaultZone = ZoneID(name: ZoneID.defaultName)
        let saved = try db.save(.make("r", in: defaultZone))

        #expect(saved.id.zone == ZoneID(name: ZoneID.defaultName, owner: db.caller.id))
        #expect(throws: CloudError.invalidArguments("the default zone cannot be deleted")) { try db.delete(zone: defaultZone) }
        #expect(try db.databaseChanges(since: nil).modified.isEmpty, "the default zone is not reported, as in CloudKit")
    }

    @Test func missingZonesAndBadNamesAreRefused() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        #expect(throws: CloudError.zoneNotFound(ZoneID(name: "Nope", owner: db.caller.id))) {
            try db.delete(zone: ZoneID(name: "Nope"))
        }
        for bad in ["", "_hidden", String(repeating: "z", count: 256)] {
            #expect(throws: CloudError.self) { try db.save(zone: ZoneID(name: bad)) }
        }
    }

    @Test func aZoneRequestReportsEachZoneOnItsOwn() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let result = try db.modifyZones(saving: [ZoneID(name: "A"), ZoneID(name: "_bad")], deleting: [ZoneID(name: "Gone")])

        #expect(throws: Never.self) { try result.saveResults[ZoneID(name: "A")]!.get() }
        #expect(throws: CloudError.self) { try result.saveResults[ZoneID(name: "_bad")]!.get() }
        #expect(throws: CloudError.self) { try result.throwIfFailed() }
        #expect(try db.allZones().map(\.name) == ["A"])
    }
}
