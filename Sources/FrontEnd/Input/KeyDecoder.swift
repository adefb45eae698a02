/// Turns what the terminal library read, in one batch, into keys. Escape sequences it did not know (End as
/// `ESC [4~` where terminfo says otherwise, a function key, Alt with a letter) arrive as an escape and then
/// ordinary characters: read as they came, the escape would close an editor and the rest would act as
/// commands (`[`, `4`, `~`; an Alt-a beginning a post). Here a sequence that follows an escape at once is
/// read whole: as the key it names where it is a known one, else dropped. An escape alone is Esc.
public enum KeyDecoder {
    /// One thing read: a key the library recognised, or a character.
    public enum Raw: Equatable, Sendable {
        case key(Key)
        case character(UInt32)
    }

    public static func keys(_ raw: [Raw]) -> [Key] {
        var keys: [Key] = []
        var at = 0
        while at < raw.count {
            defer { at += 1 }
            switch raw[at] {
            case .key(let key): keys.append(key)
            case .character(27):
                guard at + 1 < raw.count, case .character(let next) = raw[at + 1], next != 27 else {
                    keys.append(.escape)
                    continue
                }
                let (key, length) = sequence(after: at, in: raw)
                if let key { keys.append(key) }
                at += length
            case .character(let value):
                if let key = character(value) { keys.append(key) }
            }
        }
        return keys
    }

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
