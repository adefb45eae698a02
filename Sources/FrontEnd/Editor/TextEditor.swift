/// A multi-line text being edited: lines of characters (grapheme clusters),
/// a cursor, wrapping to a width for display and vertical movement, and undo.
public struct TextEditor: Equatable, Sendable {
    public struct Position: Equatable, Sendable {
        public var line: Int
        public var column: Int  // in characters of the line
    }

    private struct Snapshot: Equatable, Sendable {
        var lines: [[Character]]
        var cursor: Position
    }

    private enum EditKind: Equatable { case typing, deleting, other }

    public private(set) var lines: [[Character]]
    public private(set) var cursor: Position
    public let multiline: Bool
    private var undoStack: [Snapshot] = []
    private var lastEdit: EditKind?
    private let original: [[Character]]

    public init(text: String, multiline: Bool = true) {
        self.multiline = multiline
        let split = multiline ? text.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
                              : [Array(text.replacingOccurrences(of: "\n", with: " "))]
        lines = split.isEmpty ? [[]] : split
        original = lines
        cursor = Position(line: lines.count - 1, column: lines[lines.count - 1].count)
    }

    public var text: String { lines.map { String($0) }.joined(separator: "\n") }
    public var isChanged: Bool { lines != original }
    public var canUndo: Bool { !undoStack.isEmpty }

    // MARK: Editing

    public mutating func insert(_ c: Character) {
        if c == "\n" || c == "\r" { return newline() }
        record(c == " " ? .other : .typing)
        lines[cursor.line].insert(c, at: cursor.column)
        cursor.column += 1
    }

    public mutating func insert(_ text: String) { for c in text { insert(c) } }

    /// A paste, as one change to undo: its lines become lines (in a one-line field, they and tabs become
    /// spaces), spliced in at the cursor in time linear in the paste.
    public mutating func insert(pasted text: String) {
        let text = multiline ? text : String(text.map { $0 == "\n" || $0 == "\t" ? " " : $0 })
        guard !text.isEmpty else { return }
        record(.other)
        let pieces = text.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        let rest = Array(lines[cursor.line][cursor.column...])
        lines[cursor.line].replaceSubrange(cursor.column..., with: pieces[0])
        lines.insert(contentsOf: pieces.dropFirst(), at: cursor.line + 1)
        cursor = Position(line: cursor.line + pieces.count - 1, column: lines[cursor.line + pieces.count - 1].count)
        lines[cursor.line] += rest
    }

    public mutating func newline() {
        guard multiline else { return }
        record(.other)
        let rest = Array(lines[cursor.line][cursor.column...])
        lines[cursor.line].removeSubrange(cursor.column...)
        lines.insert(rest, at: cursor.line + 1)
        cursor = Position(line: cursor.line + 1, column: 0)
    }

    public mutating func backspace() {
        if cursor.column > 0 {
            record(.deleting)
            lines[cursor.line].remove(at: cursor.column - 1)
            cursor.column -= 1
        } else if cursor.line > 0 {
            record(.other)
            let line = lines.remove(at: cursor.line)
            cursor = Position(line: cursor.line - 1, column: lines[cursor.line - 1].count)
            lines[cursor.line] += line
        }
    }

    public mutating func deleteForward() {
        if cursor.column < lines[cursor.line].count {
            record(.deleting)
            lines[cursor.line].remove(at: cursor.column)
        } else if cursor.line + 1 < lines.count {
            record(.other)
            lines[cursor.line] += lines.remove(at: cursor.line + 1)
        }
    }

    /// ^U: the line before the cursor goes (undoable, as every change is).
    public mutating func deleteToLineStart() {
        guard cursor.column > 0 else { return }
        record(.other)
        lines[cursor.line].removeSubrange(..<cursor.column)
        cursor.column = 0
    }

    /// ^K: the line after the cursor goes.
    public mutating func deleteToLineEnd() {
        guard cursor.column < lines[cursor.line].count else { return }
        record(.other)
        lines[cursor.line].removeSubrange(cursor.column...)
    }

    /// Takes back the last change (a run of typing counts as one).
    public mutating func undo() {
        guard let last = undoStack.popLast() else { return }
        lines = last.lines
        cursor = last.cursor
        lastEdit = nil
    }

    /// Remembers the text before a change, once per run of the same kind of change.
    private mutating func record(_ kind: EditKind) {
        if kind == .other || kind != lastEdit { undoStack.append(Snapshot(lines: lines, cursor: cursor)) }
        if undoStack.count > 200 { undoStack.removeFirst() }
        lastEdit = kind
    }

    // MARK: Moving

    public mutating func moveLeft() {
        lastEdit = nil
        if cursor.column > 0 { cursor.column -= 1 } else if cursor.line > 0 {
            cursor = Position(line: cursor.line - 1, column: lines[cursor.line - 1].count)
        }
    }

    public mutating func moveRight() {
        lastEdit = nil
        if cursor.column < lines[cursor.line].count { cursor.column += 1 } else if cursor.line + 1 < lines.count {
            cursor = Position(line: cursor.line + 1, column: 0)
        }
    }

    public mutating func moveHome() { cursor.column = 0; lastEdit = nil }
    public mutating func moveEnd() { cursor.column = lines[cursor.line].count; lastEdit = nil }

    /// Up or down one row as wrapped to `width`, keeping the column on screen.
    public mutating func moveVertically(_ rows: Int, width: Int) {
        lastEdit = nil
        let layout = layout(width: width)
        let target = min(max(0, layout.cursorRow + rows), layout.rows.count - 1)
        let row = layout.rows[target]
        var column = 0, index = row.start
        while index < row.end, column + lines[row.line][index].columns <= layout.cursorColumn {
            column += lines[row.line][index].columns
            index += 1
        }
        cursor = Position(line: row.line, column: index)
    }

    // MARK: Wrapping

    /// One screen row: part of a line, from character `start` up to `end`.
    public struct Row: Equatable, Sendable {
        public var line: Int
        public var start: Int
        public var end: Int
    }

    public struct Layout: Equatable, Sendable {
        public var rows: [Row]
        public var cursorRow: Int
        public var cursorColumn: Int
    }

    /// The lines cut into rows of at most `width` columns (the cursor may sit just past a row's end).
    public func layout(width: Int) -> Layout {
        let width = max(2, width)
        var rows: [Row] = []
        var cursorRow = 0, cursorColumn = 0
        for (number, line) in lines.enumerated() {
            var start = 0, used = 0
            for (index, c) in line.enumerated() {
                if used + c.columns > width {
                    rows.append(Row(line: number, start: start, end: index))
                    start = index
                    used = 0
                }
                used += c.columns
            }
            rows.append(Row(line: number, start: start, end: line.count))
        }
        for (index, row) in rows.enumerated() where row.line == cursor.line && cursor.column >= row.start
            && (cursor.column < row.end || cursor.column == row.end && (index + 1 == rows.count || rows[index + 1].line != row.line)) {
            cursorRow = index
            cursorColumn = lines[row.line][row.start..<cursor.column].reduce(0) { $0 + $1.columns }
        }
        return Layout(rows: rows, cursorRow: cursorRow, cursorColumn: cursorColumn)
    }

    public func text(of row: Row) -> String { String(lines[row.line][row.start..<row.end]) }
}
