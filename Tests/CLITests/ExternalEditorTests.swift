import Foundation
import Testing
import TestSupport

/// `E` runs $EDITOR as a job in the foreground of the terminal: an editor that reads the keyboard (vi, nano, this
/// one) gets it; the screen comes back whole; a failure names the editor and how it ended.
@Suite(.serialized) struct ExternalEditorTests {
    let app = App()
    let tmux = Tmux(width: 120, height: 30)

    func editor(_ name: String, _ body: String) throws -> String {
        let script = app.directory.url.appendingPathComponent(name)
        try ("#!/bin/sh\n" + body).write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script.path
    }

    func open(editor: String) throws {
        _ = try app.ok("new", "Meeting", "--body", "A", as: "jermaine")
        try app.signIn("jermaine")
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"], environment: app.environment.merging(["EDITOR": editor]) { $1 })
        try #require(try tmux.waitFor("jermaine") { $0.contains("● synced") && $0.contains("Meeting") }.ok)
    }

    @Test func anEditorThatReadsTheKeyboardGetsIt() throws {
        defer { tmux.end() }
        // What an interactive editor does: read what the person types at the terminal (a background job cannot).
        try open(editor: try editor("typing.sh", "IFS= read -r line || exit 9\nprintf '%s\\n' \"$line\" >> \"$1\"\n"))
        try tmux.press("jermaine", "E")
        try tmux.type("jermaine", "typed in the editor")
        try tmux.press("jermaine", "Enter")
        let saved = try tmux.waitFor("jermaine") { $0.contains("\"Meeting\" saved") }
        #expect(saved.ok && saved.screen.contains("CloudNotes · jermaine"), "\(saved.screen)")
        #expect(try eventually { (try app.post("Meeting", as: "jermaine")["content"] as? String)?.hasSuffix("typed in the editor") == true })
    }

    @Test func aFailingEditorIsNamedWithHowItEnded() throws {
        defer { tmux.end() }
        let path = try editor("failing.sh", "exit 3\n")
        try open(editor: path)
        try tmux.press("jermaine", "E")
        let said = try tmux.waitFor("jermaine") { $0.contains("exited with status 3") }
        #expect(said.ok && said.screen.contains("failing.sh") && said.screen.contains("nothing changed"), "\(said.screen)")
        #expect(try app.post("Meeting", as: "jermaine")["content"] as? String == "A")
    }
}
