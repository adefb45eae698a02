@testable import FrontEnd
import Testing

/// Escape sequences the terminal library did not know come as an escape and characters: read whole, as the key
/// they name or as nothing, never as Esc and then commands.
@Suite struct KeyDecoderTests {
    private func keys(_ text: String) -> [Key] { KeyDecoder.keys(text.unicodeScalars.map { .character($0.value) }) }

    @Test(arguments: [
        ("\u{1B}[4~", Key.end), ("\u{1B}[1~", .home), ("\u{1B}[F", .end), ("\u{1B}[H", .home), ("\u{1B}OF", .end),
        ("\u{1B}[3~", .delete), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}[A", .up), ("\u{1B}OD", .left), ("\u{1B}[Z", .backTab),
    ])
    func knownSequencesAreTheirKeys(_ text: String, _ key: Key) {
        #expect(keys(text) == [key])
    }

    @Test func unknownSequencesAndAltKeysAreDropped() {
        #expect(keys("\u{1B}[15~") == [], "F5")
        #expect(keys("\u{1B}[1;5C") == [], "Ctrl-Right")
        #expect(keys("\u{1B}OP") == [], "F1")
        #expect(keys("\u{1B}x") == [], "Alt-x")
        #expect(keys("\u{1B}a") == [], "Alt-a: no post begun")
        // What follows a sequence is read as it is.
        #expect(keys("\u{1B}[4~lid!)") == [.end, .char("l"), .char("i"), .char("d"), .char("!"), .char(")")])
    }

    @Test func anEscapeAloneIsEscape() {
        #expect(keys("\u{1B}") == [.escape])
        #expect(keys("\u{1B}\u{1B}") == [.escape, .escape])
        #expect(KeyDecoder.keys([.character(27), .key(.up)]) == [.escape, .up])
        #expect(keys("a\u{1B}") == [.char("a"), .escape])
    }

    @Test func controlCharactersAreWhatTheyStandFor() {
        #expect(keys("\t\r\u{7F}\u{13}") == [.tab, .enter, .backspace, .ctrl("s")])
    }
}
