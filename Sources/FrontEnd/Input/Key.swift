/// A key press as the front end understands it, whatever the backend read.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    case char(Character)
    case ctrl(Character)
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete
    case resize

    public var description: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .ctrl(let c): "^" + String(c).uppercased()
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .backspace: "Bksp"
        case .delete: "Del"
        case .resize: "resize"
        }
    }
}
