import Cloud
import Foundation
import Glibc
import FrontEnd  // (the terminal width of text: CJK and emoji take two columns)

/// Writing to the terminal: results on stdout, one-line errors on stderr.
///
/// Text is inert: much of what is printed was typed by other accounts
/// (titles, names, emails, record names), and a control character in it
/// would reach the terminal as a command (a clipboard write, a cleared
/// screen, a forged line). Every one is printed as a visible escape
/// (`\u{1B}`); only `text` keeps line breaks and tabs. JSON is exact.
enum Output {
    /// One line: a line break in what it quotes is shown as `\n`, never taken.
    static func line(_ text: String = "") {
        write(inert(text, keepingLineBreaks: false) + "\n")
    }

    /// Text of many lines (a post's body): its line breaks and tabs stay, other controls are escaped.
    static func text(_ text: String) {
        write(inert(text, keepingLineBreaks: true) + "\n")
    }

    static func fail(_ message: String, code: Int32 = 1) -> Never {
        // One line, whatever the message quotes.
        let line = inert(message.split(whereSeparator: \.isNewline).joined(separator: " "), keepingLineBreaks: false)
        _ = writeAll("cloudnotes: \(line)\n", to: STDERR_FILENO, endingWithItsReader: false)  // ending with `code` anyway
        exit(code)
    }

    /// A line on stderr that does not stop the command.
    static func warn(_ message: String) {
        _ = writeAll("cloudnotes: warning: \(inert(message, keepingLineBreaks: false))\n", to: STDERR_FILENO, endingWithItsReader: false)
    }

    /// A line on stderr for the person, beside a result on stdout a script may read alone.
    static func note(_ message: String) {
        _ = writeAll("cloudnotes: \(inert(message, keepingLineBreaks: false))\n", to: STDERR_FILENO, endingWithItsReader: false)
    }

    /// Whether the person agrees to something that cannot be undone: `yes` given, or "y" typed at a terminal
    /// after the question (`[y/N]` is added). Where nobody can be asked (a script), refused: `--yes` says so.
    static func confirmed(_ question: String, yes: Bool, doing what: String) throws -> Bool {
        if yes { return true }
        guard isatty(STDIN_FILENO) == 1 else { throw CLIError.usage("\(what) needs --yes when not asked at a terminal") }
        ask(question + " [y/N]")
        return readLine()?.lowercased().hasPrefix("y") == true
    }

    /// A question on stderr, the answer to be typed after it on the same line; unsaid if stderr cannot be written.
    static func ask(_ question: String) {
        _ = writeAll(inert(question, keepingLineBreaks: false) + " ", to: STDERR_FILENO, endingWithItsReader: false)
    }

    /// The text with every control character (and the bidirectional overrides that can make text read as
    /// other text) written as an escape.
    static func inert(_ text: String, keepingLineBreaks: Bool) -> String {
        text.escaping { isControl($0, keepingLineBreaks) }
    }

    private static func isControl(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool) -> Bool {
        if keepingLineBreaks && (scalar == "\n" || scalar == "\t") { return false }
        return scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// Writes all of `text` to stdout. A reader that went away (`| head`) wanted no more: the command ends there
    /// as a program whose reader left does, by SIGPIPE (status 141 in a shell; the libraries linked in may have
    /// set it aside, so it is put back first), quietly; any other failure (a full disk under `> file`) is one
    /// line and a failure.
    private static func write(_ text: String) {
        if let failure = writeAll(text, to: STDOUT_FILENO) { fail("could not write the output: \(failure)") }
    }

    /// A server's log line on stderr: dropped if it cannot be written (whoever read the log went away), for a
    /// server serves on without its log rather than end.
    static func log(_ line: String) {
        _ = writeAll(line + "\n", to: STDERR_FILENO, endingWithItsReader: false)
    }

    /// Writes all of `text` to `descriptor`; what failed, if anything but the reader leaving did. A reader that
    /// left ends the program as SIGPIPE does, when it is `endingWithItsReader`.
    private static func writeAll(_ text: String, to descriptor: Int32, endingWithItsReader: Bool = true) -> String? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written < 0 else {
                bytes = bytes.dropFirst(written)
                continue
            }
            switch errno {
            case EINTR: continue
            case EPIPE:
                guard endingWithItsReader else { return nil }
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
                exit(141)  // not reached
            case let code: return String(cString: strerror(code))
            }
        }
        return nil
    }

    /// One JSON document on stdout, keys sorted so output is stable.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.dataEncodingStrategy = .base64
        write(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }

    /// Rows of columns, padded to line up.
    static func table(_ rows: [[String]]) {
        // A cell before the last is cut to a width a terminal shows: padded to the widest, one huge title another
        // account planted made every row as wide (a 900 KB title: 35 MB of list). The last column is not padded.
        let rows = rows.map { row in
            row.enumerated().map { i, cell in
                let shown = inert(cell, keepingLineBreaks: false)
                return i == row.count - 1 ? shown : shown.truncated(to: maxCellColumns)
            }
        }
        guard let width = rows.map(\.count).max() else { return }
        var widths = Array(repeating: 0, count: width)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.columns) } }
        for row in rows {
            let cells = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.columns)
            }
            write(cells.joined(separator: "  ").withoutTrailingWhitespace + "\n")
        }
    }

    /// The widest a cell before a table's last column is shown (`show` and `--json` give it whole).
    static let maxCellColumns = 80

    static func date(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
