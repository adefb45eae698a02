import Foundation
import Testing
import TestSupport

/// Two front ends on one device: the one that does not sync wakes the one
/// that does, which shows and sends its posts at once; when the syncing one
/// quits, the other takes over.
@Suite(.serialized) struct SecondFrontEndTests {
    let app = App()
    let tmux = Tmux(width: 120, height: 30)

    func write(_ title: String, in session: String) throws {
        try tmux.press(session, "a")
        try tmux.type(session, title)
        try tmux.press(session, "C-s")
        try #require(try tmux.waitFor(session) { $0.contains("\"\(title)\" written") }.ok)
    }

    @Test func whatTheSecondFrontEndWritesIsShownAndSentAndItTakesOver() throws {
        defer { tmux.end() }
        let command = [CloudNotesBinary.url.path, "--account", "jermaine", "--device", "laptop"]
        try app.signIn("jermaine", device: "laptop")
        try tmux.open("one", command, environment: app.environment)
        try #require(try tmux.waitFor("one") { $0.contains("● synced") }.ok)
        try tmux.open("two", command, environment: app.environment)
        try #require(try tmux.waitFor("two") { $0.contains("synced by another process") }.ok)

        try write("From two", in: "two")
        let shown = try tmux.waitFor("one", timeout: 3) { $0.contains("From two") }
        #expect(shown.ok, "the syncing front end did not show it:\n\(shown.screen)")
        #expect(try eventually(timeout: 3) { try app.titles("jermaine", device: "phone").contains("From two") }, "not sent")

        try tmux.press("one", "q")
        let tookOver = try tmux.waitFor("two", timeout: 5) { $0.contains("● synced") && !$0.contains("another process") }
        #expect(tookOver.ok, "the second front end did not take over:\n\(tookOver.screen)")
        try write("After takeover", in: "two")
        #expect(try eventually(timeout: 3) { try app.titles("jermaine", device: "phone").contains("After takeover") }, "not sent after takeover")
    }
}
