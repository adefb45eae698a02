import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
@testable import Notes
@testable import Sync
import Testing
import TestSupport

/// Where a device keeps the last known server record of each post: in the post's
/// row while the row holds it whole, else as a copy in `server_records`.
@Suite struct LastKnownTests {
    @Test func aRowHoldsTheCloudsRecordOfAPostSentOrFetchedAndNoCopyIsKept() throws {
        let d = try TwoDevices(start: Date(timeIntervalSinceReferenceDate: 785_000_000.000_123_4))  // as the wall clock gives
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk", tags: ["home", "Hà Nội"]))
        try d.a.syncNow()
        try d.b.syncNow()
        let cloud = try d.test.cloud.database(.private, as: d.heather).record(RecordID(name: "p1", zone: d.notes.zone))

        for device in [d.a, d.b] {
            #expect(try lastKnown(device, "p1") == cloud)
            #expect(try copies(device) == [])
        }
    }

    @Test func aLocalEditKeepsTheCloudsVersionAsTheBaseOfItsMerge() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        let sent = try lastKnown(d.a, "p1")
        var post = try d.a.store.post("p1")
        post.content = "oat milk"

        try d.write(d.a, post)

        #expect(try lastKnown(d.a, "p1") == sent)
        #expect(try copies(d.a) == ["p1"])
        try d.a.syncNow()  // sent: the row holds the new version, and the copy is no longer read
        #expect(try lastKnown(d.a, "p1")?.changeTag != sent?.changeTag)
        let now = try #require(try lastKnown(d.a, "p1"))
        #expect(Post.fields(of: now).content == "oat milk")
    }

    /// A merged row waiting to be sent holds no record: a second fetch merges against the cloud's version.
    @Test func aSecondFetchBeforeAMergeIsSentMergesAgainstTheCloudsVersion() throws {
        let d = try TwoDevices()
        let id = RecordID(name: "p1", zone: d.notes.zone)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "one\ntwo\nthree\nfour\nfive"))
        try d.a.syncNow()
        try d.b.syncNow()
        func edit(_ device: NotesSync, _ content: String) throws {
            var post = try device.store.post("p1")
            post.content = content
            try d.write(device, post)
        }
        try edit(d.b, "one\ntwo\nthree\nfour\nfive from B")
        let cloud = d.test.cloud.database(.private, as: d.heather)

        try edit(d.a, "one from A\ntwo\nthree\nfour\nfive")
        try d.a.syncNow()
        try d.b.store.applyFetched(.private, modifications: [cloud.record(id)], deletions: [])
        try edit(d.a, "one from A\ntwo\nthree again\nfour\nfive")
        try d.a.syncNow()
        try d.b.store.applyFetched(.private, modifications: [cloud.record(id)], deletions: [])

        let merged = try d.b.store.post("p1").content
        #expect(merged == "one from A\ntwo\nthree again\nfour\nfive from B", "\(merged)")
    }

    /// When the cloud says a record went with its zone, the device forgets it, row and copy: sent again, it is new.
    @Test func aRecordForgottenIsSentAsNew() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        let id = RecordID(name: "p1", zone: d.notes.zone)
        let record = try #require(try lastKnown(d.a, "p1"))

        _ = try d.a.store.applySent(.private, SentRecordZoneChanges(failedRecordSaves: [(record, .zoneNotFound(d.notes.zone))]))

        #expect(try lastKnown(d.a, "p1") == nil)
        #expect(try d.a.store.record(for: id, in: .private)?.changeTag == nil)
    }

    @Test func aLocalDeletionKeepsTheCloudsVersionToRestoreIfRefused() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        let sent = try lastKnown(d.a, "p1")

        try d.a.store.delete(d.a.store.post("p1"))

        #expect(try lastKnown(d.a, "p1") == sent)
    }

    /// Fields another version of the app wrote stay in the cloud through this device's edits.
    @Test func aRecordWithFieldsAPostRowLacksIsKeptWholeAndItsFieldsSurviveAnEdit() throws {
        let d = try TwoDevices()
        let id = RecordID(name: "p1", zone: d.notes.zone)
        var record = Record(type: Post.recordType, id: id)
        record["title"] = .string("List")
        record["content"] = .string("milk")
        record["tags"] = .list([])
        record["mood"] = .string("cheerful")
        try d.test.cloud.database(.private, as: d.heather).modifyRecords(saving: [record]).throwIfFailed()
        try d.b.syncNow()
        #expect(try copies(d.b) == ["p1"])
        var post = try d.b.store.post("p1")
        post.content = "oat milk"

        try d.write(d.b, post)
        try d.b.syncNow()

        let cloud = try d.test.cloud.database(.private, as: d.heather).record(id)
        #expect(cloud["mood"] == .string("cheerful") && cloud["content"] == .string("oat milk"))
        #expect(try lastKnown(d.b, "p1") == cloud)
    }

    @Test func aRowRebuildsExactlyTheRecordsItCanHold() throws {
        let zone = ZoneID(name: "Notes", owner: "_o")
        let system = SystemFields(changeTag: "7", createdAt: Date(timeIntervalSince1970: 1_763_000_000.25), createdBy: "_o",
                                  modifiedAt: Date(timeIntervalSince1970: 1_763_000_100.125), modifiedBy: "_p")
        func record(_ edit: (inout Record) -> Void) -> Record {
            var record = Record(type: Post.recordType, id: RecordID(name: "p1", zone: zone))
            record["title"] = .string("List")
            record["content"] = .string("milk\neggs")
            record["tags"] = .list([.string("home"), .string("")])
            record["edited"] = .date(Date(timeIntervalSince1970: 1_763_000_050.5))
            record["editor"] = .string("_p")
            edit(&record)
            record.restoreSystemFields(system)
            record.markClean()
            return record
        }
        for held in [record { _ in }, record { $0.setEncrypted("location", Data([1, 2, 3])) }, record { $0["tags"] = .list([]) }] {
            #expect(Post.rowCanHold(held))
            #expect(PostRow(record: held, scope: .private).record == held)
        }
        let notHeld = [
            record { $0["mood"] = .string("cheerful") }, record { $0.setParent("p0") }, record { $0["tags"] = .list([.int(1)]) },
            record { $0["title"] = .int(1) }, record { $0["tags"] = nil }, record { $0.setEncrypted("other", Data([1])) },
            // The last edit missing, later than the save, or by someone other than the saver (who is not the owner).
            record { $0["edited"] = nil }, record { $0["edited"] = .date(Date(timeIntervalSince1970: 1_763_000_100 + Post.clockSkew + 1)) },
            record { $0["editor"] = .string("_q") },
        ]
        for other in notHeld {
            #expect(!Post.rowCanHold(other))
            #expect(PostRow(record: other, scope: .private).changeTag == nil)
        }
        // Typed before the cloud had it (offline, or on a clock behind the cloud's): shown as created then, never changed before it was created.
        let early = Post(record: record { $0["edited"] = .date(Date(timeIntervalSince1970: 1_763_000_000)) }, scope: .private)
        #expect(early.createdAt! > early.modifiedAt! && early.shownCreatedAt == early.modifiedAt)
        #expect(Post(record: record { _ in }, scope: .private).shownCreatedAt == system.createdAt)
        var unsaved = record { _ in }
        unsaved.restoreSystemFields(nil)
        #expect(!Post.rowCanHold(unsaved))
    }

    private func lastKnown(_ device: NotesSync, _ name: String) throws -> Record? {
        let zone = try device.store.notebooks().first { $0.title == "Notes" }!.zone
        return try device.store.read { db in try DeviceStore.lastKnown(db, .private, RecordID(name: name, zone: zone)) }
    }

    /// The names of the posts' records kept as copies.
    private func copies(_ device: NotesSync) throws -> [String] {
        try device.store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM server_records WHERE name IN (SELECT id FROM posts) ORDER BY name")
        }
    }
}
