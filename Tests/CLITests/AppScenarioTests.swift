import Cloud
import Foundation
import Notes
import Testing
import TestSupport

/// Where the scenarios' cloud is: a directory every process opens, or a server on loopback.
enum CloudPlace: String, CaseIterable, CustomStringConvertible, Sendable {
    case directory, server
    var description: String { rawValue }
}

/// Several accounts and devices as separate `cloudnotes` processes against one temporary cloud. With a server,
/// each account is a machine of its own (its own data directory, nothing shared but the server), and each device
/// signs in with a code from the operator before its first command.
final class App: @unchecked Sendable {
    let directory = TemporaryDirectory("app")
    let place: CloudPlace
    private var server: TestServer?
    private let lock = NSLock()
    private var signedIn: Set<String> = []

    convenience init() {
        do { try self.init(.directory) } catch { fatalError("cannot make the test's cloud: \(error)") }
    }

    /// With a new, empty cloud (as `cloudnotes cloud init` makes one; no command makes one by itself), served or not.
    init(_ place: CloudPlace) throws {
        self.place = place
        _ = try TestStore.open(directory: directory.url.appendingPathComponent("cloud"), faults: nil)
        if place == .server { server = try TestServer(cloud: directory.url.appendingPathComponent("cloud")) }
    }

    /// For the operator's commands (`cloudnotes cloud …`): the cloud directory, on the server's machine.
    var environment: [String: String] {
        ["CLOUDNOTES_CLOUD": directory.url.appendingPathComponent("cloud").path,
         "CLOUDNOTES_DATA": directory.url.appendingPathComponent("data").path]
    }

    /// For an account's commands: its machine.
    func environment(of account: String) -> [String: String] {
        guard let server else { return environment }
        return ["CLOUDNOTES_CLOUD": server.url.absoluteString, "CLOUDNOTES_DATA": directory.url.appendingPathComponent("machines/\(account)").path]
    }

    /// Makes the account if new and signs the device in, once: on a directory cloud with `sign-in` (no other
    /// command makes an account), on a server with a fresh code.
    /// (A device of a directory cloud is signed in at its first use only: a test may then use it as another
    /// account, to see that refused.)
    func signIn(_ account: String, device: String? = nil) throws {
        let device = device ?? account
        guard lock.withLock({ signedIn.insert(server == nil ? device : "\(account)/\(device)").inserted }) else { return }
        guard let server else {
            let signIn = try CloudNotesBinary.run(["sign-in", account, "--device", device], environment: environment)
            guard signIn.status == 0 else { throw CLITestFailure("sign-in \(account)/\(device): \(signIn.stderr)") }
            return
        }
        var made = try CloudNotesBinary.run(["cloud", "create-account", account, "--json"], environment: environment)
        if made.status != 0 { made = try CloudNotesBinary.run(["cloud", "enrol", account, "--json"], environment: environment) }
        guard made.status == 0, let code = (try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])?["code"] as? String
        else { throw CLITestFailure("no enrolment code for \(account): \(made.stderr)") }
        let signIn = try CloudNotesBinary.run(["sign-in", account, "--device", device, "--cloud", server.url.absoluteString, "--code", code],
                                             environment: environment(of: account))
        guard signIn.status == 0 else { throw CLITestFailure("sign-in \(account)/\(device): \(signIn.stderr)") }
    }

    /// `device` nil: the account's own default device.
    func run(_ arguments: String..., as account: String, device: String? = nil) throws -> ProcessResult {
        try run(arguments, as: account, device: device)
    }

    func run(_ arguments: [String], as account: String, device: String? = nil) throws -> ProcessResult {
        try signIn(account, device: device)
        return try CloudNotesBinary.run(arguments + ["--account", account] + (device.map { ["--device", $0] } ?? []),
                                        environment: environment(of: account))
    }

    func ok(_ arguments: String..., as account: String, device: String? = nil) throws -> String {
        try signIn(account, device: device)
        let result = try CloudNotesBinary.run(arguments + ["--account", account] + (device.map { ["--device", $0] } ?? []),
                                              environment: environment(of: account))
        guard result.status == 0 else {
            throw CLITestFailure("cloudnotes \(arguments.joined(separator: " ")) as \(account) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    func titles(_ account: String, device: String? = nil) throws -> [String] {
        let posts = try JSONSerialization.jsonObject(with: Data(try ok("list", "--json", as: account, device: device).utf8)) as! [[String: Any]]
        return posts.map { $0["title"] as! String }.sorted()
    }

    func post(_ title: String, as account: String, device: String? = nil) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try ok("show", title, "--json", as: account, device: device).utf8)) as! [String: Any]
    }
}

@Suite struct AppScenarioTests {
    @Test(arguments: CloudPlace.allCases) func scenarios1And2ShareAcceptAndParticipants(_ place: CloudPlace) throws {
        let app = try App(place)
        _ = try app.ok("new", "Sharing demo is great", "--body", "hello", as: "jermaine")
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        let url = try app.ok("share", "Sharing demo is great", "--invite", "heather@example.com,mary@example.com", "--read-write",
                             as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("cloudnotes://share/"))

        #expect(try app.ok("accept", url, as: "heather").contains("accepted \"Sharing demo is great\" from jermaine"))
        #expect(try app.titles("heather") == ["Sharing demo is great"])
        #expect(try app.post("Sharing demo is great", as: "heather")["shared"] as? Bool == true)

        let participants = try JSONSerialization.jsonObject(
            with: Data(try app.ok("participants", "Sharing demo is great", "--json", as: "jermaine").utf8)) as! [String: Any]
        let rows = (participants["participants"] as! [[String: Any]]).map { "\($0["name"]!) \($0["role"]!) \($0["permission"]!) \($0["status"]!)" }
        #expect(rows == ["jermaine owner readWrite accepted", "heather privateUser readWrite accepted", "mary privateUser readWrite pending"])
        _ = try app.ok("accept", url, as: "mary")
        #expect(try app.ok("participants", "Sharing demo is great", as: "heather").contains("read-write  accepted"))
    }

    @Test(arguments: CloudPlace.allCases) func scenario3AReadOnlyShareRefusesEditsWithTheReason(_ place: CloudPlace) throws {
        let app = try App(place)
        _ = try app.ok("status", as: "mary")
        _ = try app.ok("new", "View only", "--body", "look", as: "heather")
        let url = try app.ok("share", "View only", "--invite", "mary@example.com", "--read-only", as: "heather")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "mary")

        let post = try app.post("View only", as: "mary")
        #expect(post["readOnly"] as? Bool == true)
        for refused in [try app.run("edit", "View only", "--body", "mine", as: "mary"), try app.run("delete", "View only", "--yes", as: "mary")] {
            #expect(refused.isOneLineRefusal && refused.stderr.contains("read-only: shared by heather"))
        }
        #expect(try app.post("View only", as: "heather")["content"] as? String == "look")
        #expect(try app.ok("participants", "View only", as: "mary").contains("read-only   accepted"))
    }

    @Test(arguments: CloudPlace.allCases) func scenario5EndingAShare(_ place: CloudPlace) throws {
        let app = try App(place)
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Shared", as: "jermaine")
        let url = try app.ok("share", "Shared", "--invite", "heather@example.com,mary@example.com", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("accept", url, as: "mary")

        _ = try app.ok("set-permission", "Shared", "mary@example.com", "read-only", as: "jermaine")
        #expect(try app.run("edit", "Shared", "--body", "x", as: "mary").stderr.contains("read-only: shared by jermaine"))

        _ = try app.ok("remove-participant", "Shared", "mary@example.com", as: "jermaine")
        #expect(try app.titles("mary").isEmpty)
        #expect(try app.titles("heather") == ["Shared"], "only the removed participant loses it")

        _ = try app.ok("stop-sharing", "Shared", as: "jermaine")
        #expect(try app.titles("heather").isEmpty, "stopping takes it from every participant")
        #expect(try app.titles("jermaine") == ["Shared"], "the owner keeps the post")
    }

    @Test(arguments: CloudPlace.allCases) func scenario5AParticipantLeaves(_ place: CloudPlace) throws {
        let app = try App(place)
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Shared", as: "jermaine")
        let url = try app.ok("share", "Shared", "--invite", "heather@example.com,mary@example.com", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("accept", url, as: "mary")

        _ = try app.ok("leave", "Shared", as: "heather")

        #expect(try app.titles("heather").isEmpty)
        #expect(try app.titles("mary") == ["Shared"], "only the one who leaves loses it")
        #expect(try app.titles("jermaine") == ["Shared"])
    }

    @Test(arguments: CloudPlace.allCases) func scenario6ANotebookSharedAsAWholeIncludingLaterPosts(_ place: CloudPlace) throws {
        let app = try App(place)
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new-notebook", "Trip", as: "jermaine")
        _ = try app.ok("new", "Day one", "--notebook", "Trip", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Trip", "--invite", "heather@example.com", "--invite", "mary@example.com", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("new", "Day two", "--notebook", "Trip", as: "jermaine")

        #expect(try app.titles("heather") == ["Day one", "Day two"])
        let refused = try app.run("share", "Day two", "--invite", "heather@example.com", as: "jermaine")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("shared as a whole"))
        // Leaving from one post says that the whole notebook goes.
        #expect(try app.ok("leave", "Day one", as: "heather").contains("left notebook Trip (2 posts)"))
        #expect(try app.titles("heather") == [])
        // So does removing someone from one post of it.
        #expect(try app.ok("remove-participant", "Day one", "mary@example.com", as: "jermaine")
                .contains("removed mary@example.com from notebook Trip, which \"Day one\" is shared as part of"))
        // Invited again to the notebook shared already: the same share, the same URL.
        let again = try app.ok("share", "--notebook", "Trip", "--invite", "heather@example.com", as: "jermaine")
        #expect(again.trimmingCharacters(in: .whitespacesAndNewlines) == url)
        _ = try app.ok("accept", url, as: "heather")
        #expect(try app.titles("heather") == ["Day one", "Day two"])
    }

    @Test(arguments: CloudPlace.allCases) func scenario7ConcurrentEditsOnTwoDevicesMerge(_ place: CloudPlace) throws {
        let app = try App(place)
        _ = try app.ok("new", "List", "--body", "milk\neggs\nbread", as: "heather", device: "phone")
        _ = try app.ok("list", as: "heather", device: "laptop")
        // Both devices edit before either syncs: the cloud is unreachable for both edits.
        _ = try CloudNotesBinary.run(["cloud", "faults", "--unreachable"], environment: app.environment)
        _ = try app.ok("edit", "List", "--body", "oat milk\neggs\nbread", as: "heather", device: "phone")
        _ = try app.ok("edit", "List", "--body", "milk\neggs\nrye bread", as: "heather", device: "laptop")
        _ = try CloudNotesBinary.run(["cloud", "faults", "--off"], environment: app.environment)

        _ = try app.ok("sync", as: "heather", device: "phone")
        _ = try app.ok("sync", as: "heather", device: "laptop")
        _ = try app.ok("sync", as: "heather", device: "phone")

        for device in ["phone", "laptop"] {
            let shown = try app.ok("show", "List", as: "heather", device: device)
            #expect(shown.contains("oat milk\neggs\nrye bread"), "\(device): \(shown)")
        }
    }

    @Test(arguments: CloudPlace.allCases) func scenario9OfflineEditsWaitAndAreSentWhenTheCloudReturns(_ place: CloudPlace) throws {
        let app = try App(place)
        _ = try app.ok("status", as: "heather")
        _ = try CloudNotesBinary.run(["cloud", "faults", "--unreachable"], environment: app.environment)
        let offline = try app.ok("new", "Written offline", as: "heather")
        #expect(offline.contains("not synced yet"))
        let status = try JSONSerialization.jsonObject(with: Data(try app.ok("status", "--json", as: "heather").utf8)) as! [String: Any]
        #expect(status["pending"] as? Int == 1)

        _ = try CloudNotesBinary.run(["cloud", "faults", "--off"], environment: app.environment)
        _ = try app.ok("sync", as: "heather")
        #expect(try app.titles("heather", device: "laptop") == ["Written offline"])
    }

    @Test func badReferencesAreRefusedInOneLine() throws {
        let app = App()
        _ = try app.ok("new", "One", as: "heather")
        for result in [try app.run("show", "nothing", as: "heather"), try app.run("accept", "cloudnotes://share/x/y", as: "heather"),
                       try app.run("share", "One", "--invite", "nobody@example.com", as: "heather"),
                       try app.run("new", "x", "--notebook", "Missing", as: "heather")] {
            #expect(result.isOneLineRefusal, "\(result.stderr)")
        }
    }
}

@Suite struct EncryptedLocationTests {
    @Test(arguments: CloudPlace.allCases) func scenario8TheLocationIsCiphertextInTheCloudAndEveryParticipantReadsIt(_ place: CloudPlace) throws {
        let app = try App(place)
        _ = try app.ok("status", as: "mary")
        _ = try app.ok("new", "Meet here", "--location", "Secret Cafe, 12 Hang Bac", as: "heather")
        let url = try app.ok("share", "Meet here", "--invite", "mary@example.com", as: "heather").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "mary")

        #expect(try app.post("Meet here", as: "mary")["location"] as? String == "Secret Cafe, 12 Hang Bac")
        #expect(try app.ok("show", "Meet here", "--json", as: "heather", device: "laptop").contains("Secret Cafe"))
        let dump = try CloudNotesBinary.run(["cloud", "dump", "--json"], environment: app.environment)
        #expect(dump.status == 0 && !dump.stdout.contains("Secret Cafe") && dump.stdout.contains("\"location\""))
        let stored = try TestStore.storedBytes(of: app.directory.url.appendingPathComponent("cloud"))
        #expect(!stored.isEmpty && stored.range(of: Data("Secret Cafe".utf8)) == nil)
    }
}

@Suite struct CommentTests {
    @Test func commentsTravelWithASharedPostAndReadOnlyParticipantsCannotComment() throws {
        let app = App()
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Plans", as: "jermaine")
        _ = try app.ok("comment", "Plans", "first!", as: "jermaine")
        let rw = try app.ok("share", "Plans", "--invite", "heather@example.com", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", rw, as: "heather")
        _ = try app.ok("comment", "Plans", "count me in", as: "heather")

        let shown = try app.ok("show", "Plans", as: "jermaine")
        #expect(shown.contains("jermaine") && shown.contains(": first!") && shown.contains("heather") && shown.contains(": count me in"))

        // Her comment is hers: she edits and deletes it; jermaine, the post's owner, does neither.
        let json = try JSONSerialization.jsonObject(with: Data(try app.ok("show", "Plans", "--json", as: "heather").utf8)) as? [String: Any]
        let comments = try #require(json?["comments"] as? [[String: Any]])
        let hers = try #require(comments.first { $0["text"] as? String == "count me in" }?["id"] as? String)
        let notHis = try app.run("comment", "Plans", "--edit", hers, "changed by jermaine", as: "jermaine")
        #expect(notHis.isOneLineRefusal && notHis.stderr.contains("only heather changes that comment"))
        _ = try app.ok("comment", "Plans", "--edit", hers, "count me in, and mary", as: "heather")
        let edited = try app.ok("show", "Plans", as: "jermaine")
        #expect(edited.contains("(edited ") && edited.contains(": count me in, and mary") && !edited.contains("changed by jermaine"))
        #expect(try app.run("comment", "Plans", "--delete", hers, as: "jermaine").isOneLineRefusal)
        _ = try app.ok("comment", "Plans", "--delete", hers, as: "heather")
        let left = try app.ok("show", "Plans", as: "jermaine")
        #expect(left.contains(": first!") && !left.contains("count me in"))

        _ = try app.ok("new", "Read me", as: "jermaine")
        let ro = try app.ok("share", "Read me", "--invite", "mary@example.com", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", ro, as: "mary")
        let refused = try app.run("comment", "Read me", "hi", as: "mary")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("read-only: shared by jermaine"))
    }
}

@Suite struct SyncingProcessTests {
    @Test func whileAnotherProcessSyncsTheDeviceACommandWritesAndWakesIt() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        let device = app.directory.url.appendingPathComponent("data/devices/heather")
        var lock = DeviceLock(directory: device)  // this test plays the front end that syncs
        #expect(lock != nil)

        _ = try app.ok("new", "Written while the front end runs", as: "heather")

        #expect(FileManager.default.fileExists(atPath: device.appendingPathComponent("notify/changed").path), "the syncing process was woken")
        #expect(try app.titles("heather", device: "laptop").isEmpty, "the command itself sent nothing")
        lock = nil
        _ = try app.ok("sync", as: "heather")
        #expect(try app.titles("heather", device: "laptop") == ["Written while the front end runs"])
    }
}

@Suite struct AccountChangeScenarioTests {
    @Test func scenario10SigningADeviceIntoAnotherAccount() throws {
        let app = App()
        _ = try app.ok("new", "Heather's only", as: "heather", device: "family-laptop")
        #expect(try app.titles("heather", device: "family-laptop") == ["Heather's only"])

        let refused = try app.run("list", as: "mary", device: "family-laptop")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("signed into heather"))

        let switched = try CloudNotesBinary.run(["sign-in", "mary", "--device", "family-laptop"], environment: app.environment)
        #expect(switched.status == 0 && switched.stdout.contains("heather's data is no longer shown"))
        #expect(try app.titles("mary", device: "family-laptop").isEmpty)
        #expect(try app.titles("heather") == ["Heather's only"], "heather's data is still hers, in the cloud")
    }
}

@Suite struct InviteMoreTests {
    @Test func moreAccountsAreInvitedToAnExistingShareByNameOrEmail() throws {
        let app = App()
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Plans", "--location", "Hue", as: "jermaine")
        let url = try app.ok("share", "Plans", "--invite", "heather", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")

        let invited = try app.ok("share", "Plans", "--invite", "mary@example.com", "--read-write", as: "jermaine")
        #expect(invited.contains("invited mary@example.com"))
        _ = try app.ok("accept", url, as: "mary")

        #expect(try app.post("Plans", as: "mary")["location"] as? String == "Hue", "the newcomer can open the location too")
        #expect(try app.ok("participants", "Plans", as: "jermaine").contains("mary"))
        #expect(try app.ok("share", "Plans", as: "jermaine") == url + "\n")  // nobody named: its URL again
    }

    /// `--invite` and `--tags` given twice keep both, as a careless person types them: the last alone dropped mary's
    /// invitation without a word.
    @Test func repeatedInvitesAndTagsAllCount() throws {
        let app = App()
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Plans", "--tags", "trip", "--tags", "june,food", as: "jermaine")
        let url = try app.ok("share", "Plans", "--invite", "heather", "--invite", "mary", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for name in ["heather", "mary"] { _ = try app.ok("accept", url, as: name) }
        #expect(try app.post("Plans", as: "mary")["tags"] as? [String] == ["trip", "june", "food"])
        _ = try app.ok("edit", "Plans", "--tags", "a,,a", "--tags", "b,a", as: "jermaine")
        #expect(try app.post("Plans", as: "jermaine")["tags"] as? [String] == ["a", "b"])
    }
}

@Suite struct HistoryAndTrashTests {
    /// Jermaine shares his notebook with heather; her edit and his show in the history both read; a restore is
    /// an edit; a deleted post is in both trashes and comes back; bad versions and names are refused in one line.
    @Test func historyRestoreAndTrashThroughTheCommandLine() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Trip", "--body", "tickets", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Notes", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("edit", "Trip", "--body", "tickets\npassports", as: "heather")
        // An edit that changes nothing says so, and adds no version.
        #expect(try app.ok("edit", "Trip", "--body", "tickets\npassports", as: "heather").hasPrefix("unchanged: "))

        let history = try JSONSerialization.jsonObject(with: Data(try app.ok("history", "Trip", "--json", as: "jermaine").utf8)) as? [[String: Any]]
        #expect(history?.map { $0["by"] as? String } == ["heather", "jermaine"])
        #expect(history?.map { $0["version"] as? Int } == [2, 1] && history?.first?["current"] as? Bool == true)
        let text = try app.ok("history", "Trip", as: "heather")
        #expect(text.contains("version 2 (current)") && text.contains("  + passports") && text.contains("version 1"))  // current when she joined

        _ = try app.ok("restore", "Trip", "--version", "1", as: "jermaine")
        #expect(try app.ok("show", "Trip", "--json", as: "heather").contains("\"content\" : \"tickets\""))
        let refused = try app.run("restore", "Trip", "--version", "99", as: "heather")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("has no version 99"))
        #expect(try app.run("history", "Nowhere", as: "heather").isOneLineRefusal)

        _ = try app.ok("delete", "Trip", "--yes", as: "jermaine")
        _ = try app.ok("sync", as: "heather")
        #expect(try app.titles("heather").isEmpty)
        let trash = try JSONSerialization.jsonObject(with: Data(try app.ok("trash", "--json", as: "heather").utf8)) as? [[String: Any]]
        #expect(trash?.map { $0["title"] as? String } == ["Trip"] && trash?.first?["deletedBy"] as? String == "jermaine")
        #expect(try app.run("trash", "--empty", "--yes", as: "heather").stdout.contains("0 posts"))  // not hers to empty
        _ = try app.ok("restore-deleted", "Trip", as: "heather")
        #expect(try app.titles("jermaine") == ["Trip"])
        #expect(try app.ok("show", "Trip", "--json", as: "jermaine").contains("\"content\" : \"tickets\""))
    }
}

@Suite struct NoticeCommandTests {
    @Test func noticesListWhatOthersDidInWords() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        #expect(try app.ok("notices", as: "jermaine") == "no notices yet\n")
        _ = try app.ok("new", "Trip", as: "jermaine")
        let url = try app.ok("share", "Trip", "--invite", "heather", "--read-write", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        #expect(try app.ok("notices", as: "jermaine").contains("heather accepted your invitation to \"Trip\""))
        _ = try app.ok("set-permission", "Trip", "heather@example.com", "read-only", as: "jermaine")
        let json = try JSONSerialization.jsonObject(with: Data(try app.ok("notices", "--json", as: "heather").utf8)) as? [[String: Any]]
        #expect(json?.map { $0["text"] as? String } == ["your permission on \"Trip\" is now read-only"])
        #expect(json?.first?["kind"] as? String == "permission" && json?.first?["by"] as? String == "jermaine")
    }

    /// `sync` says what others did that it heard, once: after its own line, then never again (still listed by `notices`).
    @Test func syncSaysNewNoticesOnce() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Trip", as: "jermaine")
        let url = try app.ok("share", "Trip", "--invite", "heather", "--read-write", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("set-permission", "Trip", "heather@example.com", "read-only", as: "jermaine")
        #expect(try app.ok("sync", as: "heather") == "synced; 0 changes waiting\nnotice: your permission on \"Trip\" is now read-only\n")
        #expect(try app.ok("sync", as: "heather") == "synced; 0 changes waiting\n", "said once")
        #expect(try app.ok("notices", as: "heather").contains("your permission on \"Trip\" is now read-only"))
    }
}

/// A notebook shared as a whole: its participants' permission is changed by naming the notebook (one with no post
/// yet too), or through a post in it, said as the notebook's; bad input is refused in one line, changing nothing.
@Suite struct NotebookPermissionTests {
    @Test func aNotebooksPermissionIsSetByNameOrThroughAPostInIt() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new-notebook", "Trip", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Trip", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        #expect(try app.ok("set-permission", "--notebook", "Trip", "heather@example.com", "read-only", as: "jermaine")
                == "heather@example.com is now read-only in notebook Trip\n")
        #expect(try app.ok("notices", as: "heather").contains("your permission on notebook Trip is now read-only"))
        _ = try app.ok("new", "Plan", "--notebook", "Trip", as: "jermaine")
        #expect(try app.ok("set-permission", "Plan", "heather@example.com", "read-write", as: "jermaine")
                == "heather@example.com is now read-write in notebook Trip, which \"Plan\" is shared as part of\n")

        for (arguments, says) in [(["--notebook", "Trip", "mary@example.com", "read-only"], "mary@example.com does not take part in notebook Trip"),
                                  (["--notebook", "Notes", "heather@example.com", "read-only"], "notebook Notes is not shared as a whole"),
                                  (["Plan", "--notebook", "Trip", "heather@example.com", "read-only"], "say where"),
                                  // "none" would leave heather listed and cut off: taking someone off is its own command.
                                  (["--notebook", "Trip", "heather@example.com", "none"], "use remove-participant"),
                                  (["Plan", "heather@example.com", "NONE"], "use remove-participant"),
                                  (["Plan", "jermaine@example.com", "read-only"], "jermaine@example.com owns \"Plan\": the owner always")] {
            let refused = try app.run(["set-permission"] + arguments, as: "jermaine")
            #expect(refused.isOneLineRefusal && refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
        }
        let json = try JSONSerialization.jsonObject(with: Data(try app.ok("notices", "--json", as: "heather").utf8)) as? [[String: Any]]
        #expect(json?.compactMap { $0["text"] as? String }.first == "your permission on notebook Trip is now read-write")
        #expect(try app.ok("list", as: "heather").contains("Plan"))
    }

    @Test func aNotebookWithNoPostIsLeftByAParticipantTakenOffThenStoppedSharing() throws {
        let app = App()
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new-notebook", "Trip", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Trip", "--invite", "heather", "--invite", "mary", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for name in ["heather", "mary"] { _ = try app.ok("accept", url, as: name) }
        // (A notebook with no post is seen by listing it: "no posts in notebook Trip", or a refusal once it is gone.)
        func holdsTrip(_ name: String) throws -> Bool { try app.run("list", "--notebook", "Trip", as: name).status == 0 }
        #expect(try holdsTrip("mary"))

        #expect(try app.ok("remove-participant", "--notebook", "Trip", "mary@example.com", as: "jermaine")
                == "removed mary@example.com from notebook Trip\n")
        #expect(try !holdsTrip("mary") && holdsTrip("heather"))
        let owner = try app.run("remove-participant", "--notebook", "Trip", "jermaine@example.com", as: "jermaine")
        #expect(owner.isOneLineRefusal && owner.stderr.contains("jermaine@example.com owns notebook Trip"), "\(owner.stderr)")
        #expect(try app.ok("stop-sharing", "--notebook", "Trip", as: "jermaine") == "stopped sharing notebook Trip\n")
        #expect(try !holdsTrip("heather") && holdsTrip("jermaine"))

        for (arguments, says) in [(["stop-sharing", "--notebook", "Trip"], "notebook Trip is not shared as a whole"),
                                  (["remove-participant", "--notebook", "Trip", "heather@example.com"], "not shared as a whole"),
                                  (["remove-participant", "Trip"], "say where"),
                                  (["stop-sharing"], "say what to stop sharing")] {
            let refused = try app.run(arguments, as: "jermaine")
            #expect(refused.isOneLineRefusal && refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
        }
    }
}

@Suite struct InvitationInboxTests {
    @Test(arguments: CloudPlace.allCases) func anInvitationIsSeenAndAcceptedOrDeclinedWithoutAURL(_ place: CloudPlace) throws {
        let app = try App(place)
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Trip", as: "jermaine")
        _ = try app.ok("new", "Budget", as: "jermaine")
        // (By email: a server finds strangers by their email only.)
        _ = try app.ok("share", "Trip", "--invite", "heather@example.com,mary@example.com", "--read-write", as: "jermaine")
        _ = try app.ok("share", "Budget", "--invite", "heather", as: "jermaine")
        #expect(try app.ok("invitations", as: "heather").contains("\"Trip\"    jermaine  read-write"))

        let inbox = try JSONSerialization.jsonObject(with: Data(try app.ok("invitations", "--json", as: "heather").utf8)) as? [[String: Any]]
        let ids = Dictionary(uniqueKeysWithValues: (inbox ?? []).map { ($0["title"] as! String, $0["id"] as! String) })
        #expect(ids.keys.sorted() == ["Budget", "Trip"])
        let stolen = try app.run("accept", "--invitation", ids["Budget"]!, as: "mary")  // not hers
        #expect(stolen.isOneLineRefusal && stolen.stderr.contains("no invitation"))

        _ = try app.ok("accept", "--invitation", ids["Trip"]!, as: "heather")
        #expect(try app.titles("heather") == ["Trip"])
        #expect(try app.ok("decline", ids["Budget"]!, as: "heather").contains("declined the invitation to \"Budget\""))
        #expect(try app.ok("invitations", as: "heather") == "no invitations wait for you\n")
        #expect(try app.ok("notices", as: "jermaine").contains("heather declined your invitation to \"Budget\""))
        #expect(try app.run("accept", as: "heather").isOneLineRefusal)
    }
}

@Suite struct ShareURLAgainTests {
    /// The URL is shown once by the cloud, but kept sealed in the share's zone: the owner's devices and accepted
    /// participants show it again; an account not in the share reads nothing of it.
    @Test func theOwnersDevicesAndParticipantsShowTheURLAgain() throws {
        let app = App()
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Trip", as: "jermaine")
        let url = try app.ok("share", "Trip", "--invite", "heather", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try app.ok("share", "Trip", as: "jermaine") == url + "\n")
        #expect(try app.ok("share", "Trip", as: "jermaine", device: "laptop") == url + "\n")  // another device of his
        _ = try app.ok("accept", url, as: "heather")
        let hers = try JSONSerialization.jsonObject(with: Data(try app.ok("participants", "Trip", "--json", as: "heather").utf8)) as? [String: Any]
        #expect(hers?["url"] as? String == url)
        #expect(try app.ok("participants", "Trip", as: "jermaine").contains("URL: \(url)"))
        let dump = try CloudNotesBinary.run(["cloud", "dump", "--json"], environment: app.environment).stdout
        #expect(!dump.contains(String(url.split(separator: "/").last!)))  // the token is nowhere in the cloud in clear
    }
}

@Suite struct AccessRequestCommandTests {
    /// Mary holds a URL she was not invited to: she asks, jermaine sees it and approves; zoe asks and is
    /// blocked, and may not ask again; a one-time link admits one person and nobody after.
    @Test func requestApproveBlockAndOneTimeLinks() throws {
        let app = App()
        for name in ["heather", "mary", "zoe"] { _ = try app.ok("status", as: name) }
        _ = try app.ok("new", "Trip", "--body", "plans", as: "jermaine")
        let url = try app.ok("share", "Trip", "--invite", "heather", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try app.run("accept", url, as: "mary").isOneLineRefusal)
        #expect(try app.ok("request-access", url, as: "mary").contains("asked the owner"))
        _ = try app.ok("request-access", url, as: "zoe")
        let listed = try app.ok("requests", as: "jermaine")
        #expect(listed.contains("\"Trip\"  mary") && listed.contains("pending"))

        #expect(try app.run("approve", "nobody", as: "jermaine").isOneLineRefusal)
        _ = try app.ok("approve", "mary", as: "jermaine")
        _ = try app.ok("accept", url, as: "mary")
        #expect(try app.post("Trip", as: "mary")["content"] as? String == "plans")
        _ = try app.ok("block", "zoe", as: "jermaine")
        let again = try app.run("request-access", url, as: "zoe")
        #expect(again.isOneLineRefusal && again.stderr.contains("may not join"))
        #expect(try app.ok("requests", "--json", as: "jermaine").contains("\"status\" : \"blocked\""))

        let once = try app.ok("share", "Trip", "--one-time", as: "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(once.hasPrefix("cloudnotes://share/") && once != url)
        _ = try app.ok("status", as: "ann")
        _ = try app.ok("accept", once, as: "ann")
        #expect(try app.titles("ann") == ["Trip"])
        _ = try app.ok("status", as: "bob")
        #expect(try app.run("accept", once, as: "bob").isOneLineRefusal)
    }

    /// `trash --empty` forgets for good, so it asks as `delete` does (`--yes` where nobody can be asked), and its
    /// count is of posts, not of the comments that went with them.
    @Test func emptyingTheTrashAsksAndCountsPosts() throws {
        let app = App()
        _ = try app.ok("new", "Trip", "--body", "tickets", as: "jermaine")
        _ = try app.ok("comment", "Trip", "bring snacks", as: "jermaine")
        _ = try app.ok("delete", "Trip", "--yes", as: "jermaine")
        let refused = try app.run("trash", "--empty", as: "jermaine")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("needs --yes"), "\(refused.stderr)")
        #expect(try app.ok("trash", as: "jermaine").contains("Trip"), "nothing emptied")
        let emptied = try app.ok("trash", "--empty", "--yes", as: "jermaine")
        #expect(emptied.contains("emptied the trash: 1 post can no longer be restored"), "\(emptied)")
        #expect(try app.ok("trash", as: "jermaine").contains("the trash is empty"))
    }

    /// A version's number is the same to every reader: the owner (who saw the post before it was shared) and a
    /// participant (who joined when sharing saved it again) name the same content with the same number, and a
    /// restore by that number works for both.
    @Test func versionNumbersMeanTheSameVersionToEveryReader() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Plan", "--body", "one", as: "jermaine")
        let url = try app.ok("share", "Plan", "--invite", "heather@example.com", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("edit", "Plan", "--body", "one\ntwo", as: "heather")
        _ = try app.ok("sync", as: "jermaine")
        func versions(_ account: String) throws -> [Int: String] {
            let listed = try JSONSerialization.jsonObject(with: Data(try app.ok("history", "Plan", "--json", as: account).utf8)) as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: listed.map { ($0["version"] as? Int ?? -1, $0["content"] as? String ?? "?") })
        }
        let owner = try versions("jermaine"), participant = try versions("heather")
        #expect(owner.count == 2 && !participant.isEmpty, "\(owner) \(participant)")
        for (number, content) in participant { #expect(owner[number] == content, "version \(number): \(owner) \(participant)") }
        let older = try #require(participant.keys.min().flatMap { $0 == participant.keys.max() ? nil : $0 }, "she sees the shared first version: \(participant)")
        _ = try app.ok("restore", "Plan", "--version", "\(older)", as: "heather")
        #expect(try app.ok("show", "Plan", "--json", as: "jermaine").contains("\"content\" : \"one\""))
    }
}
