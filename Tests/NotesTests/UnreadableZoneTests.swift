@testable import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// A notebook the cloud cannot serve is an error the person sees, naming it, never an empty notebook: the
/// device keeps what it had, the other notebooks still sync, and it comes back when the cloud can serve it.
@Suite struct UnreadableZoneTests {
    @Test func aNotebookTheCloudCannotReadStaysOnTheDeviceAndTheSyncSaysSo() throws {
        let d = try TwoDevices()
        let trip = try d.a.store.createNotebook("Trip", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Groceries", content: "milk"))
        try d.write(d.a, Post(id: "t1", zone: trip.zone, title: "Hà Nội"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.write(d.a, Post(id: "p2", zone: d.notes.zone, title: "Later"))
        try d.write(d.a, Post(id: "t2", zone: trip.zone, title: "Huế"))
        try d.a.syncNow()

        // A record of Notes the cloud can no longer read (damaged on its disk, or planted by an older version).
        try d.test.cloud.storage.write { db in try db.execute("UPDATE records SET body = ? WHERE name = ?", [Data([1, 0xFF]), "p2"]) }
        #expect {
            try d.b.syncNow()
        } throws: { error in
            if case .zoneUnreadable(let zone, _)? = error as? SyncError { zone == d.notes.zone } else { false }
        }
        #expect(Set(try d.b.store.posts().map(\.title)) == ["Groceries", "Hà Nội", "Huế"])  // kept; Trip still synced
        let said = try d.b.store.syncStatus().lastError ?? ""
        #expect(said.contains("cannot read notebook Notes from the cloud") && said.contains("keeps what it had"), "\(said)")

        // Again: still an error, still nothing taken as deleted.
        #expect(throws: SyncError.self) { try d.b.syncNow() }
        #expect(try d.b.store.posts().count == 3)

        // Repaired: the next sync brings what was missing and the error goes.
        try d.test.cloud.storage.write { db in try db.execute("DELETE FROM records WHERE name = ?", ["p2"]) }
        try d.b.syncNow()
        #expect(Set(try d.b.store.posts().map(\.title)) == ["Groceries", "Hà Nội", "Huế"])
        #expect(try d.b.store.syncStatus().lastError == nil)
    }
}
