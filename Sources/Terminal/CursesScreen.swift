import CNcurses
import FrontEnd
import Glibc

/// The real terminal through ncurses (wide-character): sets it up, draws
/// the rows of a grid that changed, reads keys, and always restores the
/// terminal, whatever way the program leaves.
public final class CursesScreen {
    public let colors: ColorMode
    private var last: Grid?
    /// Attributes and colour pair of each role, by its raw value.
    private var attributes: [(attr_t, Int16)] = []
    private var decoder = KeyDecoder()

    /// - Parameter output: where to draw instead of the terminal (a benchmark draws to /dev/null).
    public init(environment: [String: String], output: UnsafeMutablePointer<FILE>? = nil) {
        cn_set_locale()
        if let output {
            set_term(newterm(environment["TERM"] ?? "xterm-256color", output, fopen("/dev/null", "r")))
        } else {
            initscr()
        }
        raw()  // Ctrl-C and Ctrl-S/Ctrl-Z reach us as keys
        noecho()
        nonl()
        keypad(cn_stdscr(), true)
        set_escdelay(25)
        // Clicks and the wheel; CLOUDNOTES_MOUSE=off leaves the mouse to the terminal (its own selecting).
        if !["off", "0", "no"].contains(environment["CLOUDNOTES_MOUSE"]?.lowercased() ?? "") { cn_mouse_on() }
        if has_colors() {
            start_color()
            use_default_colors()
        }
        colors = ColorMode.choose(environment: environment, terminalColors: has_colors() ? Int(cn_colors()) : 0)
        for (index, role) in Role.allCases.enumerated() {
            let look = colors.look(role)
            var attr = cn_a_normal()
            if look.bold { attr |= cn_a_bold() }
            if look.dim { attr |= cn_a_dim() }
            if look.reverse { attr |= cn_a_reverse() }
            if look.underline { attr |= cn_a_underline() }
            var pair: Int16 = 0
            if colors != .monochrome, look.foreground != -1 || look.background != -1, index + 1 < Int(cn_color_pairs()) {
                pair = Int16(index + 1)
                let limit = Int16(clamping: cn_colors())
                init_pair(pair, look.foreground < limit ? look.foreground : 7, look.background < limit ? look.background : -1)
            }
            attributes.append((attr, pair))
        }
        bracketedPaste(true)
    }

    /// Gives the terminal back (also before $EDITOR runs).
    public func end() {
        bracketedPaste(false)
        endwin()
    }

    /// Takes the terminal again after `end()`.
    public func resume() {
        refresh()
        bracketedPaste(true)
        last = nil
    }

    /// Asks the terminal to mark pasted text (`ESC [200~` … `ESC [201~`), so a paste's tabs and newlines
    /// arrive as text (see `KeyDecoder`); terminals that do not know the request ignore it.
    private func bracketedPaste(_ on: Bool) {
        cn_bracketed_paste(on ? 1 : 0)
    }

    public var size: (width: Int, height: Int) { (Int(cn_cols()), Int(cn_lines())) }

    /// Sets the screen's size where no terminal reports one (drawing to a file).
    public func resize(width: Int, height: Int) {
        resizeterm(Int32(height), Int32(width))
        last = nil
    }

    /// Writes the rows that differ from the last frame, then places the cursor.
    public func draw(_ grid: Grid) {
        let previous = last.flatMap { $0.width == grid.width && $0.height == grid.height ? $0 : nil }
        for y in grid.changedRows(since: last) {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                guard !cell.text.isEmpty else { continue }  // the right half of a wide character
                // A wide character that replaced two narrow ones must still be written, so compare its neighbour too.
                if let previous, previous[x, y] == cell, x + 1 == grid.width || previous[x + 1, y] == grid[x + 1, y] { continue }
                let (attr, pair) = attributes[cell.role.rawValue]
                var chars = cell.text.unicodeScalars.prefix(4).map { wchar_t(bitPattern: $0.value) }
                chars.append(0)
                if cn_put_cell(Int32(y), Int32(x), chars, attr, pair) == ERR, y != grid.height - 1 || x != grid.width - 1 {
                    _ = cn_put_cell(Int32(y), Int32(x), [wchar_t(63), 0], attr, pair)  // "?" for what ncurses refuses
                }
            }
        }
        if let cursor = grid.cursor {
            curs_set(1)
            move(Int32(cursor.y), Int32(cursor.x))
        } else {
            curs_set(0)
        }
        refresh()
        last = grid
    }

    /// Every key waiting, without blocking (escape sequences ncurses did not know read whole: see `KeyDecoder`).
    /// A paste cut between reads is waited for, a moment at a time, up to a second: then what came is the paste.
    public func readKeys() -> [Key] {
        var keys = decoder.decode(readWaiting(milliseconds: 0))
        for _ in 0..<20 where decoder.isPasting {
            keys += decoder.decode(readWaiting(milliseconds: 50))
        }
        keys += decoder.endPaste()
        return keys
    }

    /// What the library has read, waiting up to `milliseconds` for the first of it.
    private func readWaiting(milliseconds: Int32) -> [KeyDecoder.Raw] {
        var raw: [KeyDecoder.Raw] = []
        var value: wint_t = 0
        wtimeout(cn_stdscr(), milliseconds)
        defer { nodelay(cn_stdscr(), true) }
        while true {
            let kind = cn_get_wch(&value)
            nodelay(cn_stdscr(), true)  // only the first read waits
            if kind == ERR { break }
            if kind == cn_key_code_yes(), Int32(value) == cn_key_mouse() {
                var x: Int32 = 0, y: Int32 = 0
                let action: Mouse.Action? = switch cn_read_mouse(&x, &y) {
                case 1: .press
                case 2: .wheelUp
                case 3: .wheelDown
                default: nil
                }
                if let action { raw.append(.key(.mouse(Mouse(action, x: Int(x), y: Int(y))))) }
            } else if kind == cn_key_code_yes() {
                if let key = Self.key(code: Int32(value)) { raw.append(.key(key)) }
            } else {
                raw.append(.character(UInt32(value)))
            }
        }
        return raw
    }

    static func key(code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_NPAGE: .pageDown
        case KEY_PPAGE: .pageUp
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_BTAB: .backTab
        case KEY_ENTER: .enter
        case cn_key_resize(): .resize
        default: nil
        }
    }
}
