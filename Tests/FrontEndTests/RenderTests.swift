import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing

/// Screens drawn for given states, compared as text (gitui's and tig's way).
@Suite struct RenderTests {
    @Test func anEightyByTwentyFourScreenShowsListDetailStatusAndKeys() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk\neggs", minute: 1, tags: ["home"])
        try fixture.post("Trip to Hà Nội", "pho at 8", minute: 2)
        let screen = fixture.frontEnd().frame(width: 80, height: 24)
        #expect(screen.text == """
             CloudNotes · jermaine on laptop                                       ● synced
            ┌─ ▸ Posts (2) ────────────────┐┌─ Post ───────────────────────────────────────┐
            │    ↑ Trip to Hà Nội       58m││ Trip to Hà Nội                               │
            │    ↑ Groceries            59m││ Notebook  Notes (jermaine)                   │
            │                              ││ Created   2026-11-18 11:08 by jermaine       │
            │                              ││ Modified  2026-11-18 11:08 by jermaine       │
            │                              ││                                              │
            │                              ││ pho at 8                                     │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            │                              ││                                              │
            └──────────────────────────────┘└──────────────────────────────────────────────┘

            e edit  a new  d delete  c comment  s share  / search  Tab pane  ? help
            """)
    }

    @Test func aSharedPostIsMarkedAndShowsItsParticipants() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        let demo = try fixture.post("Sharing demo is great", "hello", minute: 2)
        fixture.sharing.shares[demo.id] = Fixture.share(of: demo)
        let screen = fixture.frontEnd().frame(width: 100, height: 30)
        let lines = screen.lines
        #expect(lines[2].contains("│ »  ↑ Sharing demo is…    58m  Notes"))
        #expect(lines[3].contains("│    ↑ Groceries           59m  Notes"))
        let pane = lines.drop { !$0.contains("Participants") }
        #expect(pane.first?.contains("┌─ Participants ─") == true)
        let rows = pane.dropFirst().map { $0.replacingOccurrences(of: " +", with: " ", options: .regularExpression) }
        #expect(rows[0].contains("NAME ROLE PERMISSION STATUS"))
        #expect(rows[1].contains("jermaine owner read-write accepted"))
        #expect(rows[2].contains("heather private user read-write accepted"))
        #expect(rows[3].contains("mary private user read-write pending"))
        #expect(screen.text.contains("Sharing   shared with 2 people"))
    }

    @Test func anUnsharedPostHasNoParticipantsPane() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        let text = fixture.frontEnd().frame(width: 100, height: 30).text
        #expect(!text.contains("Participants"))
        #expect(!text.contains("»"))
    }

    @Test func aReadOnlyPostShowsEditAndDeleteDisabledAndRefusesThemWithTheReason() throws {
        let fixture = try Fixture()
        let post = try fixture.post("Heather's list", "tea", minute: 1, scope: .shared, by: "_heather")
        fixture.sharing.readOnly[post.id] = "read-only: shared by heather"
        fixture.sharing.shares[post.id] = Fixture.share(of: post, heather: .readOnly)
        let frontEnd = fixture.frontEnd()
        let screen = frontEnd.frame(width: 100, height: 30)
        #expect(screen.lines[2].contains("│ «⊘ ↑ Heather's list      59m  Notes …"))
        #expect(screen.text.contains("read-only: shared by heather"))
        let footer = screen.height - 1
        let roles = Dictionary((0..<screen.width).map { (screen[$0, footer].text, screen[$0, footer].role) }, uniquingKeysWith: { a, _ in a })
        #expect(screen.lines[footer].hasPrefix("e edit  a new  d delete  c comment"))
        #expect(screen[0, footer].role == .disabledKey)  // e
        #expect(screen[2, footer].role == .disabledKey)  // edit
        #expect(screen[8, footer].role == .key)  // a (new) stays enabled
        #expect(roles["d"] != nil)

        frontEnd.press(.char("e"))
        let refused = frontEnd.frame(width: 100, height: 30)
        #expect(frontEnd.state.mode == .browse)  // the editor never opens
        #expect(refused.lines[refused.height - 2].hasPrefix("read-only: shared by heather"))
        frontEnd.press(.char("d"))
        #expect(frontEnd.state.mode == .browse)
        frontEnd.press(.char("E"))
        #expect(frontEnd.externalEdit == nil)
        #expect(try fixture.store.posts().map(\.content) == ["tea"])
    }

    @Test func wideCharactersAreMeasuredPerGrapheme() throws {
        #expect("abc".columns == 3)
        #expect("日本語".columns == 6)
        #expect("🎉".columns == 2)
        #expect("👩‍👩‍👧".columns == 2)  // one cluster joined by ZWJ
        #expect("❤️".columns == 2)  // VS16 asks for emoji presentation
        #expect("e\u{301}".columns == 1)  // a combining accent adds nothing
        #expect("日本語のタイトル".truncated(to: 7) == "日本語…")

        let fixture = try Fixture()
        try fixture.post("plain title", minute: 1)
        try fixture.post("日本語のタイトル 🎉 👩‍👩‍👧 and more words than fit", minute: 2)
        let screen = fixture.frontEnd().frame(width: 80, height: 24)
        for line in screen.lines { #expect(line.columns == 80) }
        // The age column lines up whatever the title's script.
        let wide = screen.lines[2], plain = screen.lines[3]
        #expect(wide.columns == plain.columns)
        #expect(wide.hasPrefix("│    ↑ 日本語のタイトル"))
        let wideList = wide.components(separatedBy: "││")[0], plainList = plain.components(separatedBy: "││")[0]
        #expect(wideList.contains("…") && wideList.hasSuffix("58m") && plainList.hasSuffix("59m"))
        #expect(wideList.columns == plainList.columns)
    }

    @Test func aLargeScreenGivesTheListTwoFifthsAndFillsEveryLine() throws {
        let fixture = try Fixture()
        for i in 0..<100 { try fixture.post("Post \(i)", minute: i) }
        let screen = fixture.frontEnd().frame(width: 200, height: 60)
        let lines = screen.lines
        #expect(lines.count == 60)
        #expect(lines[1].hasPrefix("┌─ ▸ Posts (100) ─"))
        #expect(Array(lines[1])[79] == "┐" && Array(lines[1])[80] == "┌")
        #expect(lines[2].contains("Post 99") && lines[56].contains("Post 45"))  // 55 rows shown, newest first
        #expect(!screen.text.contains("Post 44"))
        #expect(lines[57].hasPrefix("└"))
        // At 200 columns the footer adds the keys that work now beyond its own, and still ends with help.
        #expect(lines[59].hasSuffix(" ") && lines[59].contains("r refresh  q quit  :"), "\(lines[59])")
        #expect(lines[59].contains("f filter") && lines[59].contains("E $EDITOR") && lines[59].contains("? help"), "\(lines[59])")
        #expect(!lines[59].contains("L leave"), "leaving is for a share's participant")
        let narrow = fixture.frontEnd().frame(width: 80, height: 24).lines[23]
        #expect(narrow.contains("Tab pane  ? help") && !narrow.contains("notebook"), "the extras give way first: \(narrow)")
    }

    /// The participants' columns are as wide as what they hold: no gulf after the names on a wide screen, and
    /// on a narrow one the names give way first.
    @Test func participantColumnsFitTheirContent() {
        let header = ["NAME", "ROLE", "PERMISSION", "STATUS"]
        let rows = [["jermaine", "owner", "read-write", "accepted"], ["heather", "private user", "read-only", "pending"]]
        #expect(Renderer.participantColumns(header: header, rows: rows, width: 160) == [8, 12, 10, 8])
        #expect(Renderer.participantColumns(header: header, rows: rows, width: 40) == [4, 12, 10, 8], "the names give way")
        let long = rows + [["Nguyễn Thị Minh Khai of the long name", "private user", "read-only", "accepted"]]
        #expect(Renderer.participantColumns(header: header, rows: long, width: 60)[0] == 60 - 36)
    }

    /// The focused pane's title is marked, so focus shows on a terminal without colour.
    @Test func focusIsMarkedInThePaneTitle() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        let frontEnd = fixture.frontEnd()
        #expect(frontEnd.frame(width: 80, height: 24).lines[1].hasPrefix("┌─ ▸ Posts (1) ─"))
        frontEnd.press(.tab)
        let line = frontEnd.frame(width: 80, height: 24).lines[1]
        #expect(line.hasPrefix("┌─ Posts (1) ─") && line.contains("┌─ ▸ Post ─"), "\(line)")
    }

    /// A participant's post: at 200 columns the footer offers `L`, the key they need to leave.
    @Test func aParticipantsFooterOffersLeave() throws {
        let fixture = try Fixture()
        try fixture.post("Theirs", minute: 1, scope: .shared, owner: "_heather", by: "_heather")
        let footer = fixture.frontEnd().frame(width: 200, height: 30).lines[29]
        #expect(footer.contains("L leave") && footer.contains("? help"), "\(footer)")
    }

    @Test func tinyTerminalsGetAMessageNotACrash() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        #expect(fixture.frontEnd().frame(width: 10, height: 3).text.contains("CloudNotes"))
        _ = fixture.frontEnd().frame(width: 20, height: 6)
        _ = fixture.frontEnd().frame(width: 0, height: 0)
    }

    @Test(arguments: [(80, 24), (200, 60)]) func theSyncStatusLineSaysSendingOfflineAndError(width: Int, height: Int) throws {
        let fixture = try Fixture()
        let sync = StandInSync()
        let frontEnd = fixture.frontEnd(sync: sync)
        #expect(frontEnd.frame(width: width, height: height).lines[0].hasSuffix("● synced "))
        sync.current = .sending(3)
        frontEnd.tick()
        #expect(frontEnd.frame(width: width, height: height).lines[0].hasSuffix("↑ sending 3 "))
        sync.current = .offline(waiting: 2, retryAt: nil)
        frontEnd.tick()
        #expect(frontEnd.frame(width: width, height: height).lines[0].hasSuffix("offline · 2 waiting "))
        sync.current = .offline(waiting: 2, retryAt: frontEnd.context.now().addingTimeInterval(4.5))
        frontEnd.tick()
        #expect(frontEnd.frame(width: width, height: height).lines[0].hasSuffix("offline · 2 waiting · retrying in 5 s "))
        sync.current = .busy(waiting: 1, retryAt: frontEnd.context.now().addingTimeInterval(-1))
        frontEnd.tick()
        #expect(frontEnd.frame(width: width, height: height).lines[0].hasSuffix("the cloud is busy · 1 waiting · retrying now "))
        sync.current = .error("quota exceeded")
        frontEnd.tick()
        let screen = frontEnd.frame(width: width, height: height)
        #expect(screen.lines[0].hasSuffix("error: quota exceeded "))
        #expect(screen[width - 10, 0].role == .error)
    }
}
