import Foundation

/// Draws a `ScreenModel` into a grid: pure, so screens are tested as text.
public enum Renderer {
    public static let minimumSize = (width: 20, height: 6)

    public static func render(_ model: ScreenModel, width: Int, height: Int) -> Grid {
        var grid = Grid(width: width, height: height)
        guard width >= minimumSize.width, height >= minimumSize.height else {
            let said = "CloudNotes needs a terminal of at least \(minimumSize.width)×\(minimumSize.height) (this one is \(width)×\(height)): "
                + "make it larger, or press q to quit."
            for (y, line) in said.wrapped(to: max(1, width)).prefix(height).enumerated() { grid.put(line, x: 0, y: y, role: .warning) }
            return grid
        }
        let layout = Layout(width: width, height: height, participants: model.participants?.count)
        topLine(model, into: &grid)
        list(model, layout.list, into: &grid)
        if case .edit(let form) = model.mode {
            PostFormView.draw(form, in: layout.editor, into: &grid)
        } else {
            detail(model, layout.detail, into: &grid)
            if let rect = layout.participants { participants(model, rect, into: &grid) }
        }
        messageLine(model, y: layout.messageLine, into: &grid)
        footer(model, y: layout.footerLine, into: &grid)
        Overlays.draw(model, into: &grid)
        return grid
    }

    // MARK: Lines

    static func topLine(_ model: ScreenModel, into grid: inout Grid) {
        grid.fill(x: 0, y: 0, width: grid.width, height: 1, role: .heading)
        var used = grid.put(" CloudNotes · \(model.account) on \(model.device)", x: 0, y: 0, role: .heading)
        let waiting = [(model.invitations, "invitation"), (model.requests, "request")].filter { $0.0 > 0 }
            .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        if !waiting.isEmpty {  // in the inbox (I opens it)
            used += grid.put(" · ✉ \(waiting.joined(separator: ", ")) (I)", x: used, y: 0, role: .warning)
        }
        let role: Role = switch model.statusLevel {
        case .info: .heading
        case .warning: .warning
        case .error: .error
        }
        let status = model.status.truncated(to: max(0, grid.width - used - 3))
        grid.put(status, x: grid.width - status.columns - 1, y: 0, role: role)
    }

    static func messageLine(_ model: ScreenModel, y: Int, into grid: inout Grid) {
        if case .prompt(let prompt) = model.mode {
            let used = grid.put(prompt.label, x: 0, y: y, role: .key)
            let (text, cursor) = visible(prompt.editor, width: grid.width - used - 1)
            grid.put(text, x: used, y: y)
            grid.cursor = Grid.Point(x: used + cursor, y: y)
        } else if let flash = model.flash {
            let role: Role = switch flash.level {
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
            // Cut where it does not fit, saying where to read it whole.
            let hint = " (:messages)"
            let text = flash.text.columns <= grid.width ? flash.text : flash.text.truncated(to: max(0, grid.width - hint.count)) + hint
            grid.put(text.truncated(to: grid.width), x: 0, y: y, role: role)
        }
    }

    /// A one-line editor's text scrolled so the cursor shows; and the cursor's column.
    static func visible(_ editor: TextEditor, width: Int) -> (String, Int) {
        let line = editor.lines[0]
        var start = 0
        while line[start..<editor.cursor.column].reduce(0, { $0 + $1.columns }) >= max(1, width) { start += 1 }
        let text = String(line[start...])
        return (text, line[start..<editor.cursor.column].reduce(0) { $0 + $1.columns })
    }

    /// The keys that apply now; disabled ones greyed (pressing them says why).
    /// When they do not all fit, the last one (help) stays and those before it go.
    static func footer(_ model: ScreenModel, y: Int, into grid: inout Grid) {
        if case .prompt(let prompt) = model.mode, !prompt.candidates.isEmpty { return candidates(prompt, y: y, into: &grid) }
        for (item, x) in footerSlots(model.footer, width: grid.width) {
            grid.put(item.key, x: x, y: y, role: item.enabled ? .key : .disabledKey)
            grid.put(item.label, x: x + item.key.columns + 1, y: y, role: item.enabled ? .normal : .disabledKey)
        }
    }

    /// Where each footer item that fits starts: when they do not all fit, the last one (help) stays and those
    /// before it go. (A click on the footer finds its key here too.)
    static func footerSlots(_ items: [ScreenModel.FooterItem], width: Int) -> [(item: ScreenModel.FooterItem, x: Int)] {
        var items = items
        let total = { (items: [ScreenModel.FooterItem]) in items.reduce(0) { $0 + $1.key.columns + 1 + $1.label.columns + 2 } - 2 }
        while items.count > 1, total(items) > width { items.remove(at: items.count - 2) }
        var slots: [(ScreenModel.FooterItem, Int)] = []
        var x = 0
        for item in items {
            let itemWidth = item.key.columns + 1 + item.label.columns
            guard x + itemWidth <= width else { break }
            slots.append((item, x))
            x += itemWidth + 2
        }
        return slots
    }

    /// The command line's completions in the footer's place, the one Tab chose marked; as many as fit.
    static func candidates(_ prompt: Prompt, y: Int, into grid: inout Grid) {
        grid.put("Tab:", x: 0, y: y, role: .dim)
        let slots = candidateSlots(prompt, width: grid.width)
        for (index, x) in slots {
            grid.put(prompt.candidates[index], x: x, y: y, role: index == prompt.candidate ? .selected : .key)
        }
        let shown = slots.count
        if shown < prompt.candidates.count {
            grid.put("+\(prompt.candidates.count - shown) more", x: (slots.last.map { $0.x + prompt.candidates[$0.index].columns + 2 } ?? 5), y: y, role: .dim)
        }
    }

    /// Where each completion that fits starts (room kept for "+N more" when some do not).
    static func candidateSlots(_ prompt: Prompt, width: Int) -> [(index: Int, x: Int)] {
        var slots: [(Int, Int)] = [], x = 5
        for (index, line) in prompt.candidates.enumerated() {
            let more = prompt.candidates.count - index
            guard x + line.columns + (more > 1 ? 8 : 0) <= width else { break }
            slots.append((index, x))
            x += line.columns + 2
        }
        return slots
    }

    // MARK: Panes

    /// A bordered pane, its title on the upper border and `position` (where it is scrolled to) at the right of
    /// the lower one.
    static func box(_ title: String, _ rect: Layout.Rect, focused: Bool, position: String? = nil, into grid: inout Grid) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let role: Role = focused ? .focusedBorder : .border
        let inner = rect.width - 2
        grid.put("┌" + String(repeating: "─", count: inner) + "┐", x: rect.x, y: rect.y, role: role)
        for y in (rect.y + 1)..<(rect.y + rect.height - 1) {
            grid.put("│", x: rect.x, y: y, role: role)
            grid.put("│", x: rect.x + rect.width - 1, y: y, role: role)
        }
        grid.put("└" + String(repeating: "─", count: inner) + "┘", x: rect.x, y: rect.y + rect.height - 1, role: role)
        // The focused pane's title is marked, so focus shows without colour too.
        grid.put(" \(focused ? "▸ " : "")\(title) ".truncated(to: max(0, inner - 2)), x: rect.x + 2, y: rect.y, role: focused ? .focusedBorder : .heading)
        if let position, position.columns + 4 <= inner {
            grid.put(" \(position) ", x: rect.x + rect.width - position.columns - 4, y: rect.y + rect.height - 1, role: role)
        }
    }

    /// Markers, one column each: ● new since you looked, » shared by you or « with you, ⊘ read-only,
    /// ! conflict or a change the cloud refused, ↑ waiting to be sent.
    static func markers(_ row: ScreenModel.Row) -> [(String, Role)] {
        let sharing = switch row.sharing { case .notShared: " "; case .byMe: "»"; case .withMe: "«" }
        return [(row.unread ? "●" : " ", .heading), (sharing, .shared), (row.readOnly ? "⊘" : " ", .readOnly),
                (row.conflicted || row.refused ? "!" : " ", .conflict), (row.pending ? "↑" : " ", .pending)]
    }

    /// The columns right of the titles, as the width allows, most useful first: how long ago, the notebook
    /// (and its owner when not you), who changed it last. The same for every row, so they line up.
    enum RowColumn: CaseIterable {
        case age, notebook, editor

        /// The columns it wants, and the fewest it is shown in.
        var width: (wanted: Int, least: Int) {
            switch self {
            case .age: (5, 5)
            case .notebook: (18, 5)
            case .editor: (10, 6)
            }
        }

        func text(_ row: ScreenModel.Row, width: Int) -> String {
            switch self {
            case .age: String(repeating: " ", count: max(0, width - row.age.columns)) + row.age
            case .notebook: row.owner.map { "\(row.notebook) (\($0))" } ?? row.notebook
            case .editor: row.editor
            }
        }

        /// The columns that fit beside a title of at least `minimumTitle` in `room` columns, with their widths.
        static func fitting(_ room: Int) -> [(column: RowColumn, width: Int)] {
            var left = room - minimumTitle, fitted: [(RowColumn, Int)] = []
            for column in allCases {
                let width = min(column.width.wanted, left - 2)
                guard width >= column.width.least else { break }
                fitted.append((column, width))
                left -= width + 2
            }
            return fitted
        }
    }

    static let minimumTitle = 16

    static func list(_ model: ScreenModel, _ rect: Layout.Rect, into grid: inout Grid) {
        box(model.listTitle, rect, focused: model.focus == .list, position: model.listPosition, into: &grid)
        let inner = rect.width - 2
        let columns = RowColumn.fitting(inner - 6)
        let titleEnd = rect.x + rect.width - 1 - columns.reduce(0) { $0 + $1.width + 2 }
        for (index, row) in model.rows.enumerated() where index < rect.height - 2 {
            let y = rect.y + 1 + index
            var x = rect.x + 1
            for (mark, role) in markers(row) { x += grid.put(mark, x: x, y: y, role: role) }
            x += 1
            var columnX = titleEnd + 2
            for (column, width) in columns {
                grid.put(column.text(row, width: width).truncated(to: width), x: columnX, y: y, role: .dim)
                columnX += width + 2
            }
            let count = row.comments > 0 ? " (\(row.comments))" : ""
            let title = (row.title.isEmpty ? "(untitled)" : row.title).truncated(to: max(1, titleEnd - x - count.columns))
            x += grid.put(title, x: x, y: y)
            grid.put(count, x: x, y: y, role: .dim)
            if index == model.selectedRow {
                grid.paint(y: y, x: rect.x + 1, width: inner, role: model.focus == .list ? .selected : .selectedUnfocused)
            }
        }
        if model.rows.isEmpty {
            let said = model.listTitle.contains(" of ") ? "no posts match (Esc clears the filter)" : "no posts: press a to write one"
            grid.put(said, x: rect.x + 2, y: rect.y + 1, role: .dim, limit: inner - 1)
        }
    }

    static func detail(_ model: ScreenModel, _ rect: Layout.Rect, into grid: inout Grid) {
        guard let detail = model.detail, rect.width > 4 else { return box("Post", rect, focused: model.focus == .detail, into: &grid) }
        let width = rect.width - 4
        var lines: [(String, Role)] = detail.title.wrapped(to: width).map { ($0, .heading) }
        if let notice = detail.notice { lines += notice.wrapped(to: width).map { ($0, .readOnly) } }
        let labelWidth = detail.facts.map(\.0.columns).max() ?? 0
        for (label, value) in detail.facts {
            let pad = String(repeating: " ", count: labelWidth - label.columns)
            lines += "\(label)\(pad)  \(value)".wrapped(to: width).map { ($0, .dim) }
        }
        lines.append(("", .normal))
        lines += detail.content.wrapped(to: width).map { ($0, .normal) }
        if !detail.comments.isEmpty {
            lines.append(("", .normal))
            lines.append(("Comments (\(detail.comments.count))", .heading))
            for (who, text) in detail.comments { lines += "\(who): \(text)".wrapped(to: width).map { ($0, .normal) } }
        }
        let shown = rect.height - 2
        let start = min(model.detailScroll, max(0, lines.count - shown))
        let position = lines.count > shown ? "lines \(start + 1)–\(min(lines.count, start + shown)) of \(lines.count)" : nil
        box("Post", rect, focused: model.focus == .detail, position: position, into: &grid)
        for (offset, line) in lines.dropFirst(start).prefix(shown).enumerated() {
            grid.put(line.0, x: rect.x + 2, y: rect.y + 1 + offset, role: line.1)
        }
    }

    static func participants(_ model: ScreenModel, _ rect: Layout.Rect, into grid: inout Grid) {
        let title = "Participants" + (model.publicPermission.map { " · anyone with the URL: \($0)" } ?? "")
        box(title, rect, focused: model.focus == .participants, into: &grid)
        guard let people = model.participants, rect.width > 4 else { return }
        let header = ["NAME", "ROLE", "PERMISSION", "STATUS"]
        let rows = people.map { [$0.name, $0.role, $0.permission, $0.status] }
        let columns = participantColumns(header: header, rows: rows, width: rect.width - 4)
        let right = rect.x + rect.width - 2
        func row(_ cells: [String], y: Int, role: Role) {
            var x = rect.x + 2
            for (cell, w) in zip(cells, columns) where x < right {
                grid.put(cell.truncated(to: min(w, right - x)), x: x, y: y, role: role)
                x += w + 2
            }
        }
        row(header, y: rect.y + 1, role: .dim)
        for (index, person) in rows.enumerated() where index < rect.height - 3 {
            let y = rect.y + 2 + index
            row(person, y: y, role: .normal)
            if index == model.selectedParticipant && model.focus == .participants {
                grid.paint(y: y, x: rect.x + 1, width: rect.width - 2, role: .selected)
            }
        }
    }
}

extension Renderer {
    /// Columns as wide as what they hold (two spaces between), so a wide screen shows no gulf after the names;
    /// where they do not all fit, the names give way first (down to 4), then the rest are cut at the edge.
    static func participantColumns(header: [String], rows: [[String]], width: Int) -> [Int] {
        var columns = header.indices.map { column in ([header] + rows).map { $0[column].columns }.max() ?? 0 }
        let others = columns.dropFirst().reduce(0, +) + 2 * (columns.count - 1)
        columns[0] = max(4, min(columns[0], width - others))
        return columns
    }
}

extension Layout.Rect {
    /// The smallest rectangle holding both (the detail and participants panes when editing).
    func union(_ other: Layout.Rect?) -> Layout.Rect {
        guard let other else { return self }
        let bottom = max(y + height, other.y + other.height)
        return Layout.Rect(x: min(x, other.x), y: min(y, other.y), width: max(width, other.width), height: bottom - min(y, other.y))
    }
}
