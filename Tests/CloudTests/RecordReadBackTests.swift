@testable import Cloud
import Foundation
import SyncSimulation
import Testing
import TestSupport

/// Whatever a participant saves into someone's notebook, the cloud either refuses at once or can give back, to the
/// owner and to every participant, on every path: a fetch, a zone read, history, the trash, a dump, a delete. A
/// record it took and cannot read would make the whole notebook unreadable for everyone, for good.
@Suite struct RecordReadBackTests {
    @Test(arguments: 1...16 as ClosedRange<UInt64>) func whateverTheCloudTakesReadsBackOnEveryPath(_ seed: UInt64) throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let eve = f.shared(f.heather), random = SeededRandom(seed: seed)
        var taken: [RecordID: Record] = [:]
        for i in 0..<12 {
            var record = Record(type: ["Post", "Comment", "Item"][random.below(3)], id: f.id("h\(i)"))
            for (key, value) in HostileFields.within(random) { record[key] = value }
            let breaking = random.below(3) == 0 ? HostileFields.outOfBounds(random) : nil
            if let breaking { record[breaking.key] = breaking.value }
            do {
                let saved = try eve.save(record, policy: .allKeys)
                #expect(breaking == nil, "the cloud took \(breaking!.breaks) (seed \(seed))")
                taken[saved.id] = saved
            } catch {
                #expect(breaking != nil && error.code == "invalidArguments", "seed \(seed): \(error)")
            }
        }
        for reader in [f.owner, eve] {
            let zone = try reader.zoneChanges(in: f.notes, since: nil).modified
            for (id, saved) in taken {
                #expect(zone.first { $0.id == id }?.fields == saved.fields, "seed \(seed): \(id.name) in the zone read")
                #expect(try reader.record(id).fields == saved.fields)
                #expect(try reader.history(of: id).first?.record.fields == saved.fields)
            }
        }
        let dump = try f.cloud.dump()
        #expect(try JSONEncoder().encode(dump).count > 0)
        for id in taken.keys.sorted(by: { $0.name < $1.name }) { try eve.delete(id) }
        for type in ["Post", "Comment", "Item"] {
            #expect(try f.owner.trash(in: f.notes, type: type).count == taken.values.filter { $0.type == type }.count)
        }
        #expect(try f.owner.zoneChanges(in: f.notes, since: nil).modified.allSatisfy { taken[$0.id] == nil })
    }

    /// A record planted before the limit existed (lists nested 40 deep, as the tryout's attacker saved through the
    /// server) still reads, and can be deleted: the notebook it sits in is not lost.
    @Test func aRecordNestedPastTheLimitByAnEarlierVersionStillReadsAndDeletes() throws {
        let f = try SharingFixture()
        let deep = (0..<40).reduce(FieldValue.string("core")) { inner, _ in .list([inner]) }
        _ = try f.owner.save(.make("deep", in: f.notes, type: "Comment", ["text": "fine"]))
        let planted = Record(id: f.id("deep"), type: "Comment", fields: ["text": deep], encryptedFields: [:], parent: "p1", system: nil)
        try f.cloud.storage.write { db in
            try db.execute("UPDATE records SET body = ? WHERE name = ?", [RecordArchive.encodeBody(planted), "deep"])
        }
        #expect(try f.owner.record(f.id("deep"))["text"] == deep)
        #expect(try f.owner.zoneChanges(in: f.notes, since: nil).modified.contains { $0.id.name == "deep" })
        try f.owner.delete(f.id("deep"))
        #expect(try f.owner.zoneChanges(in: f.notes, since: nil).modified.allSatisfy { $0.id.name != "deep" })
    }
}
