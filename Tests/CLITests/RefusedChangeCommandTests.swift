import Cloud
import Foundation
import GRDB
import Notes
import Testing
import TestSupport

/// A change the cloud refuses is never reported as synced: `sync` fails saying which and why, `status` counts it
/// apart, `show` and `list` mark it, and `discard` gives it up; text too large is refused before it is saved.
@Suite struct RefusedChangeCommandTests {
    static let huge = String(repeating: "a long paste ", count: 100_000)  // 1.2 MB

    /// Deletions refused because the posts changed elsewhere are each said, by title, whichever command syncs (a read
    /// syncs first): the posts come back, and nothing is left unsaid on a later sync.
    @Test func everyRefusedDeletionIsSaidWhicheverCommandSyncs() throws {
        let app = App()
        for title in ["X1", "X3"] { _ = try app.ok("new", title, "--body", "a", as: "jermaine", device: "laptop") }
        _ = try app.ok("sync", as: "jermaine", device: "phone")
        var offline = app.environment
        offline["CLOUDNOTES_FAULTS"] = "unreachable"
        for title in ["X1", "X3"] {
            let deleted = try CloudNotesBinary.run(["delete", title, "--yes", "--account", "jermaine", "--device", "phone"], environment: offline)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            _ = try app.ok("edit", title, "--body", "b", as: "jermaine", device: "laptop")
        }
        let listed = try app.run("list", as: "jermaine", device: "phone")
        #expect(listed.status == 0)
        let said = listed.stderr.split(separator: "\n").filter { $0.contains("not deleted") }
        #expect(said.count == 2 && said.contains { $0.contains("\"X1\"") } && said.contains { $0.contains("\"X3\"") }, "\(listed.stderr)")
        #expect(try app.titles("jermaine", device: "phone") == ["X1", "X3"])
    }

    /// A notebook deleted on one device while an edit made offline in it waits on another comes back with that edit:
    /// said once, as kept (not as a failure: the edit was made), never silently.
    @Test func aNotebookDeletedWhileAnEditInItWaitedComesBackSaying() throws {
        let app = App()
        _ = try app.ok("new-notebook", "Trip", as: "jermaine", device: "laptop")
        _ = try app.ok("new", "Plan", "--body", "day one", "--notebook", "Trip", as: "jermaine", device: "laptop")
        _ = try app.ok("sync", as: "jermaine", device: "phone")
        var offline = app.environment
        offline["CLOUDNOTES_FAULTS"] = "unreachable"
        let edited = try CloudNotesBinary.run(["edit", "Plan", "--body", "day one, then the lake", "--account", "jermaine", "--device", "phone"],
                                             environment: offline)
        #expect(edited.status == 0, "\(edited.stderr)")
        _ = try app.ok("delete-notebook", "Trip", "--yes", as: "jermaine", device: "laptop")

        let synced = try app.run("sync", as: "jermaine", device: "phone")
        #expect(synced.status == 0 && synced.stdout.contains("synced"), "\(synced.stdout)\(synced.stderr)")
        let said = synced.stderr.split(separator: "\n")
        #expect(said.count == 1 && said[0].hasPrefix("cloudnotes: kept: \"Plan\"")
                && said[0].contains("notebook Trip is no longer in the cloud") && said[0].contains("delete the notebook again"), "\(synced.stderr)")
        _ = try app.ok("sync", as: "jermaine", device: "laptop")
        let plan = try app.post("Plan", as: "jermaine", device: "laptop")
        #expect(plan["content"] as? String == "day one, then the lake" && plan["notebook"] as? String == "Trip")
        #expect(try app.run("sync", as: "jermaine", device: "phone").stderr.isEmpty, "said once")
    }

    /// The same with a comment written offline: the post it is on comes back with it (a tryout found the notebook back
    /// empty, the comment shown nowhere, under a line that named it by its ID and said it was kept).
    @Test func aNotebookDeletedWhileACommentInItWaitedComesBackWithThePost() throws {
        let app = App()
        _ = try app.ok("new-notebook", "Trip", as: "jermaine", device: "laptop")
        _ = try app.ok("new", "Plan", "--body", "day one", "--notebook", "Trip", as: "jermaine", device: "laptop")
        _ = try app.ok("sync", as: "jermaine", device: "phone")
        var offline = app.environment
        offline["CLOUDNOTES_FAULTS"] = "unreachable"
        let commented = try CloudNotesBinary.run(["comment", "Plan", "bring boots", "--account", "jermaine", "--device", "phone"],
                                                environment: offline)
        #expect(commented.status == 0, "\(commented.stderr)")
        _ = try app.ok("delete-notebook", "Trip", "--yes", as: "jermaine", device: "laptop")

        let synced = try app.run("sync", as: "jermaine", device: "phone")
        let said = synced.stderr.split(separator: "\n")
        #expect(synced.status == 0 && said.count == 1 && said[0].hasPrefix("cloudnotes: kept: comment on \"Plan\" (c")
                && said[0].contains("notebook Trip is no longer in the cloud"), "\(synced.stderr)")
        _ = try app.ok("sync", as: "jermaine", device: "laptop")
        let plan = try app.post("Plan", as: "jermaine", device: "laptop")
        let comments = plan["comments"] as? [[String: Any]] ?? []
        #expect(plan["notebook"] as? String == "Trip" && comments.map { $0["text"] as? String } == ["bring boots"], "\(plan)")
    }

    /// Shared as a whole, it comes back shared with nobody (its share went with it), and that is said too, not left for
    /// its participants to wonder about (a tryout).
    @Test func aSharedNotebookBroughtBackSaysItIsSharedWithNobody() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new-notebook", "Trip", as: "jermaine", device: "laptop")
        _ = try app.ok("new", "Plan", "--body", "day one", "--notebook", "Trip", as: "jermaine", device: "laptop")
        let url = try app.ok("share", "--notebook", "Trip", "--invite", "heather", as: "jermaine", device: "laptop")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("sync", as: "jermaine", device: "phone")
        var offline = app.environment
        offline["CLOUDNOTES_FAULTS"] = "unreachable"
        _ = try CloudNotesBinary.run(["edit", "Plan", "--body", "day one, then the lake", "--account", "jermaine", "--device", "phone"],
                                     environment: offline)
        _ = try app.ok("delete-notebook", "Trip", "--yes", as: "jermaine", device: "laptop")

        let synced = try app.run("sync", as: "jermaine", device: "phone")
        #expect(synced.status == 0 && synced.stderr.contains("kept: \"Plan\"")
                && synced.stderr.contains("it is shared with nobody now: share it again"), "\(synced.stderr)")
        #expect(!(try app.ok("list", as: "heather")).contains("Plan"))
    }

    /// `status` says what the sync it made first did not do as asked, in its table as well as on stderr: never "last
    /// error none" alone just after a change was refused (a tryout).
    @Test func statusSaysWhatItsOwnSyncDidNotDoAsAsked() throws {
        let app = App()
        _ = try app.ok("new", "X1", "--body", "a", as: "jermaine", device: "laptop")
        _ = try app.ok("sync", as: "jermaine", device: "phone")
        var offline = app.environment
        offline["CLOUDNOTES_FAULTS"] = "unreachable"
        _ = try CloudNotesBinary.run(["delete", "X1", "--yes", "--account", "jermaine", "--device", "phone"], environment: offline)
        _ = try app.ok("edit", "X1", "--body", "b", as: "jermaine", device: "laptop")
        let status = try app.run("status", as: "jermaine", device: "phone")
        #expect(status.stderr.contains("not deleted") && status.stdout.contains("1 change was not made as asked"), "\(status.stdout)\n\(status.stderr)")
    }

    @Test func aRefusedPostIsNeverSaidToBeSyncedAndCanBeDiscarded() throws {
        let app = App()
        _ = try app.ok("new", "Diary", "--body", "short", as: "jermaine")
        // What an older version let through: the post grown past the record limit, waiting to be sent (the cloud's
        // copy kept aside as the base, as an edit keeps it).
        let device = app.directory.url.appendingPathComponent("data/devices/jermaine")
        let id = try DeviceStore(directory: device).post("Diary").recordID
        let known = try #require(try DeviceStore(directory: device).record(for: id, in: .private))
        let store = try DatabaseQueue(path: device.appendingPathComponent("private.sqlite").path)
        try store.write { db in
            try db.execute(sql: "INSERT INTO server_records(zone_name, zone_owner, name, record, change_tag) VALUES (?, ?, ?, ?, ?)",
                           arguments: [id.zone.name, id.zone.owner, id.name, RecordArchive.encode(known), known.changeTag])
            try db.execute(sql: "UPDATE posts SET content = ?, change_tag = NULL", arguments: [Self.huge])
            try db.execute(sql: "INSERT INTO pending(zone_name, zone_owner, name, kind) VALUES (?, ?, ?, 'saveRecord')",
                           arguments: [id.zone.name, id.zone.owner, id.name])
        }
        try store.close()

        let sync = try app.run("sync", as: "jermaine")
        #expect(sync.isOneLineRefusal, "\(sync)")
        #expect(sync.stderr.contains("not synced: the cloud refused the post \"Diary\"") && sync.stderr.contains("too large for the cloud (1.2 MB of 1 MB)"))
        #expect(!sync.stdout.contains("synced"))

        let status = try JSONSerialization.jsonObject(with: Data(try app.ok("status", "--json", as: "jermaine").utf8)) as! [String: Any]
        #expect(status["pending"] as? Int == 0)
        let notSent = status["notSent"] as? [[String: Any]]
        #expect(notSent?.count == 1 && (notSent?.first?["reason"] as? String)?.contains("too large") == true, "\(status)")
        #expect(try app.ok("status", as: "jermaine").contains("1 — refused by the cloud, kept on this device"))
        #expect(try app.ok("show", "Diary", as: "jermaine").contains("not sent  too large for the cloud (1.2 MB of 1 MB)"))
        #expect(try app.ok("list", as: "jermaine").contains("not-sent"))

        // Kept only here: signing the device into another account is refused until it is edited or discarded.
        let switched = try CloudNotesBinary.run(["sign-in", "mary", "--device", "jermaine"], environment: app.environment)
        #expect(switched.isOneLineRefusal && switched.stderr.contains("the cloud refused is kept only on device jermaine"), "\(switched)")
        let asked = try app.run("discard", "Diary", as: "jermaine")
        #expect(asked.isOneLineRefusal && asked.stderr.contains("--yes"))
        #expect(try app.ok("discard", "Diary", "--yes", as: "jermaine").contains("discarded; \"Diary\" is as the cloud has it"))
        #expect(try app.post("Diary", as: "jermaine")["content"] as? String == "short")
        #expect(try app.ok("sync", as: "jermaine").contains("synced; 0 changes waiting"))
        let again = try app.run("discard", "Diary", "--yes", as: "jermaine")
        #expect(again.isOneLineRefusal && again.stderr.contains("nothing to discard"))
    }

    /// Text with a NUL byte would be cut short at it where the device reads it back: refused whole, in one line;
    /// giving the text twice is a usage error, said as one.
    @Test func textThatCannotBeKeptWholeIsRefusedInOneLine() throws {
        let app = App()
        let file = app.directory.url.appendingPathComponent("nul.txt")
        try Data("first words\0second WORDS\nthird line\n".utf8).write(to: file)
        let new = try app.run("new", "Nul", "--body-file", file.path, as: "jermaine")
        #expect(new.isOneLineRefusal && new.stderr.contains("NUL byte"), "\(new.stderr)")
        let imported = try app.run("import", file.path, as: "jermaine")
        #expect(imported.isOneLineRefusal && imported.stderr.contains("NUL byte"), "\(imported.stderr)")
        #expect(try app.titles("jermaine") == [])
        let twice = try app.run("new", "Twice", "--body", "a", "--body-file", file.path, as: "jermaine")
        #expect(twice.status == 64 && twice.isOneLineRefusal && twice.stderr.contains("not both") && !twice.stderr.contains("CLIError"),
                "\(twice)")
    }

    @Test func textTooLargeForARecordIsRefusedBeforeAnythingIsSaved() throws {
        let app = App()
        let paste = app.directory.url.appendingPathComponent("paste.txt")
        try Self.huge.write(to: paste, atomically: true, encoding: .utf8)
        let new = try app.run("new", "Paste", "--body-file", paste.path, as: "jermaine")
        #expect(new.isOneLineRefusal && new.stderr.contains("\"Paste\" is too large for the cloud (1.2 MB of 1 MB): nothing was saved"), "\(new.stderr)")
        #expect(try app.titles("jermaine") == [])

        let good = app.directory.url.appendingPathComponent("good.md"), big = app.directory.url.appendingPathComponent("big.md")
        try "---\ntitle: \"Fine\"\n---\ntext\n".write(to: good, atomically: true, encoding: .utf8)
        try ("---\ntitle: \"Big\"\n---\n" + Self.huge).write(to: big, atomically: true, encoding: .utf8)
        let imported = try app.run("import", good.path, big.path, as: "jermaine")
        #expect(imported.isOneLineRefusal && imported.stderr.contains("big.md: \"Big\" is too large") && imported.stderr.contains("nothing was imported"))
        #expect(try app.titles("jermaine") == [])
    }
}
