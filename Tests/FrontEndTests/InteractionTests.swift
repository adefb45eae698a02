import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Terminal
import Testing

/// Keys in, state and store out: the front end as a person drives it.
@Suite struct InteractionTests {
    @Test func writingANewPostSavesItAndAsksForASend() throws {
        let fixture = try Fixture()
        let sync = StandInSync()
        let frontEnd = fixture.frontEnd(sync: sync)
        frontEnd.press(.char("a"))
        frontEnd.type("Trip")
        frontEnd.press(.tab)
        frontEnd.type("travel, 2026")
        frontEnd.press(.tab, .tab)
        frontEnd.type("day one")
        frontEnd.press(.enter)
        frontEnd.type("day two 二日目")
        frontEnd.press(.ctrl("s"))
        let post = try #require(try fixture.store.posts().first)
        #expect(post.title == "Trip" && post.tags == ["travel", "2026"] && post.content == "day one\nday two 二日目")
        #expect(post.id == "pnew1")
        #expect(sync.added == 1)
        #expect(frontEnd.state.mode == .browse)
        #expect(frontEnd.frame(width: 80, height: 24).lines[22].contains("\"Trip\" written"))
    }

    @Test func leavingAnEditWithChangesAsksFirstAndKeepsTheTextOnCancel() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("e"))
        frontEnd.type(" and eggs")
        frontEnd.press(.escape)
        guard case .confirm(let question) = frontEnd.state.mode else { Issue.record("no confirmation"); return }
        #expect(!question.confirmFocused)  // Cancel first
        frontEnd.press(.enter)  // Cancel: back to the editor, the typed text still there
        guard case .edit(let form) = frontEnd.state.mode else { Issue.record("cancel left the editor"); return }
        #expect(form.content.text == "milk and eggs")
        #expect(try fixture.store.posts()[0].content == "milk")
        frontEnd.type("!")
        frontEnd.press(.escape, .char("y"))  // Discard, this time
        #expect(frontEnd.state.mode == .browse)
        #expect(try fixture.store.posts()[0].content == "milk")
    }

    @Test func deletingConfirmsWithCancelFocused() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("d"))
        let dialog = frontEnd.frame(width: 80, height: 24).text
        #expect(dialog.contains("Delete \"Groceries\"?"))
        #expect(dialog.contains("[ Cancel ]  [ Delete ]"))
        frontEnd.press(.enter)
        #expect(try fixture.store.posts().count == 1)
        frontEnd.press(.char("d"), .right, .enter)
        #expect(try fixture.store.posts().isEmpty)
    }

    @Test func theEditorWrapsMovesByScreenRowsAndUndoes() {
        var editor = TextEditor(text: "")
        editor.insert("abcdefghij")  // wraps at 4: abcd / efgh / ij
        #expect(editor.layout(width: 4).rows.map { editor.text(of: $0) } == ["abcd", "efgh", "ij"])
        editor.moveVertically(-1, width: 4)
        #expect(editor.cursor == .init(line: 0, column: 6))
        editor.insert("X")
        editor.insert(" ")
        editor.insert("Y")
        #expect(editor.text == "abcdefX Yghij")
        editor.undo()
        #expect(editor.text == "abcdefX ghij")
        editor.undo()
        editor.undo()
        #expect(editor.text == "abcdefghij")
        var wide = TextEditor(text: "日本語")
        #expect(wide.layout(width: 4).rows.count == 2)  // two wide characters fill four columns
        wide.backspace()
        #expect(wide.text == "日本")
        wide.newline()
        wide.insert("x")
        wide.moveVertically(-1, width: 10)
        #expect(wide.cursor.line == 0)
    }

    @Test func theListReadsOnlyTheRowsItShows() throws {
        let fixture = try Fixture()
        for i in 0..<500 { try fixture.post("Post \(i)", i % 7 == 0 ? "needle \(i)" : "hay", minute: i) }
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        #expect(frontEnd.visibleRows().rows.count == 19)
        frontEnd.press(.char("G"))
        let bottom = frontEnd.frame(width: 80, height: 24)
        #expect(frontEnd.state.selection == 499)
        #expect(bottom.text.contains("Post 0") && !bottom.text.contains("Post 100 "))
        frontEnd.press(.char("g"), .char("j"), .char("j"))
        #expect(frontEnd.state.selection == 2)
        frontEnd.press(.pageDown)
        #expect(frontEnd.state.selection == 20)
    }

    /// `/` filters the list as each key is typed; n/N move between the matches; Enter keeps the filter and
    /// Esc takes it away.
    @Test func searchFiltersAsYouTypeAndNMovesBetweenMatches() throws {
        let fixture = try Fixture()
        for i in 0..<50 { try fixture.post("Post \(i)", i % 10 == 3 ? "needle in Hà Nội" : "hay", minute: i) }
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("/"))
        frontEnd.type("nee")
        var screen = frontEnd.frame(width: 80, height: 24).text
        #expect(screen.contains("Posts (5 of 50) · /nee"), "\(screen)")
        #expect(!screen.contains("Post 42") && screen.contains("Post 43"))
        frontEnd.press(.escape)
        #expect(frontEnd.state.search == nil && frontEnd.postCount() == 50)
        frontEnd.press(.char("/"))
        frontEnd.type("ha noi")
        frontEnd.press(.enter)
        #expect(frontEnd.state.search == "ha noi" && frontEnd.postCount() == 5)
        frontEnd.press(.char("n"))
        #expect(frontEnd.state.selection == 1)
        frontEnd.press(.char("N"), .char("N"))
        #expect(frontEnd.state.selection == 4)  // round to the last match
        frontEnd.runCommandLine("search nothing-like-this")
        screen = frontEnd.frame(width: 80, height: 24).text
        #expect(screen.contains("nothing matches") && screen.contains("(0 of 50)"))
        // Searching again, what the last search said goes: it is no longer true.
        frontEnd.press(.char("/"), .backspace)
        #expect(!frontEnd.frame(width: 80, height: 24).text.contains("nothing matches"))
    }

    /// Keys typed faster than frames (a paste) make one search at the next frame, not one each; a control
    /// character pasted in is dropped; a search of no letter, digit or emoji says so.
    @Test func aPasteIsOneSearchAndItsInvisibleCharactersAreDropped() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        try fixture.post("Trip", "train", minute: 2)
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char("/"))
        frontEnd.type("mi\u{2}lk")
        #expect(frontEnd.state.search == nil, "no search before the frame")
        let screen = frontEnd.frame(width: 80, height: 24).text
        #expect(frontEnd.state.search == "milk" && screen.contains("Posts (1 of 2) · /milk"), "\(screen)")
        frontEnd.press(.escape, .char("/"))
        frontEnd.type(String(repeating: "trip ", count: 800))
        #expect(frontEnd.frame(width: 80, height: 24).text.contains("Posts (1 of 2)"))
        frontEnd.press(.escape)
        frontEnd.runCommandLine("search *")
        #expect(frontEnd.frame(width: 80, height: 24).text.contains("\"*\" holds no letter, digit or emoji to look for"))
    }

    /// A search matching more than the cap counts that far on each key, says "10+", and counts whole when the
    /// list is taken to its end.
    @Test func aBroadSearchCountsUpToItsCapUntilTheEndIsWanted() throws {
        let fixture = try Fixture()
        for i in 0..<60 { try fixture.post("Post \(i)", "common words", minute: i) }
        try fixture.post("Other", "rare", minute: 70)
        let frontEnd = fixture.frontEnd()
        frontEnd.searchCountCap = 30
        frontEnd.runCommandLine("search common")
        var screen = frontEnd.frame(width: 100, height: 24).text
        #expect(screen.contains("Posts (30+ of 61) · /common") && screen.contains("1 of 30+"), "\(screen)")
        frontEnd.press(.char("G"))
        screen = frontEnd.frame(width: 100, height: 24).text
        #expect(frontEnd.state.selection == 59 && screen.contains("Posts (60 of 61)") && screen.contains("60 of 60"), "\(screen)")
        #expect(screen.contains("Post 0 "))
        frontEnd.runCommandLine("search rare")
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("Posts (1 of 61) · /rare"))
    }

    /// What arrives is indexed for search off the event loop (here the stand-in runs it at once), so a first
    /// search after a large sync does not wait for it.
    @Test func arrivalsAreIndexedForSearchBeforeAnySearch() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        #expect(try fixture.store.searchIsBehind)
        _ = frontEnd.frame(width: 80, height: 24)
        #expect(try !fixture.store.searchIsBehind)
        try fixture.post("Trip", "train", minute: 2, scope: .shared, by: "_heather")
        frontEnd.storeChanged()
        #expect(try !fixture.store.searchIsBehind)
    }

    /// Esc steps back one level: another pane to the list, then the search, then the notebook shown.
    @Test func escapeStepsBackOneLevel() throws {
        let fixture = try Fixture()
        let work = try fixture.store.createNotebook("Work", owner: fixture.account.id)
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 24)
        frontEnd.show(work)
        frontEnd.runCommandLine("search milk")
        frontEnd.press(.tab)
        #expect(frontEnd.state.focus == .detail)
        frontEnd.press(.escape)
        #expect(frontEnd.state.focus == .list && frontEnd.state.search == "milk")
        frontEnd.press(.escape)
        #expect(frontEnd.state.search == nil && frontEnd.state.filter.notebook == work)
        frontEnd.press(.escape)
        #expect(frontEnd.state.filter.notebook == nil)
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("all notebooks shown (was Work)"))
    }

    @Test func theNotebookPickerJumpsWithGAndShiftG() throws {
        let fixture = try Fixture()
        for name in ["A", "B", "C"] { _ = try fixture.store.createNotebook(name, owner: fixture.account.id) }
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char("f"), .char("G"))
        guard case .pickFilter(let last) = frontEnd.state.mode else { Issue.record("no picker"); return }
        #expect(last.selection == last.entries.count - 1)
        frontEnd.press(.char("g"))
        guard case .pickFilter(let first) = frontEnd.state.mode else { Issue.record("no picker"); return }
        #expect(first.selection == 0)
    }

    /// A message longer than the line is cut with a pointer to `:messages`, which shows it whole.
    @Test func aLongMessageIsReadWholeInMessages() throws {
        let fixture = try Fixture()
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 60, height: 20)
        let long = "not shared: invalid arguments: " + (1...12).map { "reason\($0)" }.joined(separator: " ") + " END"
        frontEnd.flash(long, .error)
        let cut = frontEnd.frame(width: 60, height: 20).lines[18]
        #expect(cut.hasSuffix("(:messages)") && !cut.contains("END"), "\(cut)")
        frontEnd.runCommandLine("messages")
        let shown = frontEnd.frame(width: 60, height: 20).text
        #expect(shown.contains("Messages") && shown.contains("END"), "\(shown)")
        frontEnd.press(.escape)
        guard case .browse = frontEnd.state.mode else { Issue.record("Esc did not close it"); return }
    }

    /// Many messages and a long one: the list makes room, and the message is read to its end (its remedy).
    @Test(arguments: [(80, 24), (60, 20)]) func aLongMessageAmongManyIsReadToItsEnd(width: Int, height: Int) throws {
        let fixture = try Fixture()
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: width, height: height)
        for i in 1...30 { frontEnd.flash("message \(i)") }
        let long = "not sent: " + (1...60).map { "reason\($0)" }.joined(separator: " ") + " REMEDY: run cloudnotes discard"
        frontEnd.flash(long, .error)
        frontEnd.runCommandLine("messages")
        let shown = frontEnd.frame(width: width, height: height).text
        #expect(shown.contains("reason60") && shown.contains("REMEDY: run cloudnotes discard"), "\(shown)")
        #expect(shown.contains("message 30"), "the list still shows")
    }

    @Test func makingANotebookThatExistsSaysSo() throws {
        let fixture = try Fixture()
        _ = try fixture.store.createNotebook("Trip", owner: fixture.account.id)
        let frontEnd = fixture.frontEnd()
        frontEnd.runCommandLine("new-notebook Trip")
        let said = frontEnd.frame(width: 100, height: 24).text
        #expect(said.contains("notebook Trip exists already") && !said.contains("created"), "\(said)")
        #expect(try fixture.store.notebooks().filter { $0.title == "Trip" }.count == 1)
    }

    @Test func theCommandLineRunsRegistryCommandsByName() throws {
        let fixture = try Fixture()
        let other = try fixture.store.createNotebook("Work", owner: fixture.account.id)
        try fixture.post("Groceries", minute: 1)
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.char(":"))
        frontEnd.type("filter Work")
        frontEnd.press(.enter)
        #expect(frontEnd.state.filter.notebook == other)
        #expect(frontEnd.frame(width: 80, height: 24).text.contains("Notebook Work (0 of 1)"))
        frontEnd.runCommandLine("no-such-thing")
        #expect(frontEnd.frame(width: 80, height: 24).text.contains("no command named \"no-such-thing\""))
        frontEnd.runCommandLine("q")
        #expect(frontEnd.state.quit)
    }

    @Test func helpListsEveryCommandWithItsKeysAndWhyItIsDisabled() throws {
        let fixture = try Fixture()
        let frontEnd = fixture.frontEnd()
        let footerKeys = Set(frontEnd.footer().map(\.key))
        #expect(footerKeys.count > 5 && footerKeys.isSubset(of: Set(Commands.all.compactMap { $0.keys.first?.description })))
        frontEnd.press(.char("?"))
        let model = frontEnd.model(width: 120, height: 60)
        for command in Commands.all {
            #expect(model.help.contains { $0.text.contains("(:\(command.name))") })
        }
        #expect(model.help.contains { $0.keys == "e" && $0.text.contains("[no post selected]") })
        // Grouped by where the keys work, the browser's first, each dialog's after.
        let headings = model.help.filter(\.isHeading).map(\.text)
        #expect(headings.first == "Everywhere in the browser" && headings.contains("The editor (e, a)") && headings.contains("The share dialog (s)"))
        // At 80×24 it scrolls to its last line with G and back with g.
        let top = frontEnd.frame(width: 80, height: 24).text
        frontEnd.press(.char("G"))
        let bottom = frontEnd.frame(width: 80, height: 24).text
        #expect(top.contains("Everywhere in the browser") && !top.contains("read-only · conflict"))
        #expect(bottom.contains("read-only · conflict") && !bottom.contains("Everywhere in the browser"))
        frontEnd.press(.char("k"))
        #expect(frontEnd.frame(width: 80, height: 24).text != bottom)  // G stopped at the last page: one k moves
        frontEnd.press(.char("g"))
        // At 200 columns it is as wide as the screen and a disabled key's reason reads whole.
        frontEnd.press(.char("/"))
        frontEnd.type("rebuild")
        let wide = frontEnd.frame(width: 200, height: 60).text
        #expect(wide.contains("[the cloud is the one this device synced with: nothing to rebuild]"), "\(wide)")
        #expect(!wide.contains("Leave CloudNotes") && wide.contains("/rebuild"))
        frontEnd.press(.enter, .escape)  // the search kept, then cleared
        #expect(frontEnd.frame(width: 200, height: 60).text.contains("Leave CloudNotes"))
        frontEnd.press(.escape)
        #expect(frontEnd.state.mode == .browse)
    }

    @Test func arrivalsFromOthersShowABriefNotice() throws {
        let fixture = try Fixture()
        let post = try fixture.post("Groceries", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.post { $0.storeChanged(LiveSync.Update(arrivals: [Arrival(kind: .edited, postID: post.id, title: "Groceries", by: "_mary")])) }
        #expect(frontEnd.frame(width: 80, height: 24).lines[22].hasPrefix("mary edited \"Groceries\""))
        // One's own edits from another device are no news.
        frontEnd.storeChanged(LiveSync.Update(arrivals: [Arrival(kind: .edited, postID: post.id, title: "x", by: "_jermaine")]))
        #expect(!frontEnd.frame(width: 80, height: 24).text.contains("edited 'x'"))
    }

    @Test func theSelectionFollowsItsPostWhenOthersEditsReorderTheList() throws {
        let fixture = try Fixture()
        try fixture.post("A", minute: 1)
        var b = try fixture.post("B", minute: 2)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("j"))  // A
        _ = frontEnd.frame(width: 80, height: 24)
        b.content = "moved up"
        try fixture.store.save(b, by: "_mary", now: Fixture.moment.addingTimeInterval(99_999))
        frontEnd.storeChanged()
        let screen = frontEnd.frame(width: 80, height: 24)
        #expect(frontEnd.state.selection == 1)
        #expect(screen.lines[2].contains(" A "))
    }

    @Test func coloursDegradeAndSwitchOff() {
        #expect(ColorMode.choose(environment: ["NO_COLOR": "1", "TERM": "xterm-256color"], terminalColors: 256) == .monochrome)
        #expect(ColorMode.choose(environment: ["TERM": "dumb"], terminalColors: 256) == .monochrome)
        #expect(ColorMode.choose(environment: ["TERM": "xterm-256color"], terminalColors: 256) == .full)
        #expect(ColorMode.choose(environment: ["TERM": "xterm"], terminalColors: 8) == .sixteen)
        #expect(ColorMode.choose(environment: ["TERM": "vt100"], terminalColors: 0) == .monochrome)
    }

    @Test func anExternalEditReadsTheFileBackWithoutDroppingText() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("E"))
        let post = try #require(frontEnd.externalEdit)
        #expect(ExternalForm.text(of: post).hasPrefix("Title: Groceries\nTags: \nLocation: \n\nmilk"))
        frontEnd.finishExternalEdit("Title: Shopping\nTags: home\nMood: good\n\nmilk\neggs\n")
        let saved = try fixture.store.posts()[0]
        #expect(saved.title == "Shopping" && saved.tags == ["home"])
        #expect(saved.content == "Mood: good\nmilk\neggs")  // an unknown header is kept as text
    }

    /// The file ends in a newline: written back unchanged it gives the same text (a last line break included),
    /// and a line a tool appends is a line of its own.
    @Test func theEditorsFileEndsInANewlineAndReadsBackExactly() throws {
        for content in ["line one", "line one\n", "", "a\n\nb"] {
            var post = Post(id: "p", zone: ZoneID(name: "Notes"), title: "T", content: content)
            post.tags = ["x"]
            let file = ExternalForm.text(of: post)
            #expect(file.hasSuffix("\n"))
            #expect(ExternalForm.parse(file, into: post).content.text == content, "\(content.debugDescription)")
        }
        let post = Post(id: "p", zone: ZoneID(name: "Notes"), title: "T", content: "line one")
        #expect(ExternalForm.parse(ExternalForm.text(of: post) + "appended by editor\n", into: post).content.text == "line one\nappended by editor")
    }
}

@Suite struct SyncNoticeTests {
    /// `S` and `r` say how the round after them went, once.
    @Test func sendAndRefreshReportHowTheRoundWent() throws {
        let fixture = try Fixture()
        let sync = StandInSync()
        let frontEnd = fixture.frontEnd(sync: sync)
        _ = frontEnd.frame(width: 100, height: 24)
        try fixture.post("Groceries", minute: 1)
        let waiting = try fixture.store.pendingCount()
        frontEnd.press(.char("S"))
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("sending \(waiting) waiting changes…"))
        sync.current = .offline(waiting: 1, retryAt: frontEnd.context.now().addingTimeInterval(5))
        frontEnd.storeChanged(LiveSync.Update(error: "network unavailable: the cloud cannot be reached", started: 1))
        let failed = frontEnd.frame(width: 100, height: 24).text
        #expect(failed.contains("not sent: network unavailable: the cloud cannot be reached (offline · 1 waiting · retrying in 5 s)"), "\(failed)")
        frontEnd.state.flash = nil
        frontEnd.storeChanged(LiveSync.Update(started: 2))  // a later round says nothing more of it
        #expect(!frontEnd.frame(width: 100, height: 24).text.contains("sent"))

        frontEnd.press(.char("r"))
        frontEnd.storeChanged(LiveSync.Update(started: 3))
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("fetched: nothing new"))
    }

    @Test func aSyncErrorFlashesOnceNotOnEveryRetry() throws {
        let fixture = try Fixture()
        let sync = StandInSync()
        let frontEnd = fixture.frontEnd(sync: sync)
        _ = frontEnd.frame(width: 80, height: 24)
        sync.current = .offline(waiting: 1, retryAt: nil)
        frontEnd.storeChanged(LiveSync.Update(error: "network unavailable"))
        #expect(frontEnd.frame(width: 80, height: 24).lines[22].hasPrefix("sync: network unavailable"))
        frontEnd.state.flash = nil
        frontEnd.storeChanged(LiveSync.Update(error: "network unavailable"))  // the retry fails too
        let screen = frontEnd.frame(width: 80, height: 24)
        #expect(!screen.text.contains("sync: network unavailable"))
        #expect(screen.lines[0].hasSuffix("offline · 1 waiting "))
    }
}
