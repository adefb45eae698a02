import Foundation
@testable import FrontEnd
import Notes
import Testing

/// Small terminals: the editor takes the width the list leaves it none of, a dialog stays inside its box with its
/// buttons showing, the buttons take the mouse, and letters that build one character (Indic scripts) all draw.
@Suite struct SmallScreenTests {
    @Test func theEditorTakesTheWholeWidthBelowSixtyColumns() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 50, height: 20)
        frontEnd.press(.char("e"))  // the cursor in the text
        frontEnd.type(" and eggs")
        let screen = frontEnd.frame(width: 50, height: 20)
        #expect(screen.lines[1].hasPrefix("┌─ ▸ Editing") && screen.lines[1].hasSuffix("┐"), "over the list, which takes the width")
        #expect(screen.lines[2].hasPrefix("│ Title:    Groceries"), "\(screen.text)")
        #expect(screen.lines[6].hasPrefix("│ milk and eggs"))
        #expect(screen.cursor == Grid.Point(x: 2 + "milk and eggs".count, y: 6))
        // The text wraps at the editor's width (46 inside its border), not at what the list leaves.
        frontEnd.type(String(repeating: " word", count: 10))
        let wrapped = frontEnd.frame(width: 50, height: 20)
        #expect(wrapped.lines[6] == "│ milk and eggs word word word word word word wo │", "\(wrapped.text)")
        #expect(wrapped.lines[7].hasPrefix("│ rd word word word  "))
        frontEnd.press(.escape)
        let asked = frontEnd.frame(width: 50, height: 20).text
        #expect(asked.contains("Leave without saving?") && asked.contains("[ Discard ]"), "\(asked)")
    }

    @Test(arguments: [(20, 6), (24, 8), (80, 24)]) func aConfirmationFitsItsBoxWithItsButtons(width: Int, height: Int) throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: width, height: height)
        frontEnd.press(.char("d"))
        let screen = frontEnd.frame(width: width, height: height)
        let top = try #require(screen.lines.firstIndex { $0.contains("Confirm") }, "\(screen.text)")
        let cells = screen.lines.map(Array.init)
        let left = try #require(cells[top].lastIndex(of: "┌")), right = try #require(cells[top].firstIndex(of: "┐"))
        let bottom = try #require(cells.indices.first { $0 > top && cells[$0][left] == "└" })
        for y in (top + 1)..<bottom {
            #expect(cells[y][left] == "│" && cells[y][right] == "│", "row \(y) spills over the border:\n\(screen.text)")
        }
        #expect(screen.text.contains("Cancel") && screen.text.contains("Delete"), "\(screen.text)")
        #expect(cells[top + 1].contains("D") && screen.text.contains("Delete"), "the question begins")
    }

    @Test func aDialogsButtonsTakeTheMouse() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", "milk", minute: 1)
        try fixture.post("Trip", "tickets", minute: 2)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        func press(_ label: String) throws {
            let screen = frontEnd.frame(width: 80, height: 24)
            let y = try #require(screen.lines.firstIndex { $0.contains("[ \(label) ]") }, "\(screen.text)")
            let x = try #require(screen.lines[y].range(of: "[ \(label) ]")).lowerBound
            frontEnd.press(.mouse(Mouse(.press, x: screen.lines[y].distance(from: screen.lines[y].startIndex, to: x) + 2, y: y)))
        }
        frontEnd.press(.char("d"))
        try press("Cancel")
        #expect(try frontEnd.state.mode == .browse && fixture.store.postCount() == 2)
        frontEnd.press(.char("d"))
        try press("Delete")
        #expect(try frontEnd.state.mode == .browse && fixture.store.postCount() == 1)
        // The wheel moves through a dialog's list.
        frontEnd.press(.char("f"))
        guard case .pickFilter(let before) = frontEnd.state.mode else { Issue.record("no filter picker"); return }
        frontEnd.press(.mouse(Mouse(.wheelDown, x: 40, y: 12)))
        guard case .pickFilter(let after) = frontEnd.state.mode else { Issue.record("the wheel closed the picker"); return }
        #expect(after.selection == before.selection + 1)
    }

    @Test func everyLetterOfAnIndicWordDraws() {
        #expect(Character("स्ते").columns == 2, "two letters, as a terminal draws them")
        #expect("नमस्ते".columns == 4 && "हिन्दी".columns == 5, "a vowel sign that spaces takes its own column, as glibc says")
        #expect(Character("👩‍👩‍👧").columns == 2 && Character("é").columns == 1 && Character("한").columns == 2)
        var grid = Grid(width: 10, height: 1)
        #expect(grid.put("नमस्ते!", x: 0, y: 0) == 5)
        #expect(grid.lines[0] == "नमस्ते!     ")
        #expect((0..<5).map { grid[$0, 0].text } == ["न", "म", "स्", "ते", "!"], "each cell a letter with its marks")
    }
}
