import Cloud
import Foundation
import GRDB
import Notes
import Sync
import Testing
import TestSupport

/// A fetch the store cannot apply stops before its change token moves, and
/// says why; the next sync brings the same changes again.
@Suite struct FailedApplyTests {
    /// Makes every write of a post row on `device` fail, as a full disk or a damaged page would, until undone.
    func breakPostWrites(_ device: NotesSync) throws -> DatabaseQueue {
        let file = try DatabaseQueue(path: device.store.directory.appendingPathComponent("private.sqlite").path)
        try file.write { db in
            try db.execute(sql: "CREATE TRIGGER broken BEFORE INSERT ON posts BEGIN SELECT RAISE(ABORT, 'disk I/O error (planted)'); END")
        }
        return file
    }

    @Test func aFetchTheStoreCannotApplyComesAgainOnTheNextSync() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "One"))
        try d.write(d.a, Post(id: "p2", zone: d.notes.zone, title: "Two"))
        try d.a.syncNow()

        let file = try breakPostWrites(d.b)
        #expect(throws: SyncError.self) { try d.b.syncNow() }
        let status = try d.b.store.syncStatus().lastError ?? ""
        #expect(status.contains("could not take in fetchedRecordZoneChanges") && status.contains("disk I/O error (planted)"), "\(status)")
        #expect(try d.b.store.posts().isEmpty)

        try file.write { db in try db.execute(sql: "DROP TRIGGER broken") }
        try d.b.syncNow()
        #expect(try d.b.store.posts().map(\.title).sorted() == ["One", "Two"])
        #expect(try d.b.store.syncStatus().lastError == nil)
    }

    @Test func anIncrementalFetchThatFailsKeepsItsTokenToo() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "One"))
        try d.a.syncNow()
        try d.b.syncNow()
        var edited = try d.a.store.post("p1")
        let base = edited.fields
        edited.content = "changed"
        _ = try d.a.store.saveEdit(edited, from: base, by: Editor(account: d.heather, device: "a"), now: Date())
        try d.a.syncNow()

        let file = try breakPostWrites(d.b)
        #expect(throws: SyncError.self) { try d.b.syncNow() }
        #expect(try d.b.store.post("p1").content == "")
        // The process starts again (its state as it was saved), and the disk is fine again.
        try file.write { db in try db.execute(sql: "DROP TRIGGER broken") }
        let restarted = try NotesSync(store: DeviceStore(directory: d.b.store.directory), cloud: d.test.cloud, account: FixedAccount(d.heather))
        try restarted.syncNow()
        #expect(try restarted.store.post("p1").content == "changed")
    }

    /// A change whose record cannot be read for sending stays pending and the sync says why; it is not taken for a
    /// post deleted meanwhile and dropped.
    @Test func aRecordThatCannotBeReadForSendingStaysAndIsSaid() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "One"))
        try d.a.syncNow()
        var edited = try d.a.store.post("p1")
        let base = edited.fields
        edited.content = "kept"
        _ = try d.a.store.saveEdit(edited, from: base, by: Editor(account: d.heather, device: "a"), now: Date())

        let file = try DatabaseQueue(path: d.a.store.directory.appendingPathComponent("private.sqlite").path)
        let stored = try file.read { db in try Data.fetchOne(db, sql: "SELECT record FROM server_records WHERE name = 'p1'") }
        try file.write { db in try db.execute(sql: "UPDATE server_records SET record = X'00' WHERE name = 'p1'") }
        #expect(throws: SyncError.self) { try d.a.syncNow() }
        let status = try d.a.store.syncStatus().lastError ?? ""
        #expect(status.contains("nextRecordZoneChangeBatch"), "\(status)")
        #expect(try d.a.store.pendingCount() == 1)

        try file.write { db in try db.execute(sql: "UPDATE server_records SET record = ? WHERE name = 'p1'", arguments: [stored]) }
        try d.a.syncNow()
        try d.b.syncNow()
        #expect(try d.b.store.post("p1").content == "kept")
    }
}
