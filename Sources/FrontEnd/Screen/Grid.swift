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

    /// Cells, as columns and rows.
    public struct Area: Equatable, Sendable {
        public var columns: Range<Int>
        public var rows: Range<Int>

        public init(x: Int, y: Int, width: Int, height: Int) {
            columns = x..<(x + max(0, width))
            rows = y..<(y + max(0, height))
        }

        public func contains(x: Int, y: Int) -> Bool { columns.contains(x) && rows.contains(y) }
    }

    /// Where a mouse press stands for a key (a dialog's buttons): the last drawn is on top.
    public struct Target: Equatable, Sendable {
        public var area: Area
        public var key: Key
    }

    /// Drawing lands only here while set: a dialog sets its inside, so nothing drawn in it spills over its border.
    public var clip: Area?
    public private(set) var targets: [Target] = []

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// The columns drawing may use on row y (empty outside the clip).
    private func columns(y: Int) -> Range<Int> {
        guard y >= 0, y < height else { return 0..<0 }
        guard let clip else { return 0..<width }
        guard clip.rows.contains(y) else { return 0..<0 }
        return max(0, clip.columns.lowerBound)..<min(width, clip.columns.upperBound)
    }

    /// Writes text from (x, y), clipped at `limit` columns (default: the right edge); returns the columns used.
    /// A character of several letters (an Indic conjunct) takes a cell for each, as the terminal draws it.
    @discardableResult
    public mutating func put(_ text: some StringProtocol, x: Int, y: Int, role: Role = .normal, limit: Int? = nil) -> Int {
        let allowed = columns(y: y)
        guard allowed.contains(x) else { return 0 }
        let end = min(allowed.upperBound, x + (limit ?? width))
        var column = x
        func place(_ piece: String, _ w: Int) {
            cells[y * width + column] = Cell(text: piece, role: role)
            if w == 2 { cells[y * width + column + 1] = .continuation }
            column += w
        }
        for c in text {
            let w = c == "\t" ? 1 : c.columns
            guard w > 0 else { continue }
            guard column + w <= end else { break }
            if let pieces = c.cellPieces {
                for piece in pieces where piece.columns > 0 { place(piece.text, piece.columns) }
            } else {
                place(c == "\t" ? " " : String(c), w)
            }
        }
        return column - x
    }

    /// Paints a rectangle's cells with a role (and blanks), as a background.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, role: Role = .normal) {
        for row in max(0, y)..<min(height, y + h) {
            let allowed = columns(y: row)
            for column in max(allowed.lowerBound, x)..<max(max(allowed.lowerBound, x), min(allowed.upperBound, x + w)) {
                cells[row * width + column] = Cell(text: " ", role: role)
            }
        }
    }

    /// Marks where a press stands for `key`.
    public mutating func target(_ key: Key, x: Int, y: Int, width w: Int) {
        targets.append(Target(area: Area(x: x, y: y, width: w, height: 1), key: key))
    }

    /// Changes the role of a row's cells from x, keeping their text (a highlight bar).
    public mutating func paint(y: Int, x: Int, width w: Int, role: Role) {
        let allowed = columns(y: y)
        let start = max(allowed.lowerBound, x)
        for column in start..<max(start, min(allowed.upperBound, x + w)) { cells[y * width + column].role = role }
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
