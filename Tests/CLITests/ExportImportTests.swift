import Foundation
import Testing
import TestSupport

/// `cloudnotes export` and `import`: posts out as Markdown files and back in as new posts of whoever imports.
@Suite struct ExportImportTests {
    @Test func postsGoOutAsMarkdownAndComeBackAsNewPosts() throws {
        let app = App()
        _ = try app.ok("new-notebook", "Trip", as: "jermaine")
        _ = try app.ok("new", "Phở in Hà Nội", "--body", "breakfast\nthen coffee", "--notebook", "Trip", "--tags", "food, vn",
                       "--location", "Hoàn Kiếm", as: "jermaine")
        _ = try app.ok("new", "Groceries", "--body", "milk", as: "jermaine")
        _ = try app.ok("comment", "Groceries", "and \"oat\" milk\nplease", as: "jermaine")
        let out = app.directory.url.appendingPathComponent("out")
        #expect(try app.ok("export", "--all", "--to", out.path, as: "jermaine").contains("exported 2 posts to"))
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files == ["groceries.md", "phở-in-hà-nội.md"])
        let text = try String(contentsOf: out.appendingPathComponent("phở-in-hà-nội.md"), encoding: .utf8)
        #expect(text.hasPrefix("---\ntitle: \"Phở in Hà Nội\"\ntags: [\"food\", \"vn\"]\nlocation: \"Hoàn Kiếm\"\nnotebook: \"Trip\"\nauthors: [\"jermaine\"]\n"))
        #expect(text.hasSuffix("---\n\nbreakfast\nthen coffee"))  // the text as it is, no newline added
        // Again into the same directory: nothing there is overwritten.
        _ = try app.ok("export", "Groceries", "--to", out.path, as: "jermaine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).contains("groceries-2.md"))
        // Its comments go with it, their authors' words: who, when and what, in one front matter line.
        let groceries = try String(contentsOf: out.appendingPathComponent("groceries.md"), encoding: .utf8)
        #expect(groceries.contains("\ncomments: [{\"author\": \"jermaine\", \"date\": \"")
                && groceries.contains("\"text\": \"and \\\"oat\\\" milk\\nplease\"}]\n"), "\(groceries)")

        // heather imports them: new posts of hers, the notebook made, the text, tags and location as they were.
        let imported = try app.ok("import", out.appendingPathComponent("phở-in-hà-nội.md").path, out.appendingPathComponent("groceries.md").path,
                                  as: "heather")
        #expect(imported.contains("\"Phở in Hà Nội\" in Trip") && imported.contains("\"Groceries\" in Notes"))
        #expect(imported.contains("1 comment by others in the files not imported: a comment is its author's words"), "\(imported)")
        // Imported by its author, a comment comes back on the new post, from when it was written.
        let again = try app.ok("import", out.appendingPathComponent("groceries.md").path, "--notebook", "Again", as: "jermaine")
        #expect(again.contains("\"Groceries\" in Again, with 1 comment of yours (dated now)") && !again.contains("not imported"), "\(again)")
        let id = try #require(again.split(separator: " ").dropFirst().first.map(String.init))
        let comments = try app.post(id, as: "jermaine")["comments"] as? [[String: Any]] ?? []
        #expect(comments.map { $0["text"] as? String } == ["and \"oat\" milk\nplease"], "\(comments)")
        // Several, written by hand (the author in another case): all the importer's, in the file's order.
        let file = app.directory.url.appendingPathComponent("old.md")
        try ("---\ntitle: \"Old one\"\ncomments: [{\"author\": \"Jermaine\", \"date\": \"2020-01-05T10:00:00Z\", \"text\": \"first\"}, "
             + "{\"author\": \"jermaine\", \"text\": \"second\"}, {\"author\": \"jermaine\", \"text\": \"third\"}]\n---\nbody\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let old = try app.ok("import", file.path, as: "jermaine")
        #expect(old.contains("with 3 comments of yours") && !old.contains("not imported"), "\(old)")
        let oldID = try #require(old.split(separator: " ").dropFirst().first.map(String.init))
        let texts = (try app.post(oldID, as: "jermaine")["comments"] as? [[String: Any]] ?? []).map { $0["text"] as? String }
        #expect(texts == ["first", "second", "third"], "\(texts)")
        let post = try app.post("Phở in Hà Nội", as: "heather")
        #expect(post["content"] as? String == "breakfast\nthen coffee" && post["tags"] as? [String] == ["food", "vn"])
        #expect(post["location"] as? String == "Hoàn Kiếm" && post["notebook"] as? String == "Trip")
    }

    /// One file that cannot be read: one line on stderr, a non-zero exit, and none of the files imported.
    @Test func aBadFileImportsNothing() throws {
        let app = App()
        let good = app.directory.url.appendingPathComponent("good.md"), bad = app.directory.url.appendingPathComponent("bad.md")
        try "---\ntitle: \"Fine\"\n---\ntext\n".write(to: good, atomically: true, encoding: .utf8)
        try "---\ntitle: \"never closed\"\n".write(to: bad, atomically: true, encoding: .utf8)
        _ = try app.ok("status", as: "heather")
        let result = try app.run("import", good.path, bad.path, as: "heather")
        #expect(result.status != 0 && result.stderr.contains("bad.md: its front matter has no closing --- line"))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try app.titles("heather") == [])
        let missing = try app.run("import", app.directory.url.appendingPathComponent("nope.md").path, as: "heather")
        #expect(missing.status != 0 && missing.stderr.contains("nope.md: no such file"))
        let directory = try app.run("import", app.directory.url.path, as: "heather")
        #expect(directory.status != 0 && directory.stderr.contains("is a directory, not a file"))
        let aFile = try app.run("export", "--all", "--to", good.path, as: "heather")
        #expect(aFile.status != 0 && aFile.stderr.contains("is a file, not a directory"))
    }

    /// `list` lines its columns up as the terminal shows them: CJK and emoji take two columns each.
    @Test func listAlignsWideCharactersByTheirColumns() throws {
        let app = App()
        for title in ["日本語のメモ", "🎉 party", "plain"] { _ = try app.ok("new", title, as: "jermaine") }
        _ = try app.ok("share", "日本語のメモ", "--public", "read-only", as: "jermaine")
        _ = try app.ok("share", "🎉 party", "--public", "read-only", as: "jermaine")
        let lines = try app.ok("list", as: "jermaine").split(separator: "\n").map(String.init)
        func columns(before text: String, in line: String) -> Int? {
            line.range(of: text).map { line[..<$0.lowerBound].reduce(0) { width, character in
                let wide = character.unicodeScalars.first.map { $0.properties.isEmojiPresentation || (0x3000...0x9FFF).contains($0.value) } ?? false
                return width + (wide ? 2 : 1)
            } }
        }
        let header = try #require(lines.first)
        let marks = try #require(columns(before: "MARKS", in: header))
        for title in ["日本語のメモ", "🎉 party"] {
            let line = try #require(lines.first { $0.contains(title) })
            #expect(columns(before: "shared", in: line) == marks, "\(lines.joined(separator: "\n"))")
        }
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
    }
}
