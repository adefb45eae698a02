import Cloud
import CloudWire
import Foundation
import SyncSimulation
import Testing
import TestSupport

/// Through the server, as through the library: a record is refused at once (400) or reads back on every path,
/// a query over it included, for as long as it lives.
@Suite(.serialized) struct HostileRecordServerTests {
    @Test func whateverTheServerTakesReadsBackOnEveryPath() throws {
        let f = try ServerFixture()
        let remote = f.remote()
        let db = remote.database(.private, as: f.heather), zone = try db.save(zone: ZoneID(name: "Notes"))
        let random = SeededRandom(seed: 39)
        var taken: [RecordID: Record] = [:]
        for i in 0..<24 {
            var record = Record(type: "Item", id: RecordID(name: "h\(i)", zone: zone))
            for (key, value) in HostileFields.within(random) { record[key] = value }
            let breaking = random.below(3) == 0 ? HostileFields.outOfBounds(random) : nil
            if let breaking { record[breaking.key] = breaking.value }
            do {
                taken[record.id] = try db.save(record, policy: .allKeys)
                #expect(breaking == nil, "the server took \(breaking!.breaks)")
            } catch {
                #expect(breaking != nil && error.code == "invalidArguments", "\(error)")
            }
        }
        #expect(taken.count > 8)
        let read = try db.zoneChanges(in: zone, since: nil).modified
        #expect(Set(read.map(\.id)) == Set(taken.keys))
        for record in read {
            // Dates travel in milliseconds: equal to within a microsecond, every other value exactly.
            #expect(Self.same(record.fields, taken[record.id]!.fields), "\(record.id.name)")
        }
        #expect(try db.records(Array(taken.keys)).values.allSatisfy { (try? $0.get()) != nil })
        for id in taken.keys { #expect(try db.history(of: id).count == 1) }

        // A query sorted by any key the records hold answers.
        let path = f.path(.private, "records/query")
        for key in Set(taken.values.flatMap(\.fields.keys)).sorted().prefix(4) {
            let body = Data("""
                {"zoneID":{"zoneName":"Notes"},"query":{"recordType":"Item","sortBy":[{"fieldName":"\(key)","ascending":false}]}}
                """.utf8)
            #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)).status == 200, "sorted by \(key)")
        }
    }

    static func same(_ a: [String: FieldValue], _ b: [String: FieldValue]) -> Bool {
        a.keys.sorted() == b.keys.sorted() && a.keys.allSatisfy { same(a[$0]!, b[$0]!) }
    }

    static func same(_ a: FieldValue, _ b: FieldValue) -> Bool {
        switch (a, b) {
        case (.date(let x), .date(let y)): abs(x.timeIntervalSince1970 - y.timeIntervalSince1970) < 1e-6 * max(1, abs(x.timeIntervalSince1970) / 1e9)
        case (.list(let x), .list(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default: a == b
        }
    }
}
