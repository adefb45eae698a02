/// Dialogs drawn over the panes: help, confirmations, sharing, notebooks.
enum Overlays {
    static func draw(_ model: ScreenModel, into grid: inout Grid) {
        switch model.mode {
        case .help: help(model, into: &grid)
        case .confirm(let confirmation): confirm(confirmation, into: &grid)
        case .share(let dialog): share(dialog, into: &grid)
        case .pickFilter(let picker): filters(picker, into: &grid)
        case .pickComment: comments(model, into: &grid)
        case .history, .trash, .notices, .messages, .inbox: browser(model, into: &grid)
        case .shareScreen: sharePage(model, into: &grid)
        case .browse, .prompt, .edit: break
        }
        grid.clip = nil
    }

    /// A centred box of the given inner size, as much of it as the screen holds (a margin kept round it
    /// where the screen has room; the whole screen where it is small); returns where its text starts. What
    /// is drawn until the next dialog stays inside its border.
    static func dialog(_ title: String, width: Int, height: Int, into grid: inout Grid) -> Layout.Rect {
        let w = min(grid.width - (grid.width > 40 ? 2 : 0), width + 4), h = min(grid.height - (grid.height > 12 ? 2 : 0), height + 2)
        let rect = Layout.Rect(x: (grid.width - w) / 2, y: (grid.height - h) / 2, width: w, height: h)
        grid.clip = nil
        grid.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        grid.cursor = nil
        Renderer.box(title, rect, focused: true, into: &grid)
        grid.clip = Grid.Area(x: rect.x + 1, y: rect.y + 1, width: w - 2, height: h - 2)
        return Layout.Rect(x: rect.x + 2, y: rect.y + 1, width: max(0, w - 4), height: max(0, h - 2))
    }

    /// `?`: the whole screen between the top line and the footer (it is read, not glanced at), every line
    /// whole (long ones wrap under their text), headings between the groups, where it is scrolled to on its
    /// lower border, and the search line at the bottom while there is one.
    static func help(_ model: ScreenModel, into grid: inout Grid) {
        guard case .help(let screen) = model.mode else { return }
        let height = helpHeight(height: grid.height, screen)
        let rows = helpRows(model.help, width: grid.width)
        let start = min(screen.scroll, max(0, rows.count - height))
        let rect = Layout.Rect(x: 0, y: 1, width: grid.width, height: grid.height - 2)
        grid.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        grid.cursor = nil
        let position = rows.count > height ? "\(start + 1)–\(min(rows.count, start + height)) of \(rows.count)" : nil
        Renderer.box("Keys · j/k scroll · / find · Esc closes", rect, focused: true, position: position, into: &grid)
        let inner = Layout.Rect(x: 2, y: 2, width: grid.width - 4, height: grid.height - 4)
        let keyWidth = helpKeyWidth(model.help)
        for (index, row) in rows.dropFirst(start).prefix(height).enumerated() {
            if row.isHeading {
                grid.put(row.text, x: inner.x, y: inner.y + index, role: .heading, limit: inner.width)
            } else {
                grid.put(row.keys, x: inner.x, y: inner.y + index, role: .key, limit: keyWidth)
                grid.put(row.text, x: inner.x + keyWidth + 2, y: inner.y + index, role: row.text.hasPrefix("[") ? .dim : .normal)
            }
        }
        if screen.searching || !screen.search.text.isEmpty {
            let y = inner.y + inner.height - 1
            let used = grid.put("/", x: inner.x, y: y, role: .key)
            let (text, cursor) = Renderer.visible(screen.search, width: inner.width - used)
            grid.put(text, x: inner.x + used, y: y)
            if screen.searching { grid.cursor = Grid.Point(x: inner.x + used + cursor, y: y) }
            if model.help.isEmpty { grid.put("  nothing here holds that", x: inner.x + used + text.columns, y: y, role: .dim) }
        }
    }

    /// Rows the help's lines take on a screen this wide (the same box `help` draws).
    static func helpRows(_ lines: [HelpLine], width: Int) -> [HelpLine] {
        let keyWidth = helpKeyWidth(lines)
        let textWidth = max(10, width - 4 - keyWidth - 2)
        var rows: [HelpLine] = []
        for (index, line) in lines.enumerated() {
            if line.isHeading {
                if index > 0 { rows.append(HelpLine(keys: "", text: "")) }
                rows.append(line)
                continue
            }
            // A disabled key's reason starts a row of its own, so it reads whole.
            let parts = line.text.components(separatedBy: " [")
            var wrapped = parts[0].wrapped(to: textWidth)
            for reason in parts.dropFirst() { wrapped += ("[" + reason).wrapped(to: textWidth) }
            for (n, text) in wrapped.enumerated() { rows.append(HelpLine(keys: n == 0 ? line.keys : "", text: text)) }
        }
        return rows
    }

    /// Rows of help on screen: the box's inside, less the search line while there is one.
    static func helpHeight(height: Int, _ screen: HelpScreen) -> Int {
        max(1, height - 4 - (screen.searching || !screen.search.text.isEmpty ? 1 : 0))  // top line, footer, two borders
    }

    private static func helpKeyWidth(_ lines: [HelpLine]) -> Int {
        min(16, lines.filter { !$0.isHeading }.map(\.keys.columns).max() ?? 0)
    }

    /// Buttons in a row, each a target for the mouse (its key as if pressed); where they do not fit as
    /// `[ Cancel ]`, narrower, down to the bare labels (the focused one still marked).
    static func buttons(_ items: [(label: String, focused: Bool, key: Key)], x: Int, y: Int, width: Int, into grid: inout Grid) {
        let styles: [(format: (String) -> String, gap: Int)] = [({ "[ \($0) ]" }, 2), ({ "[\($0)]" }, 1), ({ $0 }, 1)]
        let style = styles.first { style in
            items.map { style.format($0.label).columns + style.gap }.reduce(0, +) - style.gap <= width
        } ?? styles[styles.count - 1]
        var x = x
        for item in items {
            let used = grid.put(style.format(item.label), x: x, y: y, role: item.focused ? .selected : .normal)
            grid.target(item.key, x: x, y: y, width: used)
            x += used + style.gap
        }
    }

    static func confirm(_ confirmation: Confirmation, into grid: inout Grid) {
        var lines = confirmation.question.wrapped(to: grid.width > 40 ? min(56, grid.width - 8) : max(1, grid.width - 4))
        let inner = dialog("Confirm", width: max(30, lines.map(\.columns).max() ?? 0), height: lines.count + 2, into: &grid)
        // A screen smaller than the question: wrapped to the box, as many lines as leave room for the buttons.
        if (lines.map(\.columns).max() ?? 0) > inner.width { lines = confirmation.question.wrapped(to: max(1, inner.width)) }
        let gap = lines.count + 2 <= inner.height ? 1 : 0
        let room = max(0, inner.height - 1 - gap)
        if lines.count > room, room > 0 {
            lines = Array(lines.prefix(room))
            lines[room - 1] = (lines[room - 1] + " …").truncated(to: inner.width)
        }
        for (index, line) in lines.prefix(room).enumerated() { grid.put(line, x: inner.x, y: inner.y + index) }
        buttons([("Cancel", !confirmation.confirmFocused, .escape), (confirmation.confirmLabel, confirmation.confirmFocused, .char("y"))],
                x: inner.x, y: inner.y + min(lines.count, room) + gap, width: inner.width, into: &grid)
    }

    static func share(_ dialog: ShareDialog, into grid: inout Grid) {
        // Wide enough for the URL on one line where the terminal allows, so it can be selected whole.
        let inner = Overlays.dialog(dialog.title, width: min(grid.width - 6, max(70, (dialog.url?.columns ?? 0) + 1)), height: 9, into: &grid)
        var y = inner.y
        if let url = dialog.url {
            let said = switch (dialog.invitees.text.trimmingCharacters(in: .whitespaces).isEmpty, dialog.publicPermission) {
            case (false, _): "Shared. Send this URL to the people you invited:"
            case (true, .readWrite): "Shared. Anyone with this URL may read and change it:"
            case (true, .readOnly): "Shared. Anyone with this URL may read it:"
            case (true, .none): "Shared with nobody yet (add people in the share screen). Its URL:"
            }
            grid.put(said, x: inner.x, y: y)
            y += 2
            for line in url.wrapped(to: inner.width) {
                grid.put(line, x: inner.x, y: y, role: .key)
                y += 1
            }
            grid.put("(copied to the clipboard where the terminal allows)", x: inner.x, y: y + 1, role: .dim)
            buttons([("OK", true, .enter)], x: inner.x, y: inner.y + inner.height - 1, width: inner.width, into: &grid)
            return
        }
        func label(_ text: String, _ field: ShareDialog.Field) -> Int {
            grid.put(text, x: inner.x, y: y, role: dialog.field == field ? .key : .normal)
        }
        let used = label("Invite: ", .invitees)
        let (text, cursor) = Renderer.visible(dialog.invitees, width: inner.width - used)
        grid.put(text, x: inner.x + used, y: y)
        if dialog.field == .invitees { grid.cursor = Grid.Point(x: inner.x + used + cursor, y: y) }
        y += 1
        grid.put("emails or account names, comma-separated", x: inner.x + used, y: y, role: .dim)
        y += 2
        _ = label("They may:", .permission)
        grid.put("< \(dialog.permission.text) >", x: inner.x + 17, y: y, role: dialog.field == .permission ? .selected : .normal)
        y += 1
        _ = label("Anyone with URL:", .publicPermission)
        grid.put("< \(dialog.publicPermission.text) >", x: inner.x + 17, y: y, role: dialog.field == .publicPermission ? .selected : .normal)
        y += 2
        grid.put(dialog.working ? "sharing…" : "Tab moves · Space changes · Enter shares", x: inner.x, y: y, role: .dim)
        buttons([("Cancel", dialog.field == .cancel, .escape), ("Share", dialog.field == .share, .ctrl("s"))],
                x: inner.x, y: inner.y + inner.height - 1, width: inner.width, into: &grid)
    }

    /// `f`: each entry with a mark where it is on; the list scrolls to keep the selected one in view.
    static func filters(_ picker: FilterPicker, into grid: inout Grid) {
        let names = picker.entries.map { entry in
            switch entry.entry {
            case .everything: "All posts"
            case .notebook(let book): "Notebook " + book.title + (book.scope == .shared ? " (shared with you)" : "")
            case .kind(let kind): kind.rawValue.prefix(1).uppercased() + kind.rawValue.dropFirst()
            case .tag(let tag): "Tag " + tag
            case .owner(_, let name): "Owned by " + name
            }
        }
        let lines = zip(names, picker.entries).map { ($1.on ? "✓ " : "  ") + $0 }
        let inner = dialog("Show (Enter turns on or off; they combine)", width: max(48, lines.map(\.columns).max() ?? 0), height: lines.count, into: &grid)
        let top = max(0, picker.selection - inner.height + 1)
        for (index, line) in lines.enumerated().dropFirst(top).prefix(inner.height) {
            let y = inner.y + index - top
            grid.put(line, x: inner.x, y: y, limit: inner.width)
            if index == picker.selection { grid.paint(y: y, x: inner.x - 1, width: inner.width + 2, role: .selected) }
        }
    }
}

extension Overlays {
    /// The selected post's comments, one line each ("heather · 2h: text"), to pick one of yours.
    static func comments(_ model: ScreenModel, into grid: inout Grid) {
        guard case .pickComment(let picker) = model.mode, let lines = model.detail?.comments else { return }
        let inner = dialog("Comments · e edits, d deletes yours", width: min(grid.width - 6, 70), height: lines.count, into: &grid)
        let top = max(0, picker.selection - inner.height + 1)
        for (index, line) in lines.enumerated().dropFirst(top).prefix(inner.height) {
            let y = inner.y + index - top
            let used = grid.put(line.by + ": ", x: inner.x, y: y, role: .dim, limit: inner.width)
            grid.put(line.text.replacingOccurrences(of: "\n", with: " ").truncated(to: max(0, inner.width - used)), x: inner.x + used, y: y)
            if index == picker.selection { grid.paint(y: y, x: inner.x - 1, width: inner.width + 2, role: .selected) }
        }
    }
}

extension Overlays {
    /// History or trash: the list on top (its selected line marked), a rule, then the selected one's lines.
    static func browser(_ model: ScreenModel, into grid: inout Grid) {
        guard let browser = model.browser else { return }
        let inner = dialog(browser.title, width: grid.width - 6, height: grid.height - 6, into: &grid)  // the message line shows
        // A list with nothing below it (notices) takes the whole box; one over a body read whole, what the body leaves.
        let listHeight = browser.body.isEmpty ? min(browser.rows.count, inner.height)
            : browser.bodyFirst ? min(browser.rows.count, max(1, inner.height - 1 - browser.body.count))
            : min(browser.rows.count, max(1, inner.height / 3))
        let top = max(0, browser.selection - listHeight + 1)
        for (index, row) in browser.rows.enumerated().dropFirst(top).prefix(listHeight) {
            let y = inner.y + index - top
            grid.put(row.truncated(to: inner.width), x: inner.x, y: y)
            if index == browser.selection { grid.paint(y: y, x: inner.x - 1, width: inner.width + 2, role: .selected) }
        }
        let rule = inner.y + listHeight
        grid.put(String(repeating: "─", count: inner.width), x: inner.x, y: rule, role: .border)
        let room = max(0, inner.height - listHeight - 1)
        for (offset, line) in browser.body.prefix(room).enumerated() {
            // The last line that fits says so where the body goes on (a terminal too small for it).
            let cut = browser.bodyFirst && offset == room - 1 && browser.body.count > room
            grid.put(cut ? (line.text + " …").truncated(to: inner.width) : line.text.truncated(to: inner.width),
                     x: inner.x, y: rule + 1 + offset, role: line.role)
        }
    }
}

extension Overlays {
    /// The share screen over the body, with no box: the URL on lines of its own, nothing beside it.
    static func sharePage(_ model: ScreenModel, into grid: inout Grid) {
        guard let page = model.sharePage else { return }
        let bottom = grid.height - 3  // the message line and the footer stay
        grid.fill(x: 0, y: 1, width: grid.width, height: max(0, bottom))
        var y = 2
        func line(_ text: String, _ role: Role = .normal, x: Int = 1) {
            guard y <= bottom else { return }
            grid.put(text.truncated(to: max(0, grid.width - x)), x: x, y: y, role: role)
            y += 1
        }
        line(page.title, .heading)
        y += 1
        if let url = page.url {
            line(page.urlLabel, .dim)
            var rest = Substring(url)  // at the left edge, cut at the width: nothing but the URL on these lines
            while !rest.isEmpty, y <= bottom {
                let piece = rest.prefix(grid.width)
                grid.put(piece, x: 0, y: y, role: .key)
                rest = rest.dropFirst(piece.count)
                y += 1
            }
        } else {
            line("URL: this device cannot open it yet (its key comes with the next sync)", .dim)
        }
        y += 1
        line("Anyone with the URL: \(page.anyone)")
        y += 1
        let nameWidth = max(6, min(24, page.people.map(\.name.columns).max() ?? 0))
        let header = "NAME".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  ROLE          PERMISSION  STATUS"
        line(header, .heading)
        for (index, person) in page.people.enumerated() {
            let name = person.name.truncated(to: nameWidth)
            let text = name + String(repeating: " ", count: nameWidth - name.columns)
                + "  " + person.role.padding(toLength: 12, withPad: " ", startingAt: 0) + "  "
                + person.permission.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + person.status
            let row = y
            line(text)
            if index == page.selection, row <= bottom { grid.paint(y: row, x: 0, width: grid.width, role: .selected) }
        }
    }
}

/// The in-place editor of a post, drawn where the detail pane was.
enum PostFormView {
    static func draw(_ form: PostForm, in rect: Layout.Rect, into grid: inout Grid) {
        grid.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        Renderer.box(form.isNew ? "New post · Ctrl-S saves · Esc leaves" : "Editing · Ctrl-S saves · Esc leaves",
                     rect, focused: true, into: &grid)
        let x = rect.x + 2, width = rect.width - 4
        var y = rect.y + 1
        for field in [PostForm.Field.title, .tags, .location] {
            let name = ["Title:    ", "Tags:     ", "Location: "][field.rawValue]
            let used = grid.put(name, x: x, y: y, role: form.field == field ? .key : .dim)
            let (text, cursor) = Renderer.visible(form[field], width: width - used)
            grid.put(text, x: x + used, y: y)
            if form.field == field { grid.cursor = Grid.Point(x: x + used + cursor, y: y) }
            y += 1
        }
        grid.put(String(repeating: "─", count: max(0, width)), x: x, y: y, role: form.field == .content ? .key : .dim)
        y += 1
        let layout = form.content.layout(width: width)
        let height = rect.y + rect.height - 1 - y
        let top = min(max(0, layout.cursorRow - height + 1), max(0, form.scroll))
        let start = layout.cursorRow < top ? layout.cursorRow : (layout.cursorRow >= top + height ? layout.cursorRow - height + 1 : top)
        for (offset, row) in layout.rows.dropFirst(start).prefix(max(0, height)).enumerated() {
            grid.put(form.content.text(of: row), x: x, y: y + offset)
        }
        if form.field == .content { grid.cursor = Grid.Point(x: x + layout.cursorColumn, y: y + layout.cursorRow - start) }
    }
}
