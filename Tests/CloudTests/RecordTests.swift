import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct RecordTests {
    @Test func everyFieldTypeSurvivesASaveAndAFetch() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        let values: [String: FieldValue] = [
            "title": .string("Grüße 🌍"), "count": .int(-42), "ratio": .double(0.25), "done": .bool(true),
            "due": .date(Date(timeIntervalSince1970: 1_700_000_000.5)), "blob": .bytes(Data([0, 1, 255])),
            "post": .reference(Reference(recordName: "p0")),
            "owner": .reference(Reference(recordName: "p0", action: .deleteSelf)),
            "tags": .list([.string("a"), .int(2)]),
        ]
        for (key, value) in values { record[key] = value }
        record.setEncrypted("location", Data("sealed".utf8))
        record.setParent("p0")

        let saved = try db.save(record)
        let fetched = try db.record(record.id)

        #expect(fetched == saved)
        #expect(fetched.fields == values)
        #expect(fetched.encrypted("location") == Data("sealed".utf8))
        #expect(fetched.parent == "p0")
        #expect(fetched.changedKeys.isEmpty)
    }

    @Test func systemFieldsRecordWhoAndWhen() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let created = try db.save(.make("p1", in: zone, ["title": "a"]))
        test.clock.advance(by: 60)

        var edit = created
        edit["title"] = .string("b")
        let edited = try db.save(edit)

        #expect(edited.system!.createdAt == created.system!.createdAt)
        #expect(edited.system!.modifiedAt == created.system!.modifiedAt + 60)
        #expect(edited.system!.createdBy == db.caller.id && edited.system!.modifiedBy == db.caller.id)
        #expect(edited.changeTag != created.changeTag)
    }

    /// To the last bit of its times: the file keeps seconds since 1970, and a client compares the two.
    @Test func aSaveReturnsTheRecordAFetchReadsBack() throws {
        // A time as the wall clock gives one, with bits a REAL of seconds since 1970 does not all keep.
        let test = try TestCloud(start: Date(timeIntervalSinceReferenceDate: 785_000_000.000_123_4))
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        for i in 0..<8 {
            test.clock.advance(by: 0.000_123_457)
            let saved = try db.save(.make("p\(i)", in: zone, ["title": "a"]))
            #expect(try db.record(saved.id) == saved)
        }
    }

    @Test func deletingLeavesATombstoneAndTheRecordIsGone() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let saved = try db.save(.make("p1", in: zone))
        let token = try db.zoneChanges(in: zone, since: nil).token

        try db.delete(saved.id)

        #expect(throws: CloudError.unknownItem(saved.id)) { try db.record(saved.id) }
        #expect(throws: CloudError.unknownItem(saved.id)) { try db.delete(saved.id) }
        #expect(try db.zoneChanges(in: zone, since: token).deleted == [RecordDeletion(id: saved.id, type: "Post")])
    }

    @Test func deleteSelfReferencesCascadeAndPlainOnesDoNot() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        var comment = Record.make("c1", in: zone, type: "Comment")
        comment["post"] = .reference(Reference(recordName: "p1", action: .deleteSelf))
        var reply = Record.make("c2", in: zone, type: "Comment")
        reply["comment"] = .reference(Reference(recordName: "c1", action: .deleteSelf))
        var link = Record.make("l1", in: zone, type: "Link")
        link["post"] = .reference(Reference(recordName: "p1"))
        try db.modifyRecords(saving: [.make("p1", in: zone), comment, reply, link]).throwIfFailed()

        try db.delete(RecordID(name: "p1", zone: zone))

        let left = try db.zoneChanges(in: zone, since: nil).modified.map(\.id.name)
        #expect(left == ["l1"])
    }

    @Test func aRecordCannotChangeItsTypeOrBeItsOwnParent() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("p1", in: zone))
        #expect(throws: CloudError.invalidArguments("record p1 is a Post, not a Comment")) {
            try db.save(.make("p1", in: zone, type: "Comment"), policy: .allKeys)
        }
        var selfParent = Record.make("p2", in: zone)
        selfParent.setParent("p2")
        #expect(throws: CloudError.self) { try db.save(selfParent) }
    }

    @Test func fetchingSeveralRecordsReportsEachOnItsOwn() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("p1", in: zone))
        let ids = [RecordID(name: "p1", zone: zone), RecordID(name: "nope", zone: zone), RecordID(name: "x", zone: ZoneID(name: "Gone"))]

        let results = try db.records(ids)

        #expect(try results[ids[0]]!.get().id.name == "p1")
        #expect(throws: CloudError.unknownItem(ids[1])) { try results[ids[1]]!.get() }
        #expect(throws: CloudError.zoneNotFound(ZoneID(name: "Gone", owner: db.caller.id))) { try results[ids[2]]!.get() }
    }
}
