import Cloud
import Foundation
import Notes

/// Sharing from the front end: the dialog, accepting, and managing people.
/// Each talks to the cloud off the event loop's thread.
extension FrontEnd {
    func shareKey(_ dialog: inout ShareDialog, _ key: Key) {
        if dialog.url != nil {
            if [.escape, .enter, .char("q")].contains(key) { state.mode = .browse }
            return
        }
        guard !dialog.working else { return }
        let fields = ShareDialog.Field.allCases
        switch key {
        case .escape, .ctrl("c"):
            return state.mode = .browse
        case .tab, .down:
            dialog.field = fields[(dialog.field.rawValue + 1) % fields.count]
        case .backTab, .up:
            dialog.field = fields[(dialog.field.rawValue + fields.count - 1) % fields.count]
        case .char(" ") where dialog.field == .permission, .left where dialog.field == .permission, .right where dialog.field == .permission:
            dialog.permission = dialog.permission == .readWrite ? .readOnly : .readWrite
        case .char(" ") where dialog.field == .publicPermission, .right where dialog.field == .publicPermission:
            dialog.publicPermission = [.none: .readOnly, .readOnly: .readWrite, .readWrite: .none][dialog.publicPermission]!
        case .left where dialog.field == .publicPermission:
            dialog.publicPermission = [.none: .readWrite, .readOnly: .none, .readWrite: .readOnly][dialog.publicPermission]!
        case .enter where dialog.field == .cancel:
            return state.mode = .browse
        case .enter:
            dialog.working = true
            state.mode = .share(dialog)
            return submitShare(dialog)
        default:
            if dialog.field == .invitees { edit(&dialog.invitees, key) }
        }
        state.mode = .share(dialog)
    }

    func submitShare(_ dialog: ShareDialog) {
        guard let sharing = context.postSharing else { return }
        let invitees = dialog.invitees.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        context.background { [self] in
            let outcome = Result { () throws -> PostSharing.Outcome in
                switch dialog.target {
                case .post(let post):
                    return try sharing.share(post, inviting: invitees, permission: dialog.permission, publicPermission: dialog.publicPermission)
                case .notebook(let book):
                    return .shared(try sharing.share(notebook: book.title, inviting: invitees, permission: dialog.permission,
                                                     publicPermission: dialog.publicPermission))
                }
            }
            post { fe in fe.shared(dialog, outcome) }
        }
    }

    func shared(_ dialog: ShareDialog, _ outcome: Result<PostSharing.Outcome, any Error>) {
        var dialog = dialog
        dialog.working = false
        switch outcome {
        case .success(.shared(let url)):
            // The share screen, where the URL stands on lines of its own (a mouse copy picks up no border).
            clipboard = url.absoluteString
            if let post = selectedPost {
                state.mode = .shareScreen(ShareScreen(post: post, url: url.absoluteString, fresh: true))
            } else {
                dialog.url = url.absoluteString
                state.mode = .share(dialog)
            }
        case .success(.existing(let url)):
            dialog.url = url
            clipboard = url
            state.mode = .share(dialog)
        case .success(.invited(let people)):
            state.mode = .browse
            flash("invited \(people.joined(separator: ", ")); it waits in their invitations")
        case .failure(let error):
            state.mode = .share(dialog)
            flash("not shared: \(error)", .error)
        }
        changed()
    }

    func accept(_ url: String) {
        guard let sharing = context.postSharing else { return }
        guard !url.isEmpty else { return }
        context.background { [self] in
            let outcome = Result { try sharing.accept(url) }
            post { fe in
                switch outcome {
                case .success(let metadata):
                    fe.flash("accepted \"\(metadata.title)\" from \(metadata.ownerName) (\(metadata.permission.text)); fetching it…")
                    fe.context.sync?.refresh()
                case .failure(let error):
                    if let refused = error as? CloudError, case .participantNotInvited(let why) = refused, why.contains("request access") {
                        // Holding a URL one was not invited to: the owner may be asked.
                        return fe.confirm("You are not invited to this share. Ask its owner to let you in?", "Ask for access", .requestAccess(url))
                    }
                    fe.flash("not accepted: \(error)", .error)
                }
            }
        }
    }

    /// A call to the cloud about a share, off the loop; then a flash and a refresh.
    func cloudWork(_ success: String, _ work: @escaping @Sendable (PostSharing) throws -> Void) {
        guard let sharing = context.postSharing else { return }
        askCloud({ try work(sharing) }) { fe, outcome in
            switch outcome {
            case .success: fe.flash(success)
            case .failure(let error): fe.flash("\(error)", .error)
            }
            fe.context.sync?.refresh()
        }
    }

    // MARK: Footer and help

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
