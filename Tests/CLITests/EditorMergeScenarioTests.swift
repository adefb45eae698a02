import Foundation
import Testing
import TestSupport

/// SPEC scenario 11 on screen: jermaine has the editor open on a shared post
/// while heather edits it from another machine's worth of processes; his
/// save keeps her words. In place (`e`) and in `$EDITOR` (`E`).
@Suite(.serialized) struct EditorMergeScenarioTests {
    let app = App()
    let tmux = Tmux(width: 140, height: 36)

    /// "Meeting" (A, B, C) by jermaine, shared read-write with heather, who accepted; jermaine's front end open on it.
    func meetingSharedWithHeather(editor: String? = nil) throws {
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Meeting", "--body", "A\nB\nC", "--location", "Room 1", as: "jermaine")
        let url = try app.ok("share", "Meeting", "--invite", "heather@example.com", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        var environment = app.environment
        if let editor { environment["EDITOR"] = editor }
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"], environment: environment)
        try #require(try tmux.waitFor("jermaine") { $0.contains("● synced") && $0.contains("Meeting") }.ok)
    }

    /// heather appends a line from the command line, and jermaine's screen says so.
    func heatherAppends(_ line: String) throws {
        let body = (try app.post("Meeting", as: "heather")["content"] as! String) + "\n" + line
        _ = try app.ok("edit", "Meeting", "--body", body, as: "heather")
    }

    func meetingAsHeatherSeesIt() throws -> [String: Any] {
        _ = try app.ok("sync", as: "heather")
        return try app.post("Meeting", as: "heather")
    }

    @Test func anEditorOpenWhileHeatherAddsALineKeepsHerLine() throws {
        defer { tmux.end() }
        try meetingSharedWithHeather()
        try tmux.press("jermaine", "e", "BTab", "C-e")  // the location field, its end
        try tmux.type("jermaine", ", 4th floor")
        try heatherAppends("line D (heather)")
        #expect(try tmux.waitFor("jermaine") { $0.contains("heather edited \"Meeting\"") }.ok)
        try tmux.press("jermaine", "C-s")
        #expect(try tmux.waitFor("jermaine") { $0.contains("merged with heather's edit") }.ok)
        #expect(try tmux.waitFor("jermaine") { $0.contains("● synced") }.ok)

        let post = try meetingAsHeatherSeesIt()
        #expect(post["content"] as? String == "A\nB\nC\nline D (heather)")
        #expect(post["location"] as? String == "Room 1, 4th floor")
    }

    @Test func bothAppendingALineKeepBoth() throws {
        defer { tmux.end() }
        try meetingSharedWithHeather()
        try tmux.press("jermaine", "e", "Enter")
        try tmux.type("jermaine", "line D (jermaine)")
        try heatherAppends("line D (heather)")
        #expect(try tmux.waitFor("jermaine") { $0.contains("heather edited \"Meeting\"") }.ok)
        try tmux.press("jermaine", "C-s")
        #expect(try tmux.waitFor("jermaine") { $0.contains("● synced") && $0.contains("line D (jermaine)") }.ok)
        let post = try meetingAsHeatherSeesIt()
        #expect(post["content"] as? String == "A\nB\nC\nline D (heather)\nline D (jermaine)")
        #expect(post["conflicted"] as? Bool == false)
    }

    @Test func anExternalEditorOpenWhileHeatherAddsALineKeepsHerLine() throws {
        defer { tmux.end() }
        // $EDITOR appends jermaine's line, then waits (the person is still typing) until the test lets it go.
        let go = app.directory.url.appendingPathComponent("editor-may-exit").path
        let script = app.directory.url.appendingPathComponent("slow-editor.sh")
        try "#!/bin/sh\nprintf 'line E (jermaine)\\n' >> \"$1\"\nwhile [ ! -e '\(go)' ]; do sleep 0.05; done\n"
            .write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try meetingSharedWithHeather(editor: script.path)
        try tmux.press("jermaine", "E")
        try heatherAppends("line D (heather)")
        // Her line reaches jermaine's device (its front end syncs while $EDITOR runs) before he saves.
        #expect(try eventually(timeout: 10) { (try app.post("Meeting", as: "jermaine")["content"] as? String)?.contains("(heather)") == true })
        FileManager.default.createFile(atPath: go, contents: Data())
        let merged = try tmux.waitFor("jermaine") { $0.contains("merged with heather's edit") }
        #expect(merged.ok, "\(merged.screen)")
        #expect(try tmux.waitFor("jermaine") { $0.contains("● synced") }.ok)
        let post = try meetingAsHeatherSeesIt()
        #expect(post["content"] as? String == "A\nB\nC\nline D (heather)\nline E (jermaine)")
    }
}
