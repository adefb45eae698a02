import Foundation
import Testing
import TestSupport

/// Jermaine shares a post with Heather (read-write) and Mary (read-only), from the command line.
@Suite struct ShareCommandTests {
    let cli = CLI()
    let url: String

    init() throws {
        for account in ["jermaine", "heather", "mary", "zoe"] { _ = try cli.ok("cloud", "create-account", account) }
        _ = try cli.ok("cloud", "create-zone", "Notes", "--account", "jermaine")
        _ = try cli.ok("cloud", "save-record", "--account", "jermaine", "--zone", "Notes", "--type", "Post", "--name", "p1",
                       "--field", "title=Sharing demo is great")
        _ = try cli.ok("cloud", "save-record", "--account", "jermaine", "--zone", "Notes", "--type", "Post", "--name", "p2",
                       "--field", "title=private")
        let share = try cli.json("cloud", "share", "--account", "jermaine", "--zone", "Notes", "--record", "p1",
                                 "--invite", "heather@example.com:read-write", "--invite", "mary@example.com") as! [String: Any]
        url = share["url"] as! String
    }

    func read(_ account: String, _ name: String) throws -> ProcessResult {
        try cli.run("cloud", "get-record", "--account", account, "--database", "shared", "--owner", "jermaine",
                    "--zone", "Notes", name)
    }

    @Test func aNewUserSharesAcceptsReadsIsRefusedAndLosesAccess() throws {
        let metadata = try cli.ok("cloud", "metadata", url, "--account", "heather")
        #expect(metadata.contains("Sharing demo is great, shared by jermaine") && metadata.contains("private user, read-write, pending"))
        #expect(try cli.ok("cloud", "accept", url, "--account", "heather").contains("accepted \"Sharing demo is great\""))
        _ = try cli.ok("cloud", "accept", url, "--account", "mary")

        #expect(try cli.ok("cloud", "zones", "--account", "mary", "--database", "shared").contains("Notes  jermaine"))
        #expect(try read("mary", "p1").stdout.contains("\"Sharing demo is great\""))
        #expect(try read("mary", "p2").stderr.contains("unknown item"), "only the shared post is visible")

        let refused = try cli.run("cloud", "save-record", "--account", "mary", "--database", "shared", "--owner", "jermaine",
                                  "--zone", "Notes", "--type", "Post", "--name", "p1", "--field", "title=defaced")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("read-only: shared by jermaine"))
        _ = try cli.ok("cloud", "save-record", "--account", "heather", "--database", "shared", "--owner", "jermaine",
                       "--zone", "Notes", "--type", "Post", "--name", "p1", "--field", "title=Edited by heather")
        #expect(try cli.ok("cloud", "get-record", "--account", "jermaine", "--zone", "Notes", "p1").contains("Edited by heather"))

        let participants = try cli.json("cloud", "participants", url, "--account", "jermaine") as! [String: Any]
        let rows = (participants["participants"] as! [[String: Any]]).map {
            "\($0["name"]!) \($0["role"]!) \($0["permission"]!) \($0["status"]!)"
        }
        #expect(rows == ["jermaine owner readWrite accepted", "heather privateUser readWrite accepted",
                         "mary privateUser readOnly accepted"])

        _ = try cli.ok("cloud", "remove-participant", url, "--account", "jermaine", "--participant", "mary@example.com")
        #expect(try read("mary", "p1").isOneLineRefusal)
        #expect(try read("heather", "p1").status == 0)
    }

    @Test func permissionsChangeAndSharesEnd() throws {
        _ = try cli.ok("cloud", "accept", url, "--account", "heather")
        _ = try cli.ok("cloud", "accept", url, "--account", "mary")

        _ = try cli.ok("cloud", "set-permission", url, "--account", "jermaine", "--participant", "heather@example.com",
                       "--permission", "read-only")
        let now = try cli.run("cloud", "delete-record", "--account", "heather", "--database", "shared", "--owner", "jermaine",
                              "--zone", "Notes", "p1")
        #expect(now.stderr.contains("permission failure"))

        #expect(try cli.ok("cloud", "leave", url, "--account", "heather").contains("left"))
        #expect(try read("heather", "p1").isOneLineRefusal)
        #expect(try read("mary", "p1").status == 0)

        #expect(try cli.ok("cloud", "stop-sharing", url, "--account", "jermaine").contains("stopped sharing"))
        #expect(try read("mary", "p1").isOneLineRefusal)
        #expect(try cli.ok("cloud", "get-record", "--account", "jermaine", "--zone", "Notes", "p1").contains("p1"))
    }

    @Test func accessRequestsOneTimeLinksAndPublicShares() throws {
        let asked = try cli.run("cloud", "metadata", url, "--account", "zoe")
        #expect(asked.isOneLineRefusal && asked.stderr.contains("not invited"))
        _ = try cli.ok("cloud", "request-access", url, "--account", "zoe")
        #expect(try cli.ok("cloud", "access-requests", url, "--account", "jermaine").contains("zoe"))
        _ = try cli.ok("cloud", "approve", url, "--account", "jermaine", "--requester", "zoe@example.com", "--permission", "read-only")
        #expect(try read("zoe", "p1").status == 0)

        let oneTime = try cli.ok("cloud", "one-time-link", url, "--account", "jermaine").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try cli.ok("cloud", "create-account", "sam")
        _ = try cli.ok("cloud", "create-account", "kim")
        _ = try cli.ok("cloud", "accept", oneTime, "--account", "sam")
        #expect(try cli.run("cloud", "accept", oneTime, "--account", "kim").stderr.contains("already used"))

        _ = try cli.ok("cloud", "share", "--account", "jermaine", "--zone", "Notes", "--record", "p2", "--public", "read-only")
        let shares = try cli.ok("cloud", "shares", "--account", "jermaine", "--zone", "Notes")
        #expect(shares.contains("share-p2") && shares.contains("read-only"))
    }

    static let refusals: [(arguments: [String], says: String)] = [
        (["cloud", "accept", "URL", "--account", "zoe"], "not invited"),
        (["cloud", "accept", "TAMPERED", "--account", "heather"], "unknown share"),
        (["cloud", "accept", "cloudnotes://share/iCloud.cloudnotes/short", "--account", "heather"], "malformed share URL"),
        (["cloud", "accept", "https://example.com/x", "--account", "heather"], "not a CloudNotes share URL"),
        (["cloud", "accept", "URL", "--account", "nobody"], "unknown account"),
        (["cloud", "invite", "URL", "--account", "jermaine", "--participant", "ghost@example.com"], "needs verification"),
        (["cloud", "invite", "URL", "--account", "heather", "--participant", "zoe@example.com"], "only the owner"),
        (["cloud", "stop-sharing", "URL", "--account", "heather"], "only the owner stops sharing"),
        (["cloud", "leave", "URL", "--account", "jermaine"], "the owner cannot leave"),
        (["cloud", "set-public", "URL", "--account", "jermaine", "--permission", "everyone"], "invalid"),
        (["cloud", "share", "--account", "jermaine", "--zone", "Notes", "--record", "p1"], "already shared"),
        (["cloud", "share", "--account", "jermaine", "--zone", "Notes"], "cannot also be shared as a whole"),
        (["cloud", "share", "--account", "heather", "--zone", "Notes", "--record", "p1"], "zone not found"),
        (["cloud", "save-record", "--account", "mary", "--database", "shared", "--owner", "jermaine", "--zone", "Notes",
          "--type", "Post", "--name", "p1", "--field", "title=x"], "read-only: shared by jermaine"),
        (["cloud", "get-record", "--account", "zoe", "--database", "shared", "--owner", "jermaine", "--zone", "Notes", "p1"],
         "zone not found"),
        (["cloud", "get-record", "--account", "heather", "--database", "shared", "--zone", "Notes", "p1"], "needs --owner"),
    ]

    @Test(arguments: refusals)
    func refusalsSayWhyInOneLineAndChangeNothing(arguments: [String], says: String) throws {
        _ = try cli.ok("cloud", "accept", url, "--account", "heather")
        _ = try cli.ok("cloud", "accept", url, "--account", "mary")
        var tampered = url
        tampered.replaceSubrange(tampered.index(tampered.endIndex, offsetBy: -5)..., with: tampered.hasSuffix("AAAAA") ? "BBBBB" : "AAAAA")
        let before = try cli.dump()

        let result = try CloudNotesBinary.run(arguments.map { $0 == "URL" ? url : $0 == "TAMPERED" ? tampered : $0 }
                                              + ["--cloud", cli.cloudPath])

        #expect(result.status != 0)
        #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try cli.dump() == before)
    }
}
