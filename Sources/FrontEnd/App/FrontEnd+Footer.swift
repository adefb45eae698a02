import Foundation
import Notes

/// The footer and the `?` help, both from the command registry and the dialogs' key table (`KeyArea`).
extension FrontEnd {
    func footer() -> [ScreenModel.FooterItem] {
        func fixed(_ items: [(String, String)]) -> [ScreenModel.FooterItem] {
            items.map { ScreenModel.FooterItem(key: $0.0, label: $0.1, enabled: true) }
        }
        switch state.mode {
        case .browse:
            // The footer's own keys (greyed where they do not apply), then, as the width allows, the other keys
            // that work here now, most useful first; help stays last (the renderer drops from before it).
            let applying = Commands.all.filter { $0.applies(in: state.focus) && !$0.keys.isEmpty }
            let primary = applying.filter { $0.inFooter && $0.id != .help }
            let more = Self.footerExtras.compactMap { id in applying.first { $0.id == id && !$0.inFooter && disabledReason(id) == nil } }
            // The pane's own moves first where they are not the list's: what j/k and Esc do there.
            let lead: [(String, String)] = switch state.focus {
            case .list: []
            case .detail: [("j/k", "scroll"), ("Esc", "list")]
            case .participants: [("j/k", "choose"), ("Esc", "list")]
            }
            return lead.map { ScreenModel.FooterItem(key: $0.0, label: $0.1, enabled: true) }
                + (primary + more + applying.filter { $0.id == .help }).map {
                    ScreenModel.FooterItem(key: $0.keys[0].description, label: $0.label, enabled: disabledReason($0.id) == nil)
                }
        default:
            guard let area = keyArea else { return [] }
            // Where the post is not the account's own, the share screen's owner keys do not apply.
            let ownerOnly: Set<String> = ["i", "p", "x", "P", "o"]
            var keys = area.keys
            if case .shareScreen(let screen) = state.mode, screen.post.scope != .private { keys.removeAll { ownerOnly.contains($0.key) } }
            return keys.map { ScreenModel.FooterItem(key: $0.key, label: $0.label, enabled: true) }
        }
    }

    /// Where keys go now, outside the browser.
    var keyArea: KeyArea? {
        switch state.mode {
        case .browse: nil
        case .help: .help
        case .prompt(let prompt):
            switch prompt.purpose {
            case .search: .searchLine
            case .command: .commandLine
            default: .promptLine
            }
        case .confirm: .confirm
        case .edit: .editor
        case .share(let dialog): dialog.url == nil ? .shareDialog : .shareURL
        case .pickFilter: .filters
        case .pickComment: .comments
        case .history: .history
        case .trash: .trash
        case .notices: .notices
        case .messages: .messages
        case .inbox: .inbox
        case .shareScreen: .shareScreen
        }
    }

    /// Keys the footer adds when there is room and they work now, most useful first (a participant needs `L`).
    static let footerExtras: [CommandID] = [
        .commandLine, .leave, .accept, .filter, .editExternal, .history, .comments, .shareNotebook, .stopSharing,
        .keepMine, .keepTheirs, .keepBoth, .inbox, .trash, .send, .newNotebook,
    ]

    /// Every key, grouped by where it works: the browser's commands from the registry (each disabled one with
    /// its reason in full), then each dialog's, then what the list's marks mean. `matching`: only the lines
    /// holding it (and their headings).
    func helpLines(matching search: String = "") -> [HelpLine] {
        let browser: [Set<Pane>] = [[], [.list, .detail], [.list], [.participants]]
        var groups: [(String, [HelpLine])] = browser.map { (Self.where($0), []) }
        func add(_ title: String, _ line: HelpLine) {
            if let index = groups.firstIndex(where: { $0.0 == title }) { groups[index].1.append(line) } else { groups.append((title, [line])) }
        }
        for command in Commands.all {
            let reason = disabledReason(command.id).map { " [\($0)]" } ?? ""
            let keys = command.keys.isEmpty ? ":\(command.name)" : command.keys.map(\.description).joined(separator: " ")
            let line = HelpLine(keys: keys, text: "\(command.help) (:\(command.name))\(reason)")
            add(command.keys.isEmpty ? "Commands without a key (type : and the name)" : Self.where(command.panes), line)
        }
        for area in KeyArea.allCases { for (key, label) in area.keys { add(area.title, HelpLine(keys: key, text: label)) } }
        groups.append(("What the list's marks mean", [
            HelpLine(keys: "●", text: "changed by someone else since you looked"),
            HelpLine(keys: "» «", text: "shared by you · shared with you"),
            HelpLine(keys: "⊘ ! ↑", text: "read-only · conflict · waiting to be sent"),
            HelpLine(keys: "(n)", text: "comments"),
        ]))
        let wanted = search.trimmingCharacters(in: .whitespaces)
        return groups.filter { !$0.1.isEmpty }.flatMap { title, lines in
            let shown = wanted.isEmpty || Self.holds(title, wanted) ? lines : lines.filter { Self.holds($0.keys + " " + $0.text, wanted) }
            return shown.isEmpty ? [] : [.heading(title)] + shown
        }
    }

    private static func holds(_ text: String, _ wanted: String) -> Bool {
        text.range(of: wanted, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }

    /// A help heading for where a browser command works.
    private static func `where`(_ panes: Set<Pane>) -> String {
        switch panes {
        case []: "Everywhere in the browser"
        case [.list, .detail]: "On the selected post (list or detail)"
        case [.list]: "In the list"
        case [.participants]: "In the participants pane"
        default: "In " + Pane.allCases.filter(panes.contains).map(\.rawValue).joined(separator: " and ")
        }
    }
}
