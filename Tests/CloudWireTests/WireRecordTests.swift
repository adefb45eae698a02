import Cloud
@testable import CloudWire
import Foundation
import Testing

@Suite struct WireRecordTests {
    let zone = ZoneID(name: "Notes", owner: "_owner")

    /// Through the bytes the client and the server write and read.
    private func roundTrip<T: Codable>(_ value: T) throws -> T {
        try WireJSON.decode(T.self, from: WireJSON.encode(value))
    }

    /// As another reader sees what we write.
    private func json(_ value: some Encodable) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: WireJSON.encode(value)) as! [String: Any]
    }

    @Test func everyKindOfValueComesBackAsItWent() throws {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        record["title"] = .string("Hà Nội \u{1b}[31m")
        record["count"] = .int(Int64.max)
        record["ratio"] = .double(0.1)
        record["done"] = .bool(true)
        record["when"] = .date(Date(timeIntervalSince1970: 1_700_000_000.125))
        record["blob"] = .bytes(Data([0, 255, 10]))
        record["ref"] = .reference(Reference(recordName: "n1", action: .deleteSelf))
        record["tags"] = .list([.string("a"), .string("b")])
        record["mixed"] = .list([.int(1), .string("x"), .list([.bool(false)])])
        record["none"] = .list([])
        record.setEncrypted("location", Data("sealed".utf8))
        record.setParent("n1")
        let back = try roundTrip(WireRecord(record)).changes(in: zone)
        #expect(back.fields == record.fields)
        #expect(back.encrypted("location") == Data("sealed".utf8))
        #expect(back.parent == "n1")
        #expect(back.id == record.id)
    }

    @Test func valuesAreWrittenWithApplesTypeNames() throws {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        record["title"] = .string("x")
        record["n"] = .int(3)
        record["when"] = .date(Date(timeIntervalSince1970: 2))
        record["tags"] = .list([.string("a")])
        record["ref"] = .reference(Reference(recordName: "n1"))
        let fields = try json(WireRecord(record))["fields"] as! [String: [String: Any]]
        #expect(fields["title"]?["type"] as? String == "STRING")
        #expect(fields["n"]?["type"] as? String == "INT64")
        #expect(fields["when"]?["type"] as? String == "TIMESTAMP")
        #expect(fields["when"]?["value"] as? Double == 2000)
        #expect(fields["tags"]?["type"] as? String == "STRING_LIST")
        #expect(fields["ref"]?["type"] as? String == "REFERENCE")
        #expect((fields["ref"]?["value"] as? [String: Any])?["action"] as? String == "NONE")
    }

    @Test func aSaveCarriesTheWholeRecordAndChangesOnlyTheKeysItChanged() throws {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        record["title"] = .string("old")
        record["body"] = .string("gone soon")
        record["tags"] = .list([.string("kept")])
        record.markClean()
        record.restoreSystemFields(SystemFields(changeTag: "t1", createdAt: Date(), createdBy: "_a", modifiedAt: Date(), modifiedBy: "_a"))
        record["title"] = .string("new")
        record["body"] = nil

        let save = WireRecord(saving: record)
        let written = try json(save)
        #expect(written["recordChangeTag"] as? String == "t1")
        #expect(written["changedKeys"] as? [String] == ["body", "title"])
        let fields = written["fields"] as! [String: Any]
        #expect(Set(fields.keys) == ["title", "body", "tags"])
        #expect(fields["body"] is NSNull)

        let arrived = try roundTrip(save).changes(in: zone)
        #expect(arrived.changedKeys == ["title", "body"])
        #expect(arrived["body"] == nil && arrived["title"] == .string("new") && arrived["tags"] == .list([.string("kept")]))
        #expect(arrived.changeTag == "t1")
    }

    /// A move's copy names its original (ours): it travels with the save, and never in what the cloud answers.
    @Test func aMovesCopyNamesItsOriginal() throws {
        var copy = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        copy["title"] = .string("trip")
        copy.movedFrom = RecordID(name: "p1", zone: ZoneID(name: "Travel", owner: "_owner"))
        let written = try json(WireRecord(saving: copy))
        let source = written["movedFrom"] as? [String: Any]
        #expect(source?["recordName"] as? String == "p1" && (source?["zoneID"] as? [String: Any])?["zoneName"] as? String == "Travel")
        #expect(try roundTrip(WireRecord(saving: copy)).changes(in: zone).movedFrom == copy.movedFrom)
        #expect(try json(WireRecord(copy))["movedFrom"] == nil)
        #expect(try roundTrip(WireRecord(saving: copy)).stored(in: zone).movedFrom == nil)
    }

    /// Apple's clients name no changed keys: every field they send is a change, and one sent as null is removed.
    @Test func anAppleUpdateChangesTheFieldsItSends() throws {
        let body = #"{"recordName":"p1","recordType":"Post","recordChangeTag":"t1","fields":{"title":{"value":"x","type":"STRING"},"body":null}}"#
        let record = try WireJSON.decode(WireRecord.self, from: Data(body.utf8)).changes(in: zone)
        #expect(record.changedKeys == ["title", "body"])
        #expect(record["title"] == .string("x") && record["body"] == nil)
    }

    @Test func aStoredRecordKeepsItsSystemFieldsAndNothingMarkedChanged() throws {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
        record["title"] = .string("x")
        record.markClean()
        let stamp = Date(timeIntervalSince1970: 1_700_000_000.5)
        record.restoreSystemFields(SystemFields(changeTag: "t9", createdAt: stamp, createdBy: "_a", modifiedAt: stamp, modifiedBy: "_b"))
        let back = try roundTrip(WireRecord(record)).stored(in: zone)
        #expect(back.changedKeys.isEmpty)
        #expect(back.system?.changeTag == "t9")
        #expect(back.system?.modifiedBy == "_b")
        #expect(abs(back.system!.modifiedAt.timeIntervalSince(stamp)) < 1e-6)
    }

    @Test func unknownKeysAreIgnoredAndBadValuesRefused() throws {
        let body = #"{"recordName":"p1","recordType":"Post","pluginFields":{},"fields":{"n":{"value":"12","type":"INT64"}}}"#
        let record = try WireJSON.decode(WireRecord.self, from: Data(body.utf8)).changes(in: zone)
        #expect(record["n"] == .int(12), "numbersAsStrings")
        let whole = #"{"recordName":"p1","recordType":"Post","fields":{"n":{"value":12.0,"type":"INT64"}}}"#
        #expect(try WireJSON.decode(WireRecord.self, from: Data(whole.utf8)).changes(in: zone)["n"] == .int(12), "a whole number written as a double")
        for bad in [#"{"value":"x","type":"INT64"}"#, #"{"value":"%%%","type":"BYTES"}"#, #"{"value":1,"type":"SHAPE"}"#,
                    #"{"value":{"action":"NONE"},"type":"REFERENCE"}"#, #""x""#, "[]", "7", "{}", #"{"type":"STRING"}"#,
                    #"{"Value":"x","type":"STRING"}"#, #"{"value":12.5,"type":"INT64"}"#] {
            // A field that is not {value, type} is refused, never read as a removal.
            let text = #"{"recordName":"p1","recordType":"Post","fields":{"f":"# + bad + "}}"
            #expect(throws: WireFormatError.self) { try WireJSON.decode(WireRecord.self, from: Data(text.utf8)) }
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WireRecord.self, from: Data(text.utf8)) }
        }
    }

    /// A record another server wrote without its stamps still says which version it is.
    @Test func aStoredRecordWithoutStampsKeepsItsChangeTag() throws {
        let body = #"{"recordName":"p1","recordType":"Post","recordChangeTag":"t7","fields":{}}"#
        #expect(try WireJSON.decode(WireRecord.self, from: Data(body.utf8)).stored(in: zone).changeTag == "t7")
        #expect(throws: WireFormatError.self) { try WireJSON.decode(RecordsResponse.self, from: Data("{}".utf8)) }
    }

    @Test func theDefaultOwnerIsLeftOut() throws {
        #expect(try json(WireZoneID(ZoneID(name: "Notes")))["ownerRecordName"] == nil)
        #expect(WireZoneID(ZoneID(name: "Notes", owner: "_o")).zoneID == ZoneID(name: "Notes", owner: "_o"))
    }
}
