/// Turns what the terminal library read, in one batch, into keys. Escape sequences it did not know (End as
/// `ESC [4~` where terminfo says otherwise, a function key, Alt with a letter) arrive as an escape and then
/// ordinary characters: read as they came, the escape would close an editor and the rest would act as
/// commands (`[`, `4`, `~`; an Alt-a beginning a post). Here a sequence that follows an escape at once is
/// read whole: as the key it names where it is a known one, else dropped. An escape alone is Esc.
///
/// A bracketed paste (`ESC [200~` … `ESC [201~`, asked for with `ESC [?2004h`) is one key, `.paste`, holding
/// the text: pasted tabs and newlines are text, not keys that move between fields. A paste may end in a
/// later batch, so the decoder keeps its state between them.
public struct KeyDecoder: Sendable {
    /// One thing read: a key the library recognised, or a character.
    public enum Raw: Equatable, Sendable {
        case key(Key)
        case character(UInt32)
    }

    /// The text of a paste begun and not yet ended (nil outside a paste).
    private var pasted: String.UnicodeScalarView?
    /// The start of what may be a paste's end, read at the end of a batch.
    private var carried: [Raw] = []

    public init() {}

    /// Keys of one batch read with no state before it (a paste must end in the same batch).
    public static func keys(_ raw: [Raw]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(raw) + decoder.endPaste()
    }

    /// Whether a paste has begun and not yet ended: the reader waits a moment for the rest.
    public var isPasting: Bool { pasted != nil }

    /// A paste whose end never came (the terminal stopped sending): what arrived, so nothing stays stuck.
    public mutating func endPaste() -> [Key] {
        guard let text = pasted else { return [] }
        pasted = nil
        carried = []  // the start of an end that never came whole
        return [.paste(Self.pasteText(String(text)))]
    }

    public mutating func decode(_ batch: [Raw]) -> [Key] {
        let raw = carried + batch
        carried = []
        var keys: [Key] = []
        var at = 0
        while at < raw.count {
            if pasted != nil {
                at = paste(raw, from: at, into: &keys)
                continue
            }
            defer { at += 1 }
            switch raw[at] {
            case .key(let key): keys.append(key)
            case .character(27):
                guard at + 1 < raw.count, case .character(let next) = raw[at + 1], next != 27 else {
                    keys.append(.escape)
                    continue
                }
                let (key, length) = Self.sequence(after: at, in: raw)
                if key == Self.pasteStart {
                    pasted = String.UnicodeScalarView()
                } else if let key {
                    keys.append(key)
                }
                at += length
            case .character(let value):
                if let key = Self.character(value) { keys.append(key) }
            }
        }
        return keys
    }

    /// Reads pasted text from `start` up to the paste's end (then `.paste` is added) or the batch's end;
    /// returns where reading stopped.
    private mutating func paste(_ raw: [Raw], from start: Int, into keys: inout [Key]) -> Int {
        var at = start
        while at < raw.count {
            switch raw[at] {
            case .character(27):
                let rest = raw[(at + 1)...]
                if rest.starts(with: Self.pasteEnd) {
                    keys.append(.paste(Self.pasteText(String(pasted ?? .init()))))
                    pasted = nil
                    return at + 1 + Self.pasteEnd.count
                }
                if Self.pasteEnd.starts(with: rest) {  // the end may be cut by the batch: read it with the next
                    carried = Array(raw[at...])
                    return raw.count
                }
                // Any other escape in pasted text is dropped: it would be invisible and could move the terminal.
            case .character(let value):
                if let scalar = Unicode.Scalar(value) { pasted?.append(scalar) }
            case .key(.enter):
                pasted?.append("\n")
            case .key(.tab):
                pasted?.append("\t")
            case .key:
                break  // a sequence the library took for a key, inside pasted text: not text
            }
            at += 1
        }
        return at
    }

    /// Pasted text as it may enter a field: line ends (CR, CRLF, LF) as newlines, tabs kept, every other
    /// control character dropped (invisible, and one could move the terminal when the text is drawn).
    static func pasteText(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar.value {
            case 13: out.append("\n")
            case 10 where previous?.value == 13: continue
            case 9, 10: out.append(scalar)
            case 0..<0x20, 0x7F..<0xA0: continue
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    private static let pasteStart = Key.paste("")  // stands for `ESC [200~` in `csi` only
    private static let pasteEnd: [Raw] = "[201~".unicodeScalars.map { .character($0.value) }

    /// The key of the sequence after the escape at `start` (nil: one to drop), and how many items it took.
    private static func sequence(after start: Int, in raw: [Raw]) -> (Key?, Int) {
        func char(_ i: Int) -> UInt32? {
            guard start + i < raw.count, case .character(let value) = raw[start + i] else { return nil }
            return value
        }
        switch char(1) {
        case UInt32(UInt8(ascii: "[")):
            // CSI: parameter and intermediate bytes, then one final byte (0x40–0x7E).
            var length = 2
            var body = ""
            while let value = char(length) {
                length += 1
                guard let scalar = Unicode.Scalar(value) else { break }
                body.unicodeScalars.append(scalar)
                if (0x40...0x7E).contains(value) { break }
            }
            return (body.hasPrefix("<") ? mouse(body) : csi[body], length - 1)
        case UInt32(UInt8(ascii: "O")):
            // SS3: one more character.
            guard let value = char(2), let scalar = Unicode.Scalar(value) else { return (nil, 1) }
            return (ss3[Character(scalar)], 2)
        default:
            return (nil, 1)  // Alt with a key: not one the front end has
        }
    }

    /// An SGR mouse report (`<button;x;y` and M for a press, m for a release), where ncurses did not take it:
    /// the first button's press and the wheel; the rest (releases, moves, other buttons) dropped.
    private static func mouse(_ body: String) -> Key? {
        let numbers = body.dropFirst().dropLast().split(separator: ";").compactMap { Int($0) }
        guard body.hasSuffix("M"), numbers.count == 3 else { return nil }
        let action: Mouse.Action? = switch numbers[0] {
        case 0: .press
        case 64: .wheelUp
        case 65: .wheelDown
        default: nil
        }
        return action.map { .mouse(Mouse($0, x: numbers[1] - 1, y: numbers[2] - 1)) }
    }

    private static let csi: [String: Key] = [
        "A": .up, "B": .down, "C": .right, "D": .left, "H": .home, "F": .end, "Z": .backTab,
        "1~": .home, "7~": .home, "4~": .end, "8~": .end, "3~": .delete, "5~": .pageUp, "6~": .pageDown,
        "200~": pasteStart,
    ]
    private static let ss3: [Character: Key] = ["A": .up, "B": .down, "C": .right, "D": .left, "H": .home, "F": .end]

    /// A character as a key: control characters as what they stand for.
    public static func character(_ value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 0: return nil
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(value) + 96)))
        case 31: return .ctrl("_")
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .char(Character(scalar))
        }
    }
}
