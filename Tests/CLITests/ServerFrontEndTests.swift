import Foundation
import Testing
import TestSupport

/// Two front ends on two "machines" (data directories of their own), one server between them: an edit made in one
/// shows in the other without a key press there.
@Suite(.serialized) struct ServerFrontEndTests {
    @Test func anEditInOneFrontEndShowsInTheOtherThroughTheServer() throws {
        let app = try App(.server)
        let tmux = Tmux(width: 160, height: 40)
        defer { tmux.end() }
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Over the wire", "--body", "first line", as: "jermaine")
        let url = try app.ok("share", "Over the wire", "--invite", "heather@example.com", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")

        for account in ["jermaine", "heather"] {
            try tmux.open(account, [CloudNotesBinary.url.path, "--account", account], environment: app.environment(of: account))
            let ready = try tmux.waitFor(account) { $0.contains("CloudNotes · \(account)") && $0.contains("synced") && $0.contains("Over the wire") }
            try #require(ready.ok, "front end of \(account) did not start:\n\(ready.screen)")
        }
        try tmux.press("heather", "g")  // heather looks at the post, and touches nothing after
        #expect(try tmux.waitFor("heather") { $0.contains("first line") }.ok)

        try tmux.press("jermaine", "g", "e", "End")
        try tmux.type("jermaine", " and a second from jermaine")
        try tmux.press("jermaine", "C-s")
        let live = try tmux.waitFor("heather", timeout: 15) { $0.contains("first line and a second from jermaine") }
        #expect(live.ok, "the edit did not reach heather's screen:\n\(live.screen)")
        #expect(live.screen.contains("synced"))
    }
}
