import Foundation
import Testing
import TestSupport

/// SPEC §3 scenarios 1–4 on screen: two front ends (jermaine and heather) in
/// tmux against one temporary cloud, invitations accepted from the command
/// line in a third terminal, every step checked on the screens people see.
@Suite(.serialized) struct FrontEndScenarioTests {
    let app = App()
    let tmux = Tmux(width: 160, height: 40)

    func openFrontEnd(_ account: String) throws {
        try app.signIn(account)
        try tmux.open(account, [CloudNotesBinary.url.path, "--account", account], environment: app.environment)
        let ready = try tmux.waitFor(account) { $0.contains("CloudNotes · \(account)") && $0.contains("synced") }
        try #require(ready.ok, "front end of \(account) did not start:\n\(ready.screen)")
    }

    /// Runs `cloudnotes accept URL` in a terminal of its own and waits for it to finish.
    func acceptInThirdTerminal(_ url: String, as account: String) throws {
        let name = "accept-\(account)-\(UUID().uuidString.prefix(4))"
        try app.signIn(account)
        try tmux.open(name, [CloudNotesBinary.url.path, "accept", url, "--account", account], environment: app.environment)
        let done = try tmux.waitFor(name) { $0.contains("[exited]") }
        try #require(done.ok && done.screen.contains("accepted \""), "accept failed:\n\(done.screen)")
    }

    /// Writes a post in a front end: `a`, the title, the text, Ctrl-S.
    func write(_ title: String, _ text: String, in session: String) throws {
        try tmux.press(session, "a")
        try tmux.type(session, title)
        try tmux.press(session, "Tab", "Tab", "Tab")
        try tmux.type(session, text)
        try tmux.press(session, "C-s")
        try #require(try tmux.waitFor(session) { $0.contains("\"\(title)\" written") }.ok)
    }

    /// Shares the selected post from its front end's dialog and returns the URL it shows.
    func share(in session: String, inviting people: String, readOnly: Bool) throws -> String {
        try tmux.press(session, "s")
        try tmux.type(session, people)
        if readOnly { try tmux.press(session, "Tab", "Space") }
        try tmux.press(session, "Enter")
        let shown = try tmux.waitFor(session) { $0.contains("this URL") }
        try #require(shown.ok, "no URL shown:\n\(shown.screen)")
        let url = try #require(shown.screen.firstMatch(of: /cloudnotes:\/\/share\/\S+/).map { String($0.0) })
        try tmux.press(session, "Enter")
        return url
    }

    /// The list row of a post on a screen.
    func row(_ title: String, in screen: String) -> String? {
        screen.split(separator: "\n").first { $0.hasPrefix("│") && $0.contains(title) }.map { String($0.prefix(70)) }
    }

    /// A terminal whose End, Home, function and Alt keys ncurses does not know (xterm's terminfo under tmux, which
    /// sends End as `ESC [4~`): in the editor they are keys or nothing, never Esc and then commands.
    @Test func endHomeFunctionAndAltKeysInTheEditorAreNotCommands() throws {
        defer { tmux.end() }
        try app.signIn("jermaine")
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"],
                      environment: app.environment.merging(["TERM": "xterm-256color"]) { $1 })
        try #require(try tmux.waitFor("jermaine") { $0.contains("CloudNotes · jermaine") && $0.contains("synced") }.ok)
        try tmux.press("jermaine", "a")
        try tmux.type("jermaine", "Valid title")
        try tmux.press("jermaine", "Home", "End", "M-x", "M-a", "F5", "C-Right")
        try tmux.type("jermaine", "!")
        try tmux.press("jermaine", "C-s")
        let saved = try tmux.waitFor("jermaine") { $0.contains("\"Valid title!\" written") }
        #expect(saved.ok, "\(saved.screen)")
        #expect(try app.titles("jermaine") == ["Valid title!"])
    }

    /// `/` filters as each letter arrives, diacritics aside; a mouse press (xterm's report, as tmux passes it on)
    /// selects a row and focuses it; a press on a footer key runs it.
    @Test func searchAsYouTypeAndTheMouseOnScreen() throws {
        defer { tmux.end() }
        for (title, body) in [("Phở in Hà Nội", "breakfast"), ("Groceries", "milk"), ("Trip plan", "Đà Nẵng then Huế")] {
            _ = try app.ok("new", title, "--body", body, as: "jermaine")
        }
        try app.signIn("jermaine")
        try tmux.open("jermaine", [CloudNotesBinary.url.path, "--account", "jermaine"],
                      environment: app.environment.merging(["TERM": "xterm-256color"]) { $1 })
        try #require(try tmux.waitFor("jermaine") { $0.contains("Posts (3)") && $0.contains("synced") }.ok)
        try tmux.press("jermaine", "/")
        for letter in "ha n" { try tmux.type("jermaine", String(letter)) }
        var screen = try tmux.waitFor("jermaine") { $0.contains("Posts (1 of 3) · /ha n") }
        #expect(screen.ok && row("Phở in Hà Nội", in: screen.screen) != nil && row("Groceries", in: screen.screen) == nil, "\(screen.screen)")
        try tmux.press("jermaine", "Escape")
        screen = try tmux.waitFor("jermaine") { $0.contains("Posts (3)") }
        #expect(screen.ok, "Esc clears the search:\n\(screen.screen)")
        // Newest first: Trip plan, Groceries, Phở. A press on the list's second row (cells counted from 1).
        try tmux.type("jermaine", "\u{1B}[<0;6;4M\u{1B}[<0;6;4m")
        screen = try tmux.waitFor("jermaine") { $0.contains("2 of 3") || $0.split(separator: "\n").contains { $0.contains("milk") } }
        #expect(screen.ok, "the press selected Groceries:\n\(screen.screen)")
        let footer = try #require(screen.screen.split(separator: "\n").last.map(String.init))
        let help = try #require(footer.range(of: "? help"))
        let column = footer[..<help.lowerBound].count + 1
        try tmux.type("jermaine", "\u{1B}[<0;\(column);\(tmux.height)M")
        screen = try tmux.waitFor("jermaine") { $0.contains("Everywhere in the browser") }
        #expect(screen.ok, "a press on ? help opened help:\n\(screen.screen)")
    }

    @Test func aTerminalThatCannotMoveTheCursorGetsAPlainMessage() throws {
        defer { tmux.end() }
        try app.signIn("jermaine")
        try tmux.open("dumb", [CloudNotesBinary.url.path, "--account", "jermaine"], environment: app.environment.merging(["TERM": "dumb"]) { $1 })
        let said = try tmux.waitFor("dumb") { $0.contains("[exited]") }
        #expect(said.ok && said.screen.contains("the front end needs a terminal that can move the cursor (TERM is 'dumb'"), "\(said.screen)")
    }

    @Test func shareAcceptParticipantsReadOnlyAndLiveEditsOnScreen() throws {
        defer { tmux.end() }  // the test process may end before the suite is released
        _ = try app.ok("status", as: "mary")  // mary has an account; she accepts later
        try openFrontEnd("jermaine")
        try openFrontEnd("heather")

        // 1. Jermaine writes a post and shares it read-write with heather and mary; the URL shows.
        try write("Sharing demo is great", "first line", in: "jermaine")
        let url = try share(in: "jermaine", inviting: "heather, mary", readOnly: false)
        #expect(url.hasPrefix("cloudnotes://share/"))

        // Heather accepts from a third terminal; her open front end shows the post, marked shared, without a key.
        try acceptInThirdTerminal(url, as: "heather")
        let arrived = try tmux.waitFor("heather") { self.row("Sharing demo is great", in: $0)?.contains("«") == true }
        #expect(arrived.ok, "not on heather's screen:\n\(arrived.screen)")

        // 2. Jermaine's participants pane: owner, heather accepted, mary pending.
        let wanted = ["jermaine owner read-write accepted", "heather private user read-write accepted", "mary private user read-write pending"]
        let pane = try tmux.waitFor("jermaine") { screen in
            let people = screen.replacingOccurrences(of: " +", with: " ", options: .regularExpression)
            return wanted.allSatisfy { people.contains($0) }
        }
        #expect(pane.ok, "participants:\n\(pane.screen)")
        try acceptInThirdTerminal(url, as: "mary")
        #expect(try tmux.waitFor("jermaine") {
            $0.replacingOccurrences(of: " +", with: " ", options: .regularExpression).contains("mary private user read-write accepted")
        }.ok)

        // 4. Live: heather (read-write) edits; jermaine's screen shows it with a notice, no key pressed.
        try tmux.press("heather", "e", "End")
        try tmux.type("heather", " and heather's line")
        try tmux.press("heather", "C-s")
        let live = try tmux.waitFor("jermaine") { $0.contains("first line and heather's line") }
        #expect(live.ok, "heather's edit did not reach jermaine:\n\(live.screen)")
        #expect(live.screen.contains("heather edited \"Sharing demo is great\""))
        // ...and the other way round.
        try tmux.press("jermaine", "e", "End")
        try tmux.type("jermaine", " plus jermaine's")
        try tmux.press("jermaine", "C-s")
        #expect(try tmux.waitFor("heather") { $0.contains("first line and heather's line plus jermaine's") }.ok)

        // 3. Heather shares her own post view-only with jermaine; he accepts; his screen refuses edits.
        try write("Heather's recipe", "two eggs", in: "heather")
        let readOnlyURL = try share(in: "heather", inviting: "jermaine", readOnly: true)
        try acceptInThirdTerminal(readOnlyURL, as: "jermaine")
        let marked = try tmux.waitFor("jermaine") { self.row("Heather's recipe", in: $0)?.contains("«⊘") == true }
        #expect(marked.ok, "read-only post not marked:\n\(marked.screen)")
        // Select it (it is the newest change) and try to edit and to delete.
        try tmux.press("jermaine", "g")
        let selected = try tmux.waitFor("jermaine") { $0.contains("┌─ Post ─") && $0.contains("read-only: shared by heather") }
        #expect(selected.ok, "\(selected.screen)")
        try tmux.press("jermaine", "e")
        let refused = try tmux.waitFor("jermaine") { $0.split(separator: "\n").contains { $0.hasPrefix("read-only: shared by heather") } }
        #expect(refused.ok && !refused.screen.contains("Editing ·"), "edit was not refused:\n\(refused.screen)")
        try tmux.press("jermaine", "d")
        #expect(!(try tmux.screen("jermaine")).contains("Delete \"Heather's recipe\""))
        let participants = try tmux.waitFor("jermaine") {
            $0.replacingOccurrences(of: " +", with: " ", options: .regularExpression).contains("jermaine private user read-only accepted")
        }
        #expect(participants.ok, "\(participants.screen)")
        // The command line refuses too, and the post is unchanged for its owner.
        let cli = try app.run("edit", "Heather's recipe", "--body", "three eggs", as: "jermaine")
        #expect(cli.status != 0 && cli.stderr.contains("read-only: shared by heather"))
        #expect(!(try tmux.screen("heather")).contains("three eggs"))

        // q leaves cleanly.
        try tmux.press("heather", "q")
        #expect(try tmux.waitFor("heather") { $0.contains("[exited]") }.ok)
    }

    /// Working together, seen on screen: heather is told she was removed, in words, while her front end is
    /// open; jermaine brings back an old version (h) and a deleted post (T) from his.
    @Test func noticesHistoryAndTrashOnScreen() throws {
        defer { tmux.end() }
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Plans", "--body", "first", as: "jermaine")
        let url = try app.ok("share", "Plans", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("edit", "Plans", "--body", "second", as: "jermaine")
        try openFrontEnd("heather")
        try acceptInThirdTerminal(url, as: "heather")
        #expect(try tmux.waitFor("heather") { self.row("Plans", in: $0) != nil }.ok)

        _ = try app.ok("remove-participant", "Plans", "heather@example.com", as: "jermaine")
        let told = try tmux.waitFor("heather") { $0.contains("jermaine removed you from \"Plans\"") }
        #expect(told.ok, "\(told.screen)")
        #expect(self.row("Plans", in: told.screen) == nil)
        try tmux.type("heather", ":notices")
        try tmux.press("heather", "Enter")
        #expect(try tmux.waitFor("heather") { $0.contains("Notices") && $0.contains("jermaine removed you from \"Plans\"") }.ok)
        try tmux.press("heather", "Escape")

        try openFrontEnd("jermaine")
        try tmux.press("jermaine", "h")
        #expect(try tmux.waitFor("jermaine") { $0.contains("History of \"Plans\"") && $0.contains("+ second") }.ok)
        try tmux.press("jermaine", "j", "r", "y")
        #expect(try tmux.waitFor("jermaine") { $0.contains("brought back version") }.ok)
        #expect(try app.post("Plans", as: "jermaine")["content"] as? String == "first")

        try tmux.press("jermaine", "d", "y")
        #expect(try tmux.waitFor("jermaine") { self.row("Plans", in: $0) == nil }.ok)
        // The trash is the cloud's: the deletion is there once sent (a moment later; until then T says it is empty).
        var trash = (ok: false, screen: "")
        for _ in 0..<20 where !trash.ok {
            try tmux.press("jermaine", "T")
            trash = try tmux.waitFor("jermaine", timeout: 1) { $0.contains("Recently deleted") }
        }
        #expect(trash.ok && trash.screen.contains("Plans · Notes · deleted"), "\(trash.screen)")
        try tmux.press("jermaine", "r", "y")
        #expect(try tmux.waitFor("jermaine") { $0.contains("brought back \"Plans\"") && self.row("Plans", in: $0) != nil }.ok)
    }

    /// An invitation reaches heather's open front end without a URL: the top line counts it, I lists it, a accepts it.
    @Test func theInboxOnScreen() throws {
        defer { tmux.end() }
        _ = try app.ok("status", as: "heather")
        try openFrontEnd("heather")
        _ = try app.ok("new", "Plans", "--body", "first", as: "jermaine")
        _ = try app.ok("share", "Plans", "--invite", "heather", "--read-write", as: "jermaine")
        let counted = try tmux.waitFor("heather") { $0.contains("✉ 1 invitation (I)") }
        #expect(counted.ok, "\(counted.screen)")
        try tmux.press("heather", "I")
        #expect(try tmux.waitFor("heather") { $0.contains("Invitations") && $0.contains("\"Plans\" from jermaine · you may read-write") }.ok)
        try tmux.press("heather", "a")
        let accepted = try tmux.waitFor("heather") { self.row("Plans", in: $0) != nil && !$0.contains("✉") }
        #expect(accepted.ok, "\(accepted.screen)")
    }

    /// Presence across processes: heather's open editor shows on jermaine's screen, and goes when she leaves it.
    @Test func presenceOnScreen() throws {
        defer { tmux.end() }
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Meeting", "--body", "agenda", as: "jermaine")
        let url = try app.ok("share", "Meeting", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        try openFrontEnd("jermaine")
        try openFrontEnd("heather")
        try tmux.press("heather", "e")
        let seen = try tmux.waitFor("jermaine") { $0.contains("Editing   heather now") }
        #expect(seen.ok, "\(seen.screen)")
        try tmux.press("heather", "Escape")
        let gone = try tmux.waitFor("jermaine") { !$0.contains("Editing   heather now") }
        #expect(gone.ok, "\(gone.screen)")
    }
}
