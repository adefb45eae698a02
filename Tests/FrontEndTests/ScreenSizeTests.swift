import Foundation
@testable import FrontEnd
import Notes
import Testing

/// The screens people meet, drawn at 80×24 and at 200×60: help, the footer of each pane and mode, the filtered
/// list, the palette's candidates.
@Suite struct ScreenSizeTests {
    static let sizes = [(80, 24), (200, 60)]

    func fixture() throws -> Fixture {
        let fixture = try Fixture()
        try fixture.post("Phở in Hà Nội", "breakfast", minute: 1, tags: ["food"])
        try fixture.post("Groceries", "milk", minute: 2)
        try fixture.post("Trip plan", "Đà Nẵng", minute: 3)
        return fixture
    }

    func footer(_ frontEnd: FrontEnd, _ width: Int, _ height: Int) -> String {
        frontEnd.frame(width: width, height: height).lines[height - 1]
    }

    @Test(arguments: sizes) func helpFillsTheScreenInGroups(width: Int, height: Int) throws {
        let fixture = try fixture(), frontEnd = fixture.frontEnd()  // the fixture kept: its directory holds the store
        frontEnd.press(.char("?"))
        let lines = frontEnd.frame(width: width, height: height).lines
        #expect(lines[1].hasPrefix("┌─ ▸ Keys") && lines[1].hasSuffix("┐"), "as wide as the screen: \(lines[1])")
        #expect(lines[2].contains("Everywhere in the browser") && lines[height - 2].hasPrefix("└"))
        #expect(footer(frontEnd, width, height).hasPrefix("j/k scroll  g/G top/end  / find  Esc close"))
    }

    @Test(arguments: sizes) func theFooterFollowsThePaneAndTheMode(width: Int, height: Int) throws {
        let fixture = try fixture(), frontEnd = fixture.frontEnd()  // the fixture kept: its directory holds the store
        #expect(footer(frontEnd, width, height).hasPrefix("e edit  a new  d delete"))
        #expect(footer(frontEnd, width, height).hasSuffix("? help" + String(repeating: " ", count: footer(frontEnd, width, height).count
                                                                           - footer(frontEnd, width, height).trimmingCharacters(in: .whitespaces).count)))
        frontEnd.press(.tab)
        #expect(footer(frontEnd, width, height).hasPrefix("j/k scroll  Esc list  e edit"))
        frontEnd.press(.escape, .char("e"))
        #expect(footer(frontEnd, width, height).hasPrefix("^S save  Esc leave  Tab next field"))
        frontEnd.press(.escape, .char("/"))
        #expect(footer(frontEnd, width, height).hasPrefix("Enter keep the filter  Esc clear it"))
        frontEnd.press(.escape, .char("f"))
        #expect(footer(frontEnd, width, height).hasPrefix("j/k choose  Enter turn on or off  Esc cancel"))
        frontEnd.press(.escape)
        // Where the width allows, the keys beyond the registry's footer ones, most useful first.
        let wide = footer(frontEnd, width, height)
        #expect(wide.contains(": command") == (width == 200) && wide.contains("f filter") == (width == 200), "\(wide)")
        #expect(!wide.contains("L leave") && !wide.contains("X stop sharing"), "keys that do not work here now stay out")
    }

    @Test(arguments: sizes) func theFilteredListSaysHowManyOfHowMany(width: Int, height: Int) throws {
        let fixture = try fixture(), frontEnd = fixture.frontEnd()  // the fixture kept: its directory holds the store
        frontEnd.press(.char("/"))
        frontEnd.type("ha noi")
        let screen = frontEnd.frame(width: width, height: height)
        #expect(screen.lines[1].contains("▸ Posts (1 of 3) · /ha noi"))
        #expect(screen.lines[2].contains("Phở in Hà Nội") && !screen.text.contains("Groceries"))
        #expect(screen.lines[height - 2].hasPrefix("/ha noi"))
        frontEnd.press(.enter)
        frontEnd.runCommandLine("filter tag:food")
        // As much of the title as the list's width holds.
        let title = "Posts (1 of 3) · tag food · /ha noi"
        let shown = frontEnd.frame(width: width, height: height).lines[1]
        #expect(width == 200 ? shown.contains(title) : shown.contains(title.prefix(18)), "\(shown)")
    }

    @Test(arguments: sizes) func thePalettesCandidatesTakeTheFootersPlace(width: Int, height: Int) throws {
        let fixture = try fixture(), frontEnd = fixture.frontEnd()  // the fixture kept: its directory holds the store
        frontEnd.press(.char(":"))
        frontEnd.type("re")
        let line = footer(frontEnd, width, height)
        #expect(line.hasPrefix("Tab: refresh  remove-participant  reupload"), "\(line)")
        #expect(frontEnd.frame(width: width, height: height).lines[height - 2].hasPrefix(":re"))
    }

    @Test func aTerminalTooSmallSaysWhatItNeeds() throws {
        let fixture = try fixture(), frontEnd = fixture.frontEnd()  // the fixture kept: its directory holds the store
        let text = frontEnd.frame(width: 19, height: 12).lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(text.contains("at least 20×6") && text.contains("19×12") && text.contains("press q"), "\(text)")
        frontEnd.press(.char("q"))
        #expect(frontEnd.state.quit)
    }
}
