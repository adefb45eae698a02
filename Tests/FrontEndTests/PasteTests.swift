@testable import FrontEnd
import Testing

/// A bracketed paste is one key holding its text: tabs and newlines in it are text for the field being edited,
/// not keys that move between fields or save; it is one step to undo; it may arrive across several reads.
@Suite struct PasteTests {
    private func raw(_ text: String) -> [KeyDecoder.Raw] { text.unicodeScalars.map { .character($0.value) } }

    @Test func aPasteIsOneKeyWithItsLineEndsAsNewlines() {
        #expect(KeyDecoder.keys(raw("a\u{1B}[200~col1\tcol2\r\nrow2\rrow3\u{1B}[201~b"))
            == [.char("a"), .paste("col1\tcol2\nrow2\nrow3"), .char("b")])
        // Other controls and escapes inside it are not text.
        #expect(KeyDecoder.keys(raw("\u{1B}[200~x\u{7}\u{1B}[31my\u{1B}[201~")) == [.paste("x[31my")])
    }

    @Test func aPasteMayArriveAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(raw("\u{1B}[200~first\t")) == [])
        #expect(decoder.isPasting)
        #expect(decoder.decode(raw("second\u{1B}[20")) == [], "its end cut by the read")
        #expect(decoder.decode(raw("1~j")) == [.paste("first\tsecond"), .char("j")])
        #expect(!decoder.isPasting)
        // An end that never comes: what came is the paste, and keys are keys again.
        #expect(decoder.decode(raw("\u{1B}[200~half")) == [])
        #expect(decoder.endPaste() == [.paste("half")])
        #expect(decoder.decode(raw("q")) == [.char("q")])
    }

    @Test func aPastedTableLandsInTheTextAndUndoesAtOnce() throws {
        let fixture = try Fixture()
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 80, height: 24)
        frontEnd.press(.char("a"))
        frontEnd.type("Table")
        frontEnd.press(.tab, .tab, .tab)  // tags, location, the text
        frontEnd.type("Head")
        frontEnd.press(.enter)
        for key in KeyDecoder.keys(raw("\u{1B}[200~col1\tcol2\tcol3\r\nrow2\tb\tc\u{1B}[201~")) { frontEnd.handle(key) }
        guard case .edit(var form) = frontEnd.state.mode else { Issue.record("the paste left the editor"); return }
        #expect(form.edited.title == "Table")
        #expect(form.edited.tags.isEmpty && form.edited.location == nil)
        #expect(form.edited.content == "Head\ncol1\tcol2\tcol3\nrow2\tb\tc")
        #expect(form[.content].cursor == .init(line: 2, column: 8), "the cursor after what was pasted")
        frontEnd.press(.ctrl("z"))
        guard case .edit(let undone) = frontEnd.state.mode else { Issue.record("undo left the editor"); return }
        #expect(undone.edited.content == "Head\n", "one undo takes the whole paste back")
        // Into a one-line field, the paste's tabs and lines are spaces.
        form = undone
        form.field = .title
        frontEnd.state.mode = .edit(form)
        frontEnd.handle(.paste(" of\tthe\nweek"))
        guard case .edit(let titled) = frontEnd.state.mode else { Issue.record("the paste left the editor"); return }
        #expect(titled.edited.title == "Table of the week")
    }

    @Test func aPasteInTheMiddleOfALineSplicesIn() {
        var editor = TextEditor(text: "ab")
        editor.moveLeft()
        editor.insert(pasted: "1\n2\n3")
        #expect(editor.text == "a1\n2\n3b")
        #expect(editor.cursor == .init(line: 2, column: 1))
    }
}
