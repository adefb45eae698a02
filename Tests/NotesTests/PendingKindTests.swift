import Cloud
import Foundation
import GRDB
import Notes
import Testing
import TestSupport

@Suite struct PendingKindTests {
    @Test func aPendingChangeOfAnUnknownKindIsKeptAndNeverReadAsADeletion() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Keep me"))
        try d.a.syncNow()
        // A newer version (or a damaged file) left a kind this one does not know, for the zone itself.
        let file = try DatabaseQueue(path: d.a.store.directory.appendingPathComponent("private.sqlite").path)
        try file.write { db in
            try db.execute(sql: "INSERT INTO pending(zone_name, zone_owner, name, kind) VALUES (?, ?, '', 'archiveZone')",
                           arguments: [d.notes.zone.name, d.notes.zone.owner])
        }
        #expect(throws: StoreError.unknownPendingKind("archiveZone", RecordID(name: "", zone: d.notes.zone))) { try d.a.syncNow() }
        #expect(try d.a.store.syncStatus().lastError?.contains("unknown kind 'archiveZone'") == true)
        #expect(try d.a.store.pendingCount() == 1)
        #expect(try d.test.cloud.database(.private, as: d.heather).allZones().contains(d.notes.zone))
        try d.b.syncNow()
        #expect(try d.b.store.post("Keep me").title == "Keep me")
    }
}
