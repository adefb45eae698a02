import Foundation
@testable import FrontEnd
import Notes
import Testing

/// The mouse: presses select and focus, the wheel scrolls, the footer's keys run; xterm's reports decoded.
@Suite struct MouseTests {
    @Test func aPressSelectsARowAndFocusesItsPane() throws {
        let fixture = try Fixture()
        for i in 0..<30 { try fixture.post("Post \(i)", "text \(i)", minute: i) }
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 24)
        frontEnd.press(.mouse(Mouse(.press, x: 5, y: 4)))  // the list's third row (its border is row 1)
        #expect(frontEnd.state.selection == 2 && frontEnd.state.focus == .list)
        frontEnd.press(.mouse(Mouse(.press, x: 70, y: 5)))
        #expect(frontEnd.state.focus == .detail && frontEnd.state.selection == 2)
        frontEnd.press(.mouse(Mouse(.press, x: 5, y: 21)))  // the lower border: focus, and no row
        #expect(frontEnd.state.focus == .list && frontEnd.state.selection == 2)
        frontEnd.press(.mouse(Mouse(.wheelDown, x: 5, y: 10)), .mouse(Mouse(.wheelDown, x: 5, y: 10)))
        #expect(frontEnd.state.selection == 8)
        frontEnd.press(.mouse(Mouse(.wheelUp, x: 5, y: 10)))
        #expect(frontEnd.state.selection == 5)
    }

    @Test func aPressOnAFooterKeyRunsIt() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        let footer = frontEnd.frame(width: 100, height: 24).text.split(separator: "\n").last.map(String.init) ?? ""
        let help = try #require(footer.range(of: "? help"))
        frontEnd.press(.mouse(Mouse(.press, x: footer[..<help.lowerBound].count + 3, y: 23)))
        guard case .help = frontEnd.state.mode else { Issue.record("help did not open"); return }
        frontEnd.press(.mouse(Mouse(.press, x: 1, y: 23)))  // the help's footer: "j/k scroll" runs j (scrolls)
        frontEnd.press(.escape)
        // In a dialog the footer's keys are pressed as keys: "Esc cancel" in the editor leaves it.
        frontEnd.press(.char("e"))
        let editing = frontEnd.frame(width: 100, height: 24).text.split(separator: "\n").last.map(String.init) ?? ""
        let leave = try #require(editing.range(of: "Esc leave"))
        frontEnd.press(.mouse(Mouse(.press, x: editing[..<leave.lowerBound].count, y: 23)))
        #expect(frontEnd.state.mode == .browse)
    }

    @Test func xtermMouseReportsAreDecodedWhereTheLibraryDidNot() {
        func raw(_ text: String) -> [KeyDecoder.Raw] { text.unicodeScalars.map { .character($0.value) } }
        #expect(KeyDecoder.keys(raw("\u{1B}[<0;6;4M")) == [.mouse(Mouse(.press, x: 5, y: 3))])
        #expect(KeyDecoder.keys(raw("\u{1B}[<0;6;4m")) == [])  // a release
        #expect(KeyDecoder.keys(raw("\u{1B}[<64;1;1M\u{1B}[<65;1;1Mj")) == [.mouse(Mouse(.wheelUp, x: 0, y: 0)), .mouse(Mouse(.wheelDown, x: 0, y: 0)), .char("j")])
        #expect(KeyDecoder.keys(raw("\u{1B}[<35;9;9M")) == [])  // a move
    }
}
