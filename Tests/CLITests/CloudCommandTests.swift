import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct CloudCommandTests {
    let cli = CLI()

    init() throws {
        _ = try cli.ok("cloud", "create-account", "heather")
        _ = try cli.ok("cloud", "create-account", "mary", "--email", "mary@corp.test")
        _ = try cli.ok("cloud", "create-zone", "Notes", "--account", "heather")
    }

    @Test func accountsAndZonesAreListed() throws {
        let accounts = try cli.json("cloud", "accounts") as! [[String: Any]]
        #expect(accounts.map { $0["name"] as! String } == ["heather", "mary"])
        #expect(accounts[1]["email"] as? String == "mary@corp.test")
        #expect(try cli.ok("cloud", "zones", "--account", "heather").contains("Notes  heather"))
        let zones = try cli.json("cloud", "zones", "--account", "mary") as! [Any]
        #expect(zones.isEmpty)
    }

    @Test func aRecordIsSavedFetchedChangedAndDeleted() throws {
        let saved = try cli.json("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                                 "--name", "p1", "--field", "title=Groceries", "--field", "n:int=3") as! [String: Any]
        let tag = saved["changeTag"] as! String
        let fields = saved["fields"] as! [String: [String: Any]]
        #expect(fields["title"]?["value"] as? String == "Groceries")
        #expect(fields["n"]?["value"] as? Int == 3)

        let edited = try cli.json("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                                  "--name", "p1", "--field", "title=Milk", "--if-tag", tag) as! [String: Any]
        #expect(edited["changeTag"] as! String != tag)
        let fetched = try cli.json("cloud", "get-record", "--account", "heather", "--zone", "Notes", "p1") as! [String: Any]
        #expect((fetched["fields"] as! [String: [String: Any]])["title"]?["value"] as? String == "Milk")
        #expect((fetched["fields"] as! [String: [String: Any]])["n"]?["value"] as? Int == 3, "changed keys only")

        #expect(try cli.ok("cloud", "delete-record", "--account", "heather", "--zone", "Notes", "p1").contains("deleted p1"))
        let gone = try cli.run("cloud", "get-record", "--account", "heather", "--zone", "Notes", "p1")
        #expect(gone.isOneLineRefusal && gone.stderr.contains("unknown item"))
    }

    @Test func aStaleTagIsRefusedShowsTheServerRecordAndChangesNothing() throws {
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                       "--name", "p1", "--field", "title=Groceries")
        let before = try cli.dump()

        let stale = try cli.run("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                                "--name", "p1", "--field", "title=Mine", "--if-tag", "zzz")

        #expect(stale.isOneLineRefusal)
        #expect(stale.stderr.contains("server record changed"))
        #expect(stale.stdout.contains("\"Groceries\""), "the server's current record is shown")
        #expect(try cli.dump() == before)
    }

    @Test func changesComeInBatchesWithATokenAndMoreComing() throws {
        for i in 0..<5 {
            _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "r\(i)")
        }
        let first = try cli.json("cloud", "changes", "--account", "heather", "--zone", "Notes", "--limit", "3") as! [String: Any]
        #expect((first["modified"] as! [Any]).count == 3 && first["moreComing"] as! Bool)
        let token = first["token"] as! String

        _ = try cli.ok("cloud", "delete-record", "--account", "heather", "--zone", "Notes", "r0")
        let rest = try cli.json("cloud", "changes", "--account", "heather", "--zone", "Notes", "--token", token) as! [String: Any]
        #expect((rest["modified"] as! [[String: Any]]).map { $0["recordName"] as! String } == ["r3", "r4"])
        #expect(rest["deleted"] as! [String] == ["r0"])
        #expect(!(rest["moreComing"] as! Bool))

        let zones = try cli.ok("cloud", "changes", "--account", "heather")
        #expect(zones.contains("changed  zone  Notes") && zones.contains("more coming: no"))

        // The largest limit there is means "everything" (it once overflowed and crashed).
        let all = try cli.json("cloud", "changes", "--account", "heather", "--zone", "Notes", "--limit", "\(Int.max)") as! [String: Any]
        #expect((all["modified"] as! [Any]).count == 4 && !(all["moreComing"] as! Bool))
    }

    @Test func theDumpShowsEverythingAndEncryptedFieldsOnlyAsStoredBytes() throws {
        let sealed = Data("ciphertext-not-plain".utf8).base64EncodedString()
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                       "--name", "p1", "--field", "title=Visible", "--field", "location:encrypted=\(sealed)")
        let text = try cli.ok("cloud", "dump")
        #expect(text.contains("p1  Post") && text.contains("\"Visible\"") && text.contains("location=<encrypted 20 bytes>"))
        #expect(!text.contains("ciphertext-not-plain"))
        let json = try cli.dump()
        #expect(json.contains(sealed))
    }

    @Test func theFaultSwitchMakesTheCloudUnreachableAndBack() throws {
        #expect(try cli.ok("cloud", "faults", "--unreachable").contains("unreachable"))
        let refused = try cli.run("cloud", "create-zone", "Work", "--account", "heather")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("network unavailable"))

        #expect(try cli.ok("cloud", "faults", "--rate", "1", "--errors", "zoneBusy", "--retry-after", "3").contains("100 %"))
        #expect(try cli.run("cloud", "create-zone", "Work", "--account", "heather").stderr.contains("zone busy: retry after 3.00s"))

        #expect(try cli.ok("cloud", "faults", "--off") == "faults: off\n")
        #expect(try cli.ok("cloud", "create-zone", "Work", "--account", "heather").contains("exists"))
        let viaEnvironment = try cli.run("cloud", "zones", "--account", "heather", environment: ["CLOUDNOTES_FAULTS": "unreachable"])
        #expect(viaEnvironment.stderr.contains("network unavailable"))
    }

    @Test func purgeExpiresOldTokensAndCheckReportsOK() throws {
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "r")
        let token = (try cli.json("cloud", "changes", "--account", "heather", "--zone", "Notes") as! [String: Any])["token"] as! String
        _ = try cli.ok("cloud", "delete-record", "--account", "heather", "--zone", "Notes", "r")

        #expect(try cli.ok("cloud", "purge", "--older-than", "0").contains("purged 1 record tombstones"))
        let expired = try cli.run("cloud", "changes", "--account", "heather", "--zone", "Notes", "--token", token)
        #expect(expired.isOneLineRefusal && expired.stderr.contains("change token expired"))
        #expect(try cli.ok("cloud", "check") == "ok\n")
    }

    @Test func retentionIsShownSetAndBoundsHistory() throws {
        #expect(try cli.ok("cloud", "retention") == "history: 100 versions, 90 days; trash: 30 days\n")
        let refused = try cli.run("cloud", "retention", "--trash-days", "0")
        #expect(refused.isOneLineRefusal)
        _ = try cli.ok("cloud", "retention", "--history-versions", "2")
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "r", "--field", "title=one")
        for title in ["two", "three"] {
            _ = try cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "r",
                           "--field", "title=\(title)", "--policy", "changedKeys")
        }
        let retention = try cli.json("cloud", "retention") as? [String: Any]
        #expect(retention?["historyVersions"] as? Int == 2 && retention?["trashDays"] as? Double == 30)
        let cloud = try TestStore.open(directory: URL(fileURLWithPath: cli.cloudPath), faults: nil)
        let heather = try cloud.accountCreatingIfNeeded(name: "heather")
        let history = try cloud.database(.private, as: heather).history(of: RecordID(name: "r", zone: ZoneID(name: "Notes")))
        #expect(history.map { $0.record.string("title") } == ["three", "two"])
    }

    @Test func theCloudDirectoryComesFromTheEnvironmentOrXDG() throws {
        let home = TemporaryDirectory("xdg")
        let refused = try CloudNotesBinary.run(["cloud", "create-account", "ann"], environment: ["XDG_DATA_HOME": home.url.path])
        #expect(refused.isOneLineRefusal && refused.stderr.contains("there is no cloud in \(home.url.path)/cloudnotes/cloud"), "\(refused.stderr)")
        #expect(try CloudNotesBinary.run(["cloud", "init"], environment: ["XDG_DATA_HOME": home.url.path]).status == 0)
        let viaXDG = try CloudNotesBinary.run(["cloud", "create-account", "ann"], environment: ["XDG_DATA_HOME": home.url.path])
        #expect(viaXDG.status == 0)
        #expect(FileManager.default.fileExists(atPath: home.path("cloudnotes/cloud/cloud.sqlite").path))

        let viaVariable = try CloudNotesBinary.run(["cloud", "accounts"], environment: ["CLOUDNOTES_CLOUD": cli.cloudPath])
        #expect(viaVariable.stdout.contains("heather"))
    }

    /// Without `XDG_DATA_HOME`, the cloud and the devices live under `$HOME/.local/share`, the home the person set
    /// (not the password file's, which Foundation gives): a tryout with its own HOME touches nothing else.
    @Test func withoutXDGTheDataLivesUnderHOME() throws {
        let home = TemporaryDirectory("home")
        let environment = ["HOME": home.url.path, "XDG_DATA_HOME": "", "CLOUDNOTES_DATA": "", "CLOUDNOTES_CLOUD": ""]
        let signIn = try CloudNotesBinary.run(["sign-in", "ann", "--init", "--device", "desk"], environment: environment)
        #expect(signIn.status == 0, "\(signIn.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.path(".local/share/cloudnotes/cloud/cloud.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: home.path(".local/share/cloudnotes/devices").path))
    }
}
