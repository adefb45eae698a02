/// A key press as the front end understands it, whatever the backend read.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    case char(Character)
    case ctrl(Character)
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete
    case resize
    case mouse(Mouse)
    /// Text the terminal pasted whole (bracketed paste): line ends as "\n", tabs kept, no other controls.
    case paste(String)

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
        case .mouse: "mouse"
        case .paste: "paste"
        }
    }
}

/// A mouse press or a turn of the wheel, at a cell (0-based).
public struct Mouse: Hashable, Sendable {
    public enum Action: Hashable, Sendable { case press, wheelUp, wheelDown }
    public var action: Action
    public var x: Int
    public var y: Int

    public init(_ action: Action, x: Int, y: Int) {
        self.action = action
        self.x = x
        self.y = y
    }
}
