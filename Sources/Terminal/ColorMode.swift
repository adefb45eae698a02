import FrontEnd

/// How many colours to use: none when `NO_COLOR` is set or `TERM` is dumb
/// (htop's rule), else what the terminal says it has.
public enum ColorMode: Equatable, Sendable {
    case monochrome, sixteen, full

    public static func choose(environment: [String: String], terminalColors: Int) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .monochrome }
        if environment["TERM"] == "dumb" { return .monochrome }
        if terminalColors >= 256 { return .full }
        return terminalColors >= 8 ? .sixteen : .monochrome
    }

    /// A role's look: a foreground colour (ncurses numbers; -1 is the default) and attributes.
    struct Look {
        var foreground: Int16 = -1
        var background: Int16 = -1
        var bold = false
        var dim = false
        var reverse = false
        var underline = false
    }

    func look(_ role: Role) -> Look {
        switch self {
        case .monochrome:
            return switch role {
            case .normal, .border, .shared, .pending: Look()
            case .dim, .disabledKey: Look(dim: true)
            case .heading, .focusedBorder, .key, .info: Look(bold: true)
            case .selected: Look(reverse: true)
            case .selectedUnfocused: Look(underline: true)
            case .readOnly, .warning, .conflict: Look(bold: true, underline: true)
            case .error: Look(bold: true, reverse: true)
            }
        case .sixteen, .full:
            // 0 black, 1 red, 2 green, 3 yellow, 4 blue, 5 magenta, 6 cyan, 7 white; +8 bright where there are 16.
            let grey: Int16 = self == .full ? 244 : 8
            return switch role {
            case .normal: Look()
            case .dim: Look(foreground: grey)
            case .heading: Look(foreground: 6, bold: true)
            case .selected: Look(foreground: 0, background: 6)
            case .selectedUnfocused: Look(reverse: true)
            case .border: Look(foreground: grey)
            case .focusedBorder: Look(foreground: 6, bold: true)
            case .shared: Look(foreground: 4, bold: true)
            case .readOnly: Look(foreground: 3)
            case .conflict: Look(foreground: 1, bold: true)
            case .pending: Look(foreground: 5)
            case .key: Look(foreground: 2, bold: true)
            case .disabledKey: Look(foreground: grey, dim: true)
            case .info: Look(foreground: 2)
            case .warning: Look(foreground: 3, bold: true)
            case .error: Look(foreground: 1, bold: true)
            }
        }
    }
}
