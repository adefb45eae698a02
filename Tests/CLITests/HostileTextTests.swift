import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

/// Text another account controls reaches the owner's terminal inert: heather,
/// a read-write participant, sends a raw save whose title holds a clipboard
/// write (OSC 52), a screen clear and a line break before a forged line.
@Suite struct HostileTextTests {
    let cli = CLI()
    let hostileTitle = "T\u{1B}]52;c;aGFja2Vk\u{07}\u{1B}[2J\nFAKE LINE\u{202E}"
    let postID: String

    init() throws {
        _ = try cli.ok("status", "--account", "heather", "--device", "h1")
        _ = try cli.ok("new", "Meeting", "--body", "line A", "--account", "jermaine", "--device", "d1")
        let shown = try cli.json("show", "Meeting", "--account", "jermaine", "--device", "d1") as! [String: Any]
        postID = shown["id"] as! String
        let url = try cli.ok("share", "Meeting", "--invite", "heather", "--read-write", "--account", "jermaine", "--device", "d1")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try cli.ok("accept", url, "--account", "heather", "--device", "h1")
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--database", "shared", "--owner", "jermaine",
                       "--zone", "Notes", "--type", "Post", "--name", postID, "--field", "title=\(hostileTitle)")
        _ = try cli.ok("sync", "--account", "jermaine", "--device", "d1")
    }

    /// No byte that a terminal takes as a command, and no line that starts with the forged text.
    func expectInert(_ output: String, _ command: String, showsTitle: Bool = true) {
        let controls = output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0.value == 0x202E }
        #expect(controls.isEmpty, "\(command) wrote \(controls.map { String($0.value, radix: 16) })")
        #expect(!output.split(separator: "\n").contains { $0.hasPrefix("FAKE LINE") }, "\(command) printed the forged line")
        #expect(!showsTitle || output.contains("\\u{1B}]52;c;aGFja2Vk\\u{07}\\u{1B}[2J\\nFAKE LINE"), "\(command) shows the escapes: \(output)")
    }

    @Test func listShowAndChangesPrintOthersTitlesInert() throws {
        expectInert(try cli.ok("list", "--account", "jermaine", "--device", "d1"), "list")
        expectInert(try cli.ok("show", postID, "--account", "jermaine", "--device", "d1"), "show")
        expectInert(try cli.ok("cloud", "changes", "--account", "jermaine", "--zone", "Notes"), "cloud changes", showsTitle: false)
        expectInert(try cli.ok("cloud", "get-record", "--account", "jermaine", "--zone", "Notes", postID), "cloud get-record")
        expectInert(try cli.ok("cloud", "dump"), "cloud dump")
    }

    @Test func jsonKeepsTheTitleExactly() throws {
        let shown = try cli.json("show", postID, "--account", "jermaine", "--device", "d1") as! [String: Any]
        #expect(shown["title"] as? String == hostileTitle)
    }

    @Test func anErrorQuotingTheTitleStaysOneInertLine() throws {
        // A refusal quotes what was typed (here a pasted escape sequence) escaped.
        let refused = try cli.run("show", "\u{1B}[2Jnope", "--account", "jermaine", "--device", "d1")
        #expect(refused.isOneLineRefusal)
        #expect(!refused.stderr.unicodeScalars.contains { $0.value == 0x1B })
    }
}

/// Eve cannot squat the public key of an account that has not run the app
/// yet: its user record in the public database is its own alone, and a key
/// record planted the old way (pk-ID) is not read.
@Suite struct KeySquattingTests {
    @Test func nobodyButTheAccountWritesWhereItsKeyIsPublished() throws {
        let app = App()
        for name in ["jermaine", "eve"] { _ = try app.ok("status", as: name) }
        _ = try CloudNotesBinary.run(["cloud", "create-account", "heather"], environment: app.environment)
        let accounts = try JSONSerialization.jsonObject(with: Data(try CloudNotesBinary.run(["cloud", "accounts", "--json"],
                                                                   environment: app.environment).stdout.utf8)) as! [[String: Any]]
        let heather = try #require(accounts.first { $0["name"] as? String == "heather" }?["id"] as? String)
        let fakeKey = Data(repeating: 7, count: 32).base64EncodedString()
        let devices = Data("{\"evil\":\"\(fakeKey)\"}".utf8).base64EncodedString()
        for name in [heather, "pk-" + heather] {
            _ = try? app.run("cloud", "save-record", "--database", "public", "--type", "PublicKey", "--name", name,
                             "--field", "devices:bytes=\(devices)", as: "eve")
        }
        let squat = try app.run("cloud", "save-record", "--database", "public", "--type", "PublicKey", "--name", heather,
                                "--field", "devices:bytes=\(devices)", as: "eve")
        #expect(squat.isOneLineRefusal && squat.stderr.contains("another account's user record"), "\(squat.stderr)")

        // Heather runs the app; jermaine shares a post with a location with her: she reads it, sealed for her key only.
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Meeting", "--location", "Hanoi", as: "jermaine")
        let url = try app.ok("share", "Meeting", "--invite", "heather", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("sync", as: "jermaine")
        #expect(try app.post("Meeting", as: "heather")["location"] as? String == "Hanoi")
        let keys = try CloudNotesBinary.run(["cloud", "dump", "--json"], environment: app.environment).stdout
        #expect(!keys.contains("evil"), "no envelope for eve's planted key")
    }
}

/// A location a device cannot open is said, not shown as nothing: heather's
/// account existed, but she had never run the app when mary shared, so no
/// key was wrapped for her until mary's devices next sync.
@Suite struct LockedLocationTests {
    @Test func aLocationThisDeviceCannotOpenYetIsSaidInShowAndStatus() throws {
        let app = App()
        _ = try CloudNotesBinary.run(["cloud", "create-account", "heather"], environment: app.environment)
        _ = try app.ok("new", "Trip", "--location", "Da Lat", as: "mary")
        let url = try app.ok("share", "Trip", "--invite", "heather", as: "mary").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")

        let shown = try app.post("Trip", as: "heather")
        #expect(shown["location"] == nil && shown["locationLocked"] as? Bool == true)
        #expect(try app.ok("show", "Trip", as: "heather").contains("sealed with a key this device has not been granted yet"))
        #expect(try app.ok("status", as: "heather").contains("1 post with a location sealed with a key"))

        _ = try app.ok("sync", as: "mary")  // grants heather's key, published on her first run
        #expect(try app.post("Trip", as: "heather")["location"] as? String == "Da Lat")
        #expect(!(try app.ok("status", as: "heather")).contains("sealed with a key"))
    }
}

/// Others' text is laid out in time linear in it: a title of 200,000 characters (saved by a client with no limit)
/// lists in well under the minute the old padding took on a tenth of it, cut to a width a terminal shows, and does
/// not widen the other rows (each was padded to it: a 900 KB title made a 35 MB list).
@Suite struct LongTextTests {
    @Test func aVeryLongTitleFromAnotherClientListsAtOnce() throws {
        let app = App()
        _ = try app.ok("new", "Short", as: "jermaine")
        let cloud = try TestStore.open(directory: app.directory.url.appendingPathComponent("cloud"), faults: nil)
        let jermaine = try cloud.account(named: "jermaine")
        var record = Record(type: "Post", id: RecordID(name: "long", zone: ZoneID(name: "Notes")))
        record["title"] = .string(Array(repeating: "word", count: 40_000).joined(separator: " "))
        record["content"] = .string("")
        _ = try cloud.database(.private, as: jermaine).save(record, policy: .allKeys)
        _ = try app.ok("sync", as: "jermaine")
        let listing = try CloudNotesBinary.start(["list", "--account", "jermaine"], environment: app.environment)
        let done = DispatchSemaphore(value: 0), output = Mutex("")
        Thread {
            output.withLock { $0 = listing.finish().stdout }  // (read as it is written: a pipe holds 64 KB)
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 20) == .success
        #expect(finished, "list still running after 20 s")
        if !finished { listing.terminate() }
        _ = done.wait(timeout: .now() + 5)
        let lines = output.withLock { $0 }.split(separator: "\n")
        #expect(lines.contains { $0.contains("word word") && $0.contains("…") })
        #expect(lines.allSatisfy { $0.count < 200 }, "\(lines.map(\.count))")
    }
}
