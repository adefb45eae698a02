import Foundation
import Testing
import TestSupport

/// Every refusal is one line on stderr, a non-zero status, and no change.
@Suite struct BadInputTests {
    static let cli: CLI = {
        let cli = CLI()
        _ = try! cli.ok("cloud", "create-account", "heather")
        _ = try! cli.ok("cloud", "create-zone", "Notes", "--account", "heather")
        _ = try! cli.ok("cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "p1")
        return cli
    }()

    static let refusals: [(arguments: [String], says: String, status: Int32)] = [
        (["cloud", "zones", "--account", "nobody"], "unknown account: nobody", 1),
        (["cloud", "create-account", "heather"], "already exists", 1),
        (["cloud", "create-account", "bad name"], "account name", 1),
        (["cloud", "create-zone", "_x", "--account", "heather"], "zone name", 1),
        (["cloud", "get-record", "--account", "heather", "--zone", "Nope", "p1"], "zone not found: Nope", 1),
        (["cloud", "get-record", "--account", "heather", "--zone", "Notes", "nope"], "unknown item", 1),
        (["cloud", "delete-record", "--account", "heather", "--zone", "Notes", "nope"], "unknown item", 1),
        (["cloud", "delete-zone", "Nope", "--account", "heather"], "zone not found", 1),
        (["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "p2",
          "--field", "n:int=three"], "'three' is not an integer", 1),
        (["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "p2",
          "--field", "no-equals"], "is not KEY=VALUE", 1),
        (["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Comment", "--name", "p1",
          "--policy", "allKeys"], "is a Post, not a Comment", 1),
        (["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post", "--name", "p1",
          "--if-tag", "0"], "server record changed", 1),
        (["cloud", "changes", "--account", "heather", "--zone", "Notes", "--token", "garbage"], "not a change token", 1),
        (["cloud", "zones", "--account", "heather", "--database", "secret"], "is invalid for '--database", 64),
        (["cloud", "faults", "--rate", "5"], "from 0 to 1", 1),
        (["cloud", "faults", "--rate", "0.5", "--errors", "teapot"], "unknown fault 'teapot'", 1),
        (["cloud", "faults", "--off", "--unreachable"], "choose one", 64),
    ]

    @Test(arguments: refusals)
    func refusedCommandsSayWhyAndChangeNothing(arguments: [String], says: String, status: Int32) throws {
        let cli = Self.cli
        let before = try cli.dump()
        let result = try CloudNotesBinary.run(arguments + ["--cloud", cli.cloudPath])
        #expect(result.status == status)
        #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(try cli.dump() == before)
    }

    @Test func aCloudPathThatIsNotADirectoryIsRefused() throws {
        let dir = TemporaryDirectory()
        let file = dir.path("file")
        try Data("x".utf8).write(to: file)
        let result = try CloudNotesBinary.run(["cloud", "accounts", "--cloud", file.path])
        #expect(result.isOneLineRefusal && result.stderr.contains("cannot use cloud directory"))
    }

    @Test func aCorruptCloudFileIsRefused() throws {
        let dir = TemporaryDirectory()
        try Data(repeating: 0x41, count: 4096).write(to: dir.path("cloud.sqlite"))
        let result = try CloudNotesBinary.run(["cloud", "accounts", "--cloud", dir.url.path])
        #expect(result.isOneLineRefusal && result.stderr.contains("cloud storage error"))
    }

    @Test func theFrontEndWithoutATerminalSaysToUseASubcommand() throws {
        let dir = TemporaryDirectory()
        let result = try CloudNotesBinary.run(["--account", "heather"],
                                              environment: ["CLOUDNOTES_CLOUD": dir.path("cloud").path, "CLOUDNOTES_DATA": dir.path("data").path])
        #expect(result.isOneLineRefusal && result.stderr.contains("the front end needs a terminal"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("data/devices").path))  // nothing was opened or created
    }

    @Test func aTypedNewlineInAFieldStillMakesOneLine() throws {
        let result = try CloudNotesBinary.run(["cloud", "save-record", "--account", "heather", "--zone", "Notes", "--type", "Post",
                                               "--name", "p1", "--field", "count:int=3\nrm -rf", "--cloud", Self.cli.cloudPath])
        #expect(result.isOneLineRefusal && result.stderr.contains("'3\\nrm -rf' is not an integer"), "\(result.stderr)")
    }
}
