import Foundation
import Testing
import TestSupport

/// People edit what their screen showed a while ago, on several devices at
/// once: `cloudnotes edit` merges against the copy the device showed before
/// it synced, so nobody's acknowledged words are overwritten.
@Suite struct ConcurrentEditTests {
    @Test func anEditFromTheCopyShownBeforeSyncingKeepsTheOtherDevicesLine() throws {
        let app = App()
        _ = try app.ok("new", "M", "--body", "L1\nL2\nL3\nL4", as: "jo", device: "d1")
        _ = try app.ok("sync", as: "jo", device: "d2")
        _ = try app.ok("edit", "M", "--body", "L1-by-d1\nL2\nL3\nL4", as: "jo", device: "d1")
        let second = try app.ok("edit", "M", "--body", "L1\nL2\nL3-by-d2\nL4", as: "jo", device: "d2")
        #expect(second.contains("merged with the edit by jo on d1"))
        for device in ["d1", "d2", "d3"] {
            let post = try app.post("M", as: "jo", device: device)
            #expect(post["content"] as? String == "L1-by-d1\nL2\nL3-by-d2\nL4", "\(device)")
        }
    }

    @Test func devicesEditingOneLineEachAtOnceAllKeepTheirLine() throws {
        let app = App()
        let devices = ["d1", "d2", "d3", "d4"]
        _ = try app.ok("new", "M", "--body", devices.map { "line of \($0)" }.joined(separator: "\n"), as: "jo", device: "d1")
        for device in devices { _ = try app.ok("sync", as: "jo", device: device) }
        for round in 1...3 {
            // Every device edits its own line of the copy it holds, all at once, as separate processes.
            let shown = try devices.map { try app.post("M", as: "jo", device: $0)["content"] as! String }
            let running = try devices.enumerated().map { index, device in
                var lines = shown[index].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines[index] += " r\(round)"
                return try CloudNotesBinary.start(["edit", "M", "--body", lines.joined(separator: "\n"), "--account", "jo", "--device", device],
                                                  environment: app.environment)
            }
            for result in running.map({ $0.finish() }) { #expect(result.status == 0, "\(result.stderr)") }
            for device in devices { _ = try app.ok("sync", as: "jo", device: device) }
            let expected = devices.map { device in "line of \(device)" + (1...round).map { " r\($0)" }.joined() }.joined(separator: "\n")
            for device in devices {
                let content = try app.post("M", as: "jo", device: device)["content"] as? String
                #expect(content == expected, "round \(round), \(device)")
            }
        }
    }

    @Test func anOverlappingEditShowsBothSidesAndResolvesFromTheShell() throws {
        let app = App()
        _ = try app.ok("new", "List", "--body", "milk\neggs", as: "heather", device: "phone")
        _ = try app.ok("sync", as: "heather", device: "laptop")
        _ = try app.ok("edit", "List", "--body", "milk\nduck eggs", as: "heather", device: "phone")
        let edited = try app.ok("edit", "List", "--body", "milk\nno eggs", as: "heather", device: "laptop")
        #expect(edited.contains("cloudnotes resolve"))
        // The other device's sync says so too, once: a conflict it fetched is not left for its person to find.
        let synced = try app.ok("sync", as: "heather", device: "phone")
        #expect(synced.contains("conflict in 'List'") && synced.contains("cloudnotes resolve"), "\(synced)")
        #expect(!(try app.ok("sync", as: "heather", device: "phone")).contains("conflict"))

        let shown = try app.post("List", as: "heather", device: "phone")
        #expect(shown["conflicted"] as? Bool == true)
        let conflicts = try #require(shown["conflicts"] as? [[String: Any]])
        let sides = try #require(conflicts.first?["sides"] as? [[String: Any]])
        #expect(sides.map { "\($0["author"]!) \($0["device"]!) \($0["text"]!)" } == ["heather phone duck eggs", "heather laptop no eggs"])

        let both = try app.run("resolve", "List", "--mine", "--theirs", as: "heather", device: "phone")
        #expect(both.status == 64)
        #expect(try app.ok("resolve", "List", "--mine", as: "heather", device: "phone").contains("keeping mine"))
        for device in ["phone", "laptop"] {
            let post = try app.post("List", as: "heather", device: device)
            #expect(post["content"] as? String == "milk\nduck eggs" && post["conflicted"] as? Bool == false, "\(device)")
        }
        let again = try app.run("resolve", "List", "--both", as: "heather", device: "phone")
        #expect(again.isOneLineRefusal && again.stderr.contains("holds no conflict"), "\(again.stderr)")
    }
}

/// Two data directories of one account (two keychains) post with a location
/// at the same moment, before either synced: both make the zone's first key.
@Suite struct ZoneKeyRaceTests {
    @Test func twoKeychainsRacingForTheFirstKeyBothEndUpSyncedAndReadable() throws {
        let cloud = TemporaryDirectory("race")
        let homes = ["one", "two"].map { cloud.url.appendingPathComponent($0).path }
        func environment(_ home: String) -> [String: String] {
            ["CLOUDNOTES_CLOUD": cloud.url.appendingPathComponent("cloud").path, "CLOUDNOTES_DATA": home]
        }
        _ = try TestStore.open(directory: cloud.url.appendingPathComponent("cloud"), faults: nil)
        _ = try CloudNotesBinary.run(["cloud", "create-account", "jo"], environment: environment(homes[0]))
        let running = try homes.enumerated().map { index, home in
            try CloudNotesBinary.start(["new", "From \(index)", "--location", "Place \(index)", "--account", "jo"], environment: environment(home))
        }
        for result in running.map({ $0.finish() }) { #expect(result.status == 0, "\(result.stderr)") }
        for _ in 0..<2 { for home in homes { _ = try CloudNotesBinary.run(["sync", "--account", "jo"], environment: environment(home)) } }
        for home in homes {
            let status = try JSONSerialization.jsonObject(with: Data(try CloudNotesBinary.run(["status", "--json", "--account", "jo"],
                                                                                                  environment: environment(home)).stdout.utf8)) as! [String: Any]
            #expect(status["pending"] as? Int == 0 && status["lastError"] == nil, "\(status)")
            for index in 0..<2 {
                let shown = try CloudNotesBinary.run(["show", "From \(index)", "--json", "--account", "jo"], environment: environment(home))
                let post = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
                #expect(post?["location"] as? String == "Place \(index)", "\(home): \(shown.stderr)")
            }
        }
    }
}
