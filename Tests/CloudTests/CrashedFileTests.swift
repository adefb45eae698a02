@testable import Cloud
import Foundation
import GRDB
import Testing
import TestSupport

/// A cloud's file a crash left in the middle of a commit (its pages partly written, the originals in a hot
/// journal) opens, rolled back to what it held before: the check that refuses another program's file reads it
/// without writing, and must look away from a file it cannot read so, not refuse it.
@Suite(.enabled(if: !TestStore.isPostgres, "the file's own: the SQLite run's"))
struct CrashedFileTests {
    @Test func aFileACrashLeftWithAHotJournalOpensRolledBack() throws {
        let directory = TemporaryDirectory("crashing")
        let cloud = try LocalCloud(directory: directory.url, environment: [:])
        let heather = try cloud.createAccount(name: "heather")
        let notes = ZoneID(name: "Notes", owner: heather.id)
        let database = try cloud.database(.private, as: heather)
        _ = try database.save(zone: notes)
        _ = try database.modifyRecords(saving: (0..<300).map { Record.make("p\($0)", in: notes, ["text": "kept \($0)"]) })
        let file = directory.url.appendingPathComponent(LocalCloud.fileName)
        let before = try Data(contentsOf: file)

        // A writer with too small a cache for its change writes pages into the file before its commit; the file
        // and journal copied then are what a crash at that moment leaves.
        let crashed = TemporaryDirectory("crashed")
        let copy = crashed.url.appendingPathComponent(LocalCloud.fileName)
        let writer = try DatabaseQueue(path: file.path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; BEGIN IMMEDIATE")
            try db.execute(sql: "UPDATE records SET body = randomblob(3000)")
            try FileManager.default.copyItem(at: file, to: copy)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: file.path + "-journal"), to: URL(fileURLWithPath: copy.path + "-journal"))
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try Data(contentsOf: copy) != before, "the change's pages reached the file before its commit")

        let reopened = try LocalCloud(directory: crashed.url, environment: [:])
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-journal"), "rolled back")
        #expect(try reopened.integrityCheck() == "ok")
        #expect(try reopened.accounts().map(\.name) == ["heather"])
        let ids = (0..<300).map { RecordID(name: "p\($0)", zone: notes) }
        let records = try reopened.database(.private, as: heather).records(ids)
        #expect(ids.allSatisfy { id in (try? records[id]?.get())?.string("text") == "kept \(id.name.dropFirst())" })
    }
}
