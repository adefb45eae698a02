/// What a cell means, not its colour: the backend maps roles to colours
/// the terminal has (or to bold and reverse in monochrome).
public enum Role: Int, CaseIterable, Sendable {
    case normal, dim, heading, selected, selectedUnfocused, border, focusedBorder
    case shared, readOnly, conflict, pending, key, disabledKey, info, warning, error
}

/// One terminal cell: a grapheme cluster (empty for the second half of a wide one).
public struct Cell: Equatable, Sendable {
    public var text: String
    public var role: Role

    public static let blank = Cell(text: " ", role: .normal)
    static let continuation = Cell(text: "", role: .normal)
}

/// A screen as cells, drawn by pure code and compared as text in tests;
/// the backend writes only the cells that differ from the last frame.
public struct Grid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Where the terminal's cursor shows (in a prompt or the editor); hidden when nil.
    public var cursor: Point?

    public struct Point: Equatable, Sendable {
        public var x: Int
        public var y: Int
    }

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// Writes text from (x, y), clipped at `limit` columns (default: the right edge); returns the columns used.
    @discardableResult
    public mutating func put(_ text: some StringProtocol, x: Int, y: Int, role: Role = .normal, limit: Int? = nil) -> Int {
        guard y >= 0, y < height, x >= 0 else { return 0 }
        let end = min(width, x + (limit ?? width))
        var column = x
        for c in text {
            let w = c == "\t" ? 1 : c.columns
            guard w > 0 else { continue }
            guard column + w <= end else { break }
            cells[y * width + column] = Cell(text: c == "\t" ? " " : String(c), role: role)
            if w == 2 { cells[y * width + column + 1] = .continuation }
            column += w
        }
        return column - x
    }

    /// Paints a rectangle's cells with a role (and blanks), as a background.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, role: Role = .normal) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) { cells[row * width + column] = Cell(text: " ", role: role) }
        }
    }

    /// Changes the role of a row's cells from x, keeping their text (a highlight bar).
    public mutating func paint(y: Int, x: Int, width w: Int, role: Role) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, x + w) { cells[y * width + column].role = role }
    }

    /// The rows as text, trailing spaces kept, for tests and snapshots.
    public var lines: [String] {
        (0..<height).map { y in (0..<width).map { cells[y * width + $0].text }.joined() }
    }

    public var text: String {
        lines.map(\.withoutTrailingWhitespace).joined(separator: "\n")
    }

    /// Rows that differ from `old` (all of them when the size changed).
    public func changedRows(since old: Grid?) -> [Int] {
        guard let old, old.width == width, old.height == height else { return Array(0..<height) }
        return (0..<height).filter { y in
            let range = (y * width)..<((y + 1) * width)
            return cells[range] != old.cells[range]
        }
    }
}
