import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

/// A cloud knows which cloud it is and notices when its store goes back in
/// history (an older copy of the file, an older dump of the database put
/// back), so devices never mistake its loss for deletions.
@Suite struct IdentityTests {
    @Test func aCloudKeepsItsIdentityAcrossConnections() throws {
        let test = try TestCloud()
        let first = try test.cloud.identity()
        #expect(try test.reopen().identity().id == first.id)
        #expect(!first.id.isEmpty)
    }

    /// A write that waited for the writers' lock reads the identity and sequence the writer before it left, not
    /// what they were when it began to wait (on PostgreSQL the lock and the read are one round trip).
    @Test func aWriteThatWaitedForTheLockSeesTheIdentityTheWriterBeforeItLeft() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        _ = try db.save(zone: ZoneID(name: "Notes"))
        let holder = WritersLockHolder(try test.reopen()) { db in
            try db.execute("UPDATE identity SET cloud = 'cReplaced' WHERE id = 1")
            try db.execute("UPDATE sequence SET value = value + 1000 WHERE id = 1")
        }
        let done = DispatchSemaphore(value: 0)
        let request = ServedRequest(signature: nil)
        let saved = Mutex<Record?>(nil)
        Thread {
            let record = try? request.answering { try db.save(Record.make("p1", in: ZoneID(name: "Notes"), ["v": "1"])) }
            saved.withLock { $0 = record }
            done.signal()
        }.start()
        defer { holder.release() }
        try holder.awaitWaitingWriter()
        holder.release()
        done.wait()
        #expect(saved.withLock { $0 } != nil)
        #expect(request.identitySeen?.id == "cReplaced")
        #expect((request.identitySeen?.sequence ?? 0) > 1000, "numbered past what the writer before moved the sequence to")
    }

    @Test func anOlderCopyPutBackGetsANewIdentityAndNeverHandsOutAChangeNumberTwice() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(Record.make("p1", in: zone, ["v": "1"]))
        let before = try test.cloud.identity()
        let tampering = StoreTampering(directory: test.directory.url)
        let backup = try tampering.snapshot()
        let later = try db.save(Record.make("p2", in: zone, ["v": "2"]))
        let highest = try test.cloud.identity().sequence

        try tampering.restore(backup)
        let after = try test.cloud.identity()
        #expect(after.id != before.id)
        #expect(after.sequence >= highest)
        let next = try db.save(Record.make("p3", in: zone, ["v": "3"]))
        #expect(next.changeTag != later.changeTag)
        #expect(try test.cloud.identity().id == after.id, "once is enough")
    }

    /// An older copy put back twice, the second time under an identity whose mark is below what the cloud of the
    /// first restore handed out since: the sequence still goes past every number any cloud of the place handed out.
    @Test func aSecondRestoreOfAnOlderCopyStillNeverHandsOutAChangeNumberTwice() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(Record.make("p1", in: zone, ["v": "1"]))
        let tampering = StoreTampering(directory: test.directory.url)
        let backup = try tampering.snapshot()
        try db.save(Record.make("p2", in: zone, ["v": "2"]))
        try tampering.restore(backup)
        _ = try test.cloud.identity()
        var handedOut: Int64 = 0
        for i in 0..<20 { handedOut = Int64(try db.save(Record.make("q\(i)", in: zone)).changeTag ?? "", radix: 36) ?? 0 }

        try tampering.restore(backup)  // the first cloud's identity again, its own mark below the second's numbers
        let next = try db.save(Record.make("p3", in: zone, ["v": "3"]))
        #expect((Int64(next.changeTag ?? "", radix: 36) ?? 0) > handedOut, "\(next.changeTag ?? "-") after \(String(handedOut, radix: 36))")
    }

    /// A directory that holds another cloud's high-water mark (a console command given one cloud's directory and
    /// another's store, say) says nothing of this cloud's history: it keeps its identity, reads and writes alike,
    /// and its own mark goes beside the other's, which stays (that cloud's going back is still seen).
    @Test func anotherCloudsHighWaterMarkLeavesThisCloudsIdentityAlone() throws {
        let busy = try TestCloud(seed: 1), quiet = try TestCloud(seed: 3)  // two clouds, two IDs
        let db = try busy.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        for i in 0..<5 { try db.save(Record.make("p\(i)", in: zone)) }
        try quiet.privateDatabase("mary").save(zone: ZoneID(name: "Notes"))
        let before = try quiet.cloud.identity()
        #expect(try busy.cloud.identity().sequence > before.sequence)
        let mark = { (test: TestCloud) in test.directory.url.appendingPathComponent("high-water") }
        try FileManager.default.removeItem(at: mark(quiet))
        try FileManager.default.copyItem(at: mark(busy), to: mark(quiet))

        let reopened = try quiet.reopen()
        #expect(try reopened.identity() == before, "opened and read")
        try reopened.database(.private, as: try reopened.accountCreatingIfNeeded(name: "mary")).save(zone: ZoneID(name: "More"))
        #expect(try reopened.identity().id == before.id, "written")
        let marks = try String(contentsOf: mark(quiet), encoding: .utf8)
        let busyMark = try busy.cloud.identity()
        #expect(marks.contains(" \(before.id)\n") && marks.contains("\(busyMark.sequence) \(busyMark.id)\n"), "\(marks)")
    }

    /// A mark from before marks named their cloud is the directory's own file's: a cloud kept elsewhere
    /// (`--store`) opened with that directory neither takes it as its own history going back nor drops it.
    @Test func anUnnamedMarkIsTheDirectorysOwnFilesOnly() throws {
        let test = try TestCloud()
        try test.privateDatabase("heather").save(zone: ZoneID(name: "Notes"))
        let before = try test.cloud.identity()
        let elsewhere = TemporaryDirectory("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere.url, withIntermediateDirectories: true)
        let mark = elsewhere.path("high-water")
        try Data("\(before.sequence + 500)\n".utf8).write(to: mark)
        let storage = try TestStore.storage(TestStore.database(for: test.directory.url)) ?? LocalCloud.fileStorage(in: test.directory.url)
        let opened = try LocalCloud(directory: elsewhere.url, storage: storage, faults: .off, environment: [:])
        #expect(try opened.identity() == before, "opened and read")
        try opened.database(.private, as: try opened.accountCreatingIfNeeded(name: "heather")).save(zone: ZoneID(name: "More"))
        #expect(try opened.identity().id == before.id, "written")
        #expect(try String(contentsOf: mark, encoding: .utf8).hasPrefix("\(before.sequence + 500)\n"), "the file's mark kept")
    }

    @Test func aConnectionOpenedAfterTheFileWasEmptiedSeesANewCloud() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(Record.make("p1", in: zone))
        let before = try test.cloud.identity()
        try StoreTampering(directory: test.directory.url).empty()
        let fresh = try test.reopen()
        let after = try fresh.identity()
        #expect(after.id != before.id && after.sequence >= before.sequence)
        #expect(try fresh.accounts().isEmpty)
    }

    @Test func anAccountComesBackUnderItsOwnID() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        try StoreTampering(directory: test.directory.url).empty()
        let fresh = try test.reopen()
        #expect(try fresh.restoreAccount(heather) == heather)
        #expect(try fresh.account(named: "heather").id == heather.id)
        _ = try fresh.createAccount(name: "mary")
        let impostor = Account(id: "_other", name: "mary", email: "mary@example.com", createdAt: Date())
        #expect(throws: CloudError.self) { try fresh.restoreAccount(impostor) }
    }
}
