import Cloud
import Foundation
import Testing
import TestSupport

/// Two devices of one account edit the same record from the same fetch.
@Suite struct SavePolicyTests {
    let test: TestCloud
    let db: CloudDatabase
    let original: Record

    init() throws {
        test = try TestCloud()
        db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        original = try db.save(.make("p1", in: zone, ["title": "Groceries", "content": "milk"]))
    }

    @Test func ifUnchangedRefusesAStaleTagAndReturnsTheServerRecord() throws {
        var deviceA = original, deviceB = original
        deviceA["title"] = .string("Groceries for Sunday")
        let fromA = try db.save(deviceA)

        deviceB["content"] = .string("eggs")
        #expect(throws: CloudError.serverRecordChanged(server: fromA)) { try db.save(deviceB) }
        #expect(try db.record(original.id) == fromA)
    }

    @Test func ifUnchangedRefusesANewRecordWhoseNameIsTaken() throws {
        let fresh = Record.make("p1", in: original.id.zone, ["title": "other"])
        #expect(throws: CloudError.serverRecordChanged(server: original)) { try db.save(fresh) }
    }

    @Test func ifUnchangedOnARecordDeletedMeanwhileIsUnknownItem() throws {
        try db.delete(original.id)
        var stale = original
        stale["title"] = .string("x")
        #expect(throws: CloudError.unknownItem(original.id)) { try db.save(stale) }
    }

    @Test func changedKeysKeepsTheOtherDevicesKeys() throws {
        var deviceA = original, deviceB = original
        deviceA["title"] = .string("Groceries for Sunday")
        try db.save(deviceA)

        deviceB["content"] = .string("eggs")
        let merged = try db.save(deviceB, policy: .changedKeys)

        #expect(merged.string("title") == "Groceries for Sunday")
        #expect(merged.string("content") == "eggs")
    }

    @Test func allKeysReplacesTheServerRecordWhole() throws {
        var deviceA = original
        deviceA["title"] = .string("Groceries for Sunday")
        deviceA["extra"] = .string("only on A")
        try db.save(deviceA)

        var replacement = Record.make("p1", in: original.id.zone, ["content": "eggs"])
        replacement["title"] = .string("B's title")
        let saved = try db.save(replacement, policy: .allKeys)

        #expect(saved.allKeys == ["title", "content"])
        #expect(saved.string("title") == "B's title")
    }

    @Test func removingAKeyWithChangedKeysDeletesIt() throws {
        var edit = original
        edit["content"] = nil
        let saved = try db.save(edit, policy: .changedKeys)
        #expect(saved.allKeys == ["title"])
    }
}
