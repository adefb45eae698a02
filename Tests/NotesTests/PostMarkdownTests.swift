import Foundation
import Notes
import Testing
import TestSupport

/// Posts as Markdown files and back.
@Suite struct PostMarkdownTests {
    @Test func aPostRoundTripsWhateverItsTitleAndTagsHold() throws {
        let awkward = PostMarkdown(title: "Quotes \" and \\ and: colons\n--- and a rule", tags: ["a,b", "Hà Nội", "\"q\""],
                                   location: "Hoàn Kiếm\tlake", notebook: "Trip: 2026", authors: ["heather", "jermaine"],
                                   created: Date(timeIntervalSince1970: 1_795_000_000), modified: Date(timeIntervalSince1970: 1_795_000_060),
                                   content: "---\nnot front matter\n\n# heading\n",
                                   comments: [.init(author: "mary", date: Date(timeIntervalSince1970: 1_795_000_120), text: "a \"quote\",\nand\u{1B}[2J"),
                                              .init(author: "", date: nil, text: "")])
        let back = try PostMarkdown(parsing: awkward.text, fallbackTitle: "x")
        #expect(back == awkward)
        #expect(!awkward.text.unicodeScalars.contains("\u{1B}"), "a comment's controls are escaped too")
        #expect(awkward.text.hasPrefix("---\ntitle: \"Quotes \\\" and \\\\ and: colons\\n--- and a rule\"\n"))
    }

    @Test func plainMarkdownTakesItsHeadingOrItsFileName() throws {
        #expect(try PostMarkdown(parsing: "intro\n# Shopping\n- milk\n", fallbackTitle: "file").title == "Shopping")
        let plain = try PostMarkdown(parsing: "just text", fallbackTitle: "my-note")
        #expect(plain.title == "my-note" && plain.content == "just text" && plain.tags.isEmpty)
        #expect(try PostMarkdown(parsing: "---\ntitle: Plain words\ntags: one\n---\nbody", fallbackTitle: "x").tags == ["one"])
    }

    @Test func windowsLineEndsAndUntitledPostsComeBackIn() throws {
        let crlf = try PostMarkdown(parsing: "---\r\ntitle: \"x\"\r\ntags: [\"a\"]\r\n---\r\n\r\nhi\r\nthere\r\n", fallbackTitle: "f")
        #expect(crlf.title == "x" && crlf.tags == ["a"] && crlf.content == "hi\nthere\n")
        #expect(try PostMarkdown(parsing: "# Shopping\r\n- milk\r\n", fallbackTitle: "f").title == "Shopping")
        let untitled = PostMarkdown(title: "", content: "words")
        #expect(try PostMarkdown(parsing: untitled.text, fallbackTitle: "untitled-2").title == "untitled-2")
    }

    @Test func brokenFrontMatterIsRefusedWithItsReason() {
        #expect(throws: MarkdownError.badValue("title")) { try PostMarkdown(parsing: "---\ntitle: [\"a\", \"b\"]\n---\n", fallbackTitle: "f") }
        #expect(throws: MarkdownError.unclosedFrontMatter) { try PostMarkdown(parsing: "---\ntitle: \"x\"\n", fallbackTitle: "f") }
        #expect(throws: MarkdownError.badValue("title")) { try PostMarkdown(parsing: "---\ntitle: \"unterminated\n---\n", fallbackTitle: "f") }
        #expect(throws: MarkdownError.badLine("no colon here")) { try PostMarkdown(parsing: "---\nno colon here\n---\n", fallbackTitle: "f") }
        #expect(throws: MarkdownError.noTitle) { try PostMarkdown(parsing: "---\ntitle: \"  \"\n---\n", fallbackTitle: " ") }
        #expect(throws: MarkdownError.badValue("comments")) { try PostMarkdown(parsing: "---\ntitle: \"x\"\ncomments: [\"a\"]\n---\n", fallbackTitle: "f") }
        #expect(throws: MarkdownError.badValue("comments")) {
            try PostMarkdown(parsing: "---\ntitle: \"x\"\ncomments: [{\"author\": \"a\", \"text\": \"t\", \"date\": \"soon\"}]\n---\n", fallbackTitle: "f")
        }
        #expect(throws: MarkdownError.badValue("created")) { try PostMarkdown(parsing: "---\ntitle: \"x\"\ncreated: yesterday\n---\n", fallbackTitle: "f") }
        let dated = try? PostMarkdown(parsing: "---\ntitle: \"x\"\nmodified: \"2026-11-22T10:00:00Z\"\n---\n", fallbackTitle: "f")
        #expect(dated?.modified == Date(timeIntervalSince1970: 1_795_341_600))
        let day = try? PostMarkdown(parsing: "---\ntitle: \"x\"\ncreated: 2026-11-22\n---\n", fallbackTitle: "f")
        #expect(day?.created == Date(timeIntervalSince1970: 1_795_305_600))
    }

    @Test func fileNamesAreReadableAndNeverTaken() {
        #expect(PostMarkdown.fileName(for: "Trip to Hà Nội!", taken: []) == "trip-to-hà-nội.md")
        #expect(PostMarkdown.fileName(for: "Trip to Hà Nội", taken: ["trip-to-hà-nội.md"]) == "trip-to-hà-nội-2.md")
        #expect(PostMarkdown.fileName(for: "../../etc/passwd", taken: []) == "etc-passwd.md")
        #expect(PostMarkdown.fileName(for: "!!!", taken: []) == "untitled.md")
        #expect(PostMarkdown.fileName(for: "notes", taken: ["Notes.md"]) == "notes-2.md")  // one file where case is ignored
        #expect(PostMarkdown.fileName(for: String(repeating: "ệ", count: 200), taken: []).utf8.count <= 153)
    }
}

/// A file exported from others' text never acts on the terminal it is printed on, and imports back exactly.
@Suite struct InertExportTests {
    @Test func controlsAndBidiOverridesAreWrittenAsEscapesAndReadBack() throws {
        let hostile = "clear\u{1B}[2J\u{1B}]52;c;ZXZl\u{07} \u{202E}txt.exe \u{9B}31m and a literal \\u{41}\nline two\ttabbed"
        let markdown = PostMarkdown(title: "t\u{1B}[31m\u{202E}", tags: ["a\u{1B}b"], location: "x\u{2066}y", content: hostile)
        let text = markdown.text
        #expect(!text.unicodeScalars.contains { PostMarkdown.isControl($0) }, "\(text.debugDescription)")
        #expect(text.contains("escaped: true") && text.contains("line two\ttabbed"))
        let back = try PostMarkdown(parsing: text, fallbackTitle: "x")
        #expect(back.content == hostile && back.title == markdown.title && back.tags == markdown.tags && back.location == markdown.location)

        let plain = PostMarkdown(title: "Plain", content: "a literal \\u{41} stays as it is")
        #expect(!plain.text.contains("escaped") && plain.text.hasSuffix("a literal \\u{41} stays as it is"))
        #expect(try PostMarkdown(parsing: plain.text, fallbackTitle: "x").content == plain.content)
    }
}
