import Foundation
import Testing
import TestSupport

/// The front end in a real terminal (tmux): a paste (marked as one when the program asks) lands in the field
/// being edited, tabs and newlines included, not moving between fields as typed tabs and Enter would; words of
/// Indic scripts draw whole.
@Suite(.serialized) struct RealTerminalTests {
    let app = App()
    let tmux = Tmux(width: 100, height: 30)

    @Test func aPastedTableLandsInTheTextWhole() throws {
        defer { tmux.end() }
        _ = try app.ok("new", "Notes", "--body", "A", as: "jermaine")
        try app.signIn("jermaine")
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"], environment: app.environment)
        try #require(try tmux.waitFor("jermaine") { $0.contains("● synced") }.ok)
        try tmux.press("jermaine", "a")
        try tmux.type("jermaine", "Table")
        try tmux.press("jermaine", "Tab", "Tab", "Tab")  // tags, location, then the text
        try tmux.paste("jermaine", "col1\tcol2\tcol3\nrow2\tb\tc")
        try tmux.press("jermaine", "C-s")
        let saved = try tmux.waitFor("jermaine") { $0.contains("\"Table\" written") }
        #expect(saved.ok, "\(saved.screen)")
        let post = try app.post("Table", as: "jermaine")
        #expect(post["content"] as? String == "col1\tcol2\tcol3\nrow2\tb\tc")
        #expect((post["tags"] as? [String] ?? []).isEmpty)
        #expect(post["location"] == nil || post["location"] is NSNull)
    }

    @Test func indicWordsDrawWhole() throws {
        defer { tmux.end() }
        _ = try app.ok("new", "नमस्ते हिन्दी", "--body", "कृपया ध्यान दें", as: "jermaine")
        try app.signIn("jermaine")
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"], environment: app.environment)
        let shown = try tmux.waitFor("jermaine") { $0.contains("● synced") && $0.contains("कृपया") }
        #expect(shown.ok && shown.screen.contains("नमस्ते हिन्दी") && shown.screen.contains("कृपया ध्यान दें"), "\(shown.screen)")
    }
}
