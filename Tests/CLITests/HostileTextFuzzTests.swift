import Cloud
import Foundation
import Testing
import TestSupport

/// Seeded: a read-write participant fills every field of a shared post the
/// owner's commands print (title, text, tags, the device it was edited on,
/// a comment) with random pieces a terminal takes as commands: every C0 and
/// C1 control, DEL, escape sequences, bidirectional overrides and isolates.
/// None reaches the owner's terminal raw, from any command that prints them.
/// (`HostileTextTests` holds one fixed title; this draws from every kind.)
@Suite struct HostileTextFuzzTests {
    /// Pieces a terminal acts on, and plain text between them.
    static let pieces: [String] = {
        var pieces = (0x01...0x1F).map { String(UnicodeScalar(UInt8($0))) } + ["\u{7F}"]
        pieces += (0x80...0x9F).map { String(Character(UnicodeScalar($0)!)) }
        pieces += (0x202A...0x202E).map { String(Character(UnicodeScalar($0)!)) }
        pieces += (0x2066...0x2069).map { String(Character(UnicodeScalar($0)!)) }
        pieces += ["\u{1B}[2J", "\u{1B}]52;c;aGFja2Vk\u{07}", "\u{1B}]8;;http://x\u{1B}\\", "\u{9B}31m", "\r\nFORGED", "word", "Hà Nội", " "]
        return pieces
    }()

    static func hostile(_ random: SeededRandom) -> String {
        "h" + (0..<(4 + random.below(12))).map { _ in pieces[random.below(pieces.count)] }.joined() + "\nFORGED"
    }

    /// What a terminal would act on: controls (but the line breaks and tabs a body keeps), and bidi controls.
    static func raw(in output: String) -> [String] {
        output.unicodeScalars.filter { scalar in
            scalar != "\n" && scalar != "\t" && (scalar.properties.generalCategory == .control
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func nothingAParticipantWritesReachesTheOwnersTerminalRaw(seed: UInt64) throws {
        let random = SeededRandom(seed: seed)
        let cli = CLI()
        _ = try cli.ok("status", "--account", "heather", "--device", "h1")
        _ = try cli.ok("new", "Meeting", "--body", "line A", "--account", "jermaine", "--device", "d1")
        let id = (try cli.json("show", "Meeting", "--account", "jermaine", "--device", "d1") as! [String: Any])["id"] as! String
        let url = try cli.ok("share", "Meeting", "--invite", "heather", "--read-write", "--account", "jermaine", "--device", "d1")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try cli.ok("accept", url, "--account", "heather", "--device", "h1")
        let raw = ["--account", "heather", "--database", "shared", "--owner", "jermaine", "--zone", "Notes"]
        // Commas split a list's items: the tags' pieces are drawn so that none is lost to the split.
        let tags = [Self.hostile(random), Self.hostile(random)].map { $0.replacingOccurrences(of: ",", with: ";") }
        let post = try CloudNotesBinary.run(["cloud", "save-record"] + raw + ["--type", "Post", "--name", id, "--cloud", cli.cloudPath,
            "--field", "title=\(Self.hostile(random))", "--field", "content=\(Self.hostile(random))",
            "--field", "tags:list=\(tags.joined(separator: ","))", "--field", "device=\(Self.hostile(random))"])
        let comment = try CloudNotesBinary.run(["cloud", "save-record"] + raw + ["--type", "Comment", "--name", "c-\(seed)", "--parent", id,
            "--cloud", cli.cloudPath, "--field", "text=\(Self.hostile(random))", "--field", "post:ref-delete-self=\(id)"])
        try #require(post.status == 0 && comment.status == 0, "the participant's saves: \(post.stderr) \(comment.stderr)")
        _ = try cli.ok("sync", "--account", "jermaine", "--device", "d1")
        let shown = try cli.json("show", id, "--account", "jermaine", "--device", "d1") as! [String: Any]
        #expect(Self.raw(in: shown["title"] as? String ?? "").count > 0, "the hostile title did not arrive: \(shown)")

        let owner = ["--account", "jermaine", "--device", "d1"]
        for command in [["list"] + owner, ["show", id] + owner, ["participants", id] + owner, ["notebooks"] + owner, ["status"] + owner,
                        ["cloud", "changes", "--account", "jermaine", "--zone", "Notes"],
                        ["cloud", "get-record", "--account", "jermaine", "--zone", "Notes", id],
                        ["cloud", "get-record", "--account", "jermaine", "--zone", "Notes", "c-\(seed)"], ["cloud", "dump"]] {
            let result = try CloudNotesBinary.run(command + ["--cloud", cli.cloudPath], environment: cli.data)
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
            #expect(Self.raw(in: result.stdout + result.stderr).isEmpty,
                    "seed \(seed): \(command.prefix(2).joined(separator: " ")) wrote \(Self.raw(in: result.stdout + result.stderr))")
            // Only a post's body keeps its line breaks (in `show`): anywhere else a forged line is a break let through.
            if command.first != "show" {
                #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("FORGED") },
                        "seed \(seed): \(command.prefix(2).joined(separator: " ")) printed a forged line")
            }
        }
    }
}
