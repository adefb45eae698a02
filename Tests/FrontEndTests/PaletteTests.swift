import Foundation
@testable import FrontEnd
import Notes
import Testing

/// The `:` command line: completions as you type, Tab, abbreviations, and history that outlives the run.
@Suite struct PaletteTests {
    func prompt(_ frontEnd: FrontEnd) -> Prompt? {
        if case .prompt(let prompt) = frontEnd.state.mode { return prompt }
        return nil
    }

    @Test func tabCompletesCommandsThenTheirArguments() throws {
        let fixture = try Fixture()
        let work = try fixture.store.createNotebook("Work", owner: fixture.account.id)
        try fixture.post("Groceries", minute: 1, tags: ["home"])
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char(":"))
        frontEnd.type("fil")
        #expect(prompt(frontEnd)?.candidates == ["filter"])
        frontEnd.press(.tab)
        #expect(prompt(frontEnd)?.editor.text == "filter ")
        let candidates = prompt(frontEnd)?.candidates ?? []
        #expect(candidates.contains("filter Work") && candidates.contains("filter tag:home") && candidates.contains("filter shared with me"))
        let screen = frontEnd.frame(width: 80, height: 24).text
        #expect(screen.contains("Tab: filter all  filter Notes"), "\(screen)")  // in the footer's place
        frontEnd.type("wo")
        #expect(prompt(frontEnd)?.candidates == ["filter Work"])
        frontEnd.press(.mouse(Mouse(.press, x: 7, y: 23)))  // a press on the completion takes it
        #expect(prompt(frontEnd)?.editor.text == "filter Work")
        frontEnd.press(.enter)
        #expect(frontEnd.state.filter.notebook == work)
    }

    @Test func tabStepsThroughSeveralAndAnAbbreviationRunsWhenItIsOne() throws {
        let fixture = try Fixture()
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char(":"))
        frontEnd.type("sh")
        #expect(prompt(frontEnd)?.candidates.prefix(2) == ["share", "share-notebook"])
        frontEnd.press(.tab)  // the start they share
        #expect(prompt(frontEnd)?.editor.text == "share")
        frontEnd.press(.tab, .tab)
        #expect(prompt(frontEnd)?.editor.text == "share-notebook" && prompt(frontEnd)?.candidate == 1)
        frontEnd.press(.ctrl("u"))  // the line before the cursor goes, and comes back with ^Z
        #expect(prompt(frontEnd)?.editor.text == "")
        frontEnd.press(.ctrl("z"))
        #expect(prompt(frontEnd)?.editor.text == "share-notebook")
        frontEnd.press(.home, .ctrl("k"))
        #expect(prompt(frontEnd)?.editor.text == "")
        frontEnd.press(.escape)
        frontEnd.runCommandLine("sh")
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("\"sh\" could be share, share-notebook"))
        frontEnd.runCommandLine("hel")  // one command starts so: it runs
        if case .help = frontEnd.state.mode {} else { Issue.record("help did not open") }
    }

    @Test func openFindsAPostByTitle() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        try fixture.post("Trip to Hà Nội", minute: 2)
        try fixture.post("Zebra", minute: 3)
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char(":"))
        frontEnd.type("open ha n")
        #expect(prompt(frontEnd)?.candidates == ["open Trip to Hà Nội"])
        frontEnd.press(.enter)
        #expect(frontEnd.selectedPost?.title == "Trip to Hà Nội" && frontEnd.state.focus == .detail)
    }

    /// ↑ brings back lines run before, in an earlier run too; a share URL is never written down.
    @Test func historyOutlivesTheRun() throws {
        let fixture = try Fixture()
        _ = try fixture.store.createNotebook("Work", owner: fixture.account.id)
        let first = fixture.frontEnd()
        first.runCommandLine("filter Work")
        first.runCommandLine("search milk")
        first.runCommandLine("accept https://cloudnotes.invalid/share/secret")
        let again = fixture.frontEnd()
        again.press(.char(":"), .up)
        #expect(prompt(again)?.editor.text == "search milk")
        again.press(.up, .up)
        #expect(prompt(again)?.editor.text == "filter Work")  // the oldest stays
        again.press(.down, .down)
        #expect(prompt(again)?.editor.text == "")
        again.type("half typed")
        again.press(.up, .down)
        #expect(prompt(again)?.editor.text == "half typed")  // the line being typed comes back past the newest
        let file = try String(contentsOf: fixture.store.directory.appendingPathComponent("command-history"), encoding: .utf8)
        #expect(!file.contains("secret"))
    }

    /// `:export DIR` writes the posts the list shows, the filter's only.
    @Test func exportWritesWhatTheListShows() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        try fixture.post("Trip", "train", minute: 2)
        let frontEnd = fixture.frontEnd()
        frontEnd.runCommandLine("search milk")
        let out = fixture.directory.path("export")
        frontEnd.runCommandLine("export \(out.path)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["groceries.md"])
        #expect(frontEnd.frame(width: 120, height: 24).text.contains("exported 1 post to"))
    }

    /// `:open TITLE` finds titles in any case; where two posts could be meant it opens neither, and the list
    /// shows both to choose from (it once opened one of them silently).
    @Test func openAsksWhichWhenTwoPostsCouldBeMeant() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        try fixture.post("Plan", "week one", minute: 2)
        try fixture.post("plan", "week two", minute: 3)
        try fixture.post("Other", "no match", minute: 4)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 24)
        frontEnd.runCommandLine("open groceries")
        #expect(frontEnd.selectedPost?.title == "Groceries" && frontEnd.state.focus == .detail)
        frontEnd.state.focus = .list
        frontEnd.runCommandLine("open PLAN")
        let screen = frontEnd.frame(width: 100, height: 24).text
        #expect(screen.contains("2 posts are titled \"PLAN\": the list shows them"), "\(screen)")
        #expect(screen.contains("week one") || screen.contains("Plan"))
        #expect(!screen.contains("Groceries") && !screen.contains("Other"), "only the two in the list: \(screen)")
        #expect(frontEnd.state.focus == .list, "nothing opened")
        frontEnd.runCommandLine("open Plan")
        #expect(frontEnd.selectedPost?.content == "week one", "the exact spelling opens")
    }
}
