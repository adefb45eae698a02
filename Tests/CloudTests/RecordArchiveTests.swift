import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct RecordArchiveTests {
    static func everyKindOfRecord() -> Record {
        var record = Record(type: "Post", id: RecordID(name: "p1", zone: ZoneID(name: "Notes", owner: "_heather")))
        let values: [String: FieldValue] = [
            "title": .string("Grüße 🌍 \"quoted\""), "count": .int(-42), "max": .int(.max), "ratio": .double(-0.25),
            "done": .bool(true), "due": .date(Date(timeIntervalSinceReferenceDate: 123_456.789)), "blob": .bytes(Data([0, 1, 255])),
            "empty": .string(""), "post": .reference(Reference(recordName: "p0")),
            "owner": .reference(Reference(recordName: "p0", action: .deleteSelf)),
            "tags": .list([.string("a"), .int(2), .list([.bool(false)])]),
        ]
        for (key, value) in values { record[key] = value }
        record.setEncrypted("location", Data("sealed".utf8))
        record.setParent("p0")
        return record
    }

    @Test func aRecordSurvivesItsArchiveWithEverything() throws {
        var record = Self.everyKindOfRecord()
        #expect(try RecordArchive.decode(RecordArchive.encode(record)) == record)  // changed keys included
        record.restoreSystemFields(SystemFields(changeTag: "7y", createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
                                                createdBy: "_heather", modifiedAt: Date(timeIntervalSince1970: 1_700_000_001),
                                                modifiedBy: "_jermaine"))
        record.markClean()
        let again = try RecordArchive.decode(RecordArchive.encode(record))
        #expect(again == record)
        #expect(again.system == record.system && again.changedKeys.isEmpty)
    }

    @Test func equalRecordsArchiveToEqualBytes() {
        let record = Self.everyKindOfRecord()
        #expect(RecordArchive.encode(record) == RecordArchive.encode(record))
    }

    @Test func recordsWrittenAsJSONByEarlierVersionsAreStillRead() throws {
        let json = try JSONEncoder().encode(Self.everyKindOfRecord())
        let read = try RecordArchive.decode(json)
        #expect(read == (try JSONDecoder().decode(Record.self, from: json)))
        #expect(read.fields["title"] == .string("Grüße 🌍 \"quoted\"") && read.parent == "p0")
    }

    @Test func theCloudRefusesNumbersThatAreNotFiniteAndStoresNothing() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        for bad in [FieldValue.double(.nan), .list([.double(.infinity)]), .date(Date(timeIntervalSinceReferenceDate: -.infinity))] {
            var record = Record(type: "Post", id: RecordID(name: "p1", zone: zone))
            record["value"] = bad
            #expect(throws: CloudError.invalidArguments("field value of record p1 is not a finite number, or a date within 100 million days of 1970")) { try db.save(record) }
        }
        #expect(throws: CloudError.self) { try db.record(RecordID(name: "p1", zone: zone)) }
    }

    @Test func damagedArchivesAreRefusedWholeAndGoodOnesRoundTrip() throws {
        let seed = Array(RecordArchive.encode(Self.everyKindOfRecord()))
        let mutator = Mutator(seed: 11)
        var refused = 0
        for _ in 0..<Mutator.iterations {
            let bytes = Data(mutator.input(from: [seed]))
            guard let decoded = try? RecordArchive.decode(bytes) else {
                refused += 1
                continue
            }
            #expect(try RecordArchive.decode(RecordArchive.encode(decoded)) == decoded)
        }
        #expect(refused > 0)
        #expect(throws: ArchiveDamaged.self) { try RecordArchive.decode(Data(seed.dropLast())) }
        #expect(throws: ArchiveDamaged.self) { try RecordArchive.decode(Data()) }
    }
}
