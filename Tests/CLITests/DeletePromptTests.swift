import Foundation
import Testing
import TestSupport

/// `delete` asks at a terminal before it deletes; with its stderr closed (a wrapper that shut it) it still takes the
/// answer, unasked aloud, rather than crash on the question.
@Suite struct DeletePromptTests {
    @Test func deleteAsksAtATerminalAndTakesTheAnswerWithStderrClosed() throws {
        let app = App()
        let tmux = Tmux(width: 100, height: 10)
        defer { tmux.end() }
        _ = try app.ok("new", "Doomed", as: "heather")
        _ = try app.ok("new", "Also doomed", as: "heather")
        func delete(_ title: String, _ redirection: String) throws -> String {
            let session = "delete-\(redirection.isEmpty ? "asked" : "closed")"
            try tmux.open(session, ["sh", "-c", "exec \"$0\" \"$@\" \(redirection)", CloudNotesBinary.url.path, "delete", title,
                                    "--account", "heather"], environment: app.environment)
            if redirection.isEmpty {
                let asked = try tmux.waitFor(session) { $0.contains("delete \"\(title)\"? [y/N]") }
                #expect(asked.ok, "not asked:\n\(asked.screen)")
            } else {
                Thread.sleep(forTimeInterval: 1)  // the question, unseen
            }
            try tmux.type(session, "y")
            try tmux.press(session, "Enter")
            return try tmux.waitFor(session) { $0.contains("[exited]") }.screen
        }
        let asked = try delete("Doomed", "")
        #expect(asked.contains("deleted "), "\(asked)")
        let closed = try delete("Also doomed", "2>&-")
        #expect(closed.contains("deleted ") && !closed.contains("Fatal error"), "\(closed)")
        #expect(try app.titles("heather").isEmpty)
    }
}
