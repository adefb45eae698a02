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
            return (primary + more + applying.filter { $0.id == .help }).map {
                ScreenModel.FooterItem(key: $0.keys[0].description, label: $0.label, enabled: disabledReason($0.id) == nil)
            }
        case .help: return fixed([("j/k", "scroll"), ("Esc", "close")])
        case .prompt: return fixed([("Enter", "ok"), ("Esc", "cancel")])
        case .confirm: return fixed([("←→", "choose"), ("Enter", "do it"), ("y", "yes"), ("n/Esc", "no")])
        case .edit: return fixed([("^S", "save"), ("Esc", "leave"), ("Tab", "next field"), ("^Z", "undo")])
        case .share(let dialog) where dialog.url != nil: return fixed([("Enter", "close"), ("Esc", "close")])
        case .share: return fixed([("Tab", "next"), ("Space", "change"), ("Enter", "share"), ("Esc", "cancel")])
        case .pickNotebook: return fixed([("j/k", "choose"), ("Enter", "show"), ("Esc", "cancel")])
        case .pickComment: return fixed([("j/k", "choose"), ("e", "edit yours"), ("d", "delete yours"), ("Esc", "close")])
        case .history: return fixed([("j/k", "choose"), ("r", "restore this version"), ("Esc", "close")])
        case .trash: return fixed([("j/k", "choose"), ("r", "bring back"), ("Esc", "close")])
        case .notices: return fixed([("Esc", "close")])
        case .messages: return fixed([("j/k", "choose"), ("Esc", "close")])
        case .inbox: return fixed([("j/k", "choose"), ("a", "accept / let in"), ("x", "decline / deny"), ("b", "block"), ("Esc", "close")])
        case .shareScreen(let screen):
            let owner = screen.post.scope == .private
            // Copying the URL first: at 80 columns the last keys give way.
            return fixed([("y", "copy URL")]
                         + (owner ? [("i", "invite"), ("p", "permission"), ("x", "remove"), ("P", "anyone"), ("o", "one-time link")] : [])
                         + [("Esc", "back")])
        }
    }

    /// Keys the footer adds when there is room and they work now, most useful first (a participant needs `L`).
    static let footerExtras: [CommandID] = [
        .commandLine, .leave, .accept, .filter, .editExternal, .history, .comments, .shareNotebook, .stopSharing,
        .keepMine, .keepTheirs, .keepBoth, .inbox, .trash, .send, .newNotebook,
    ]

    func helpLines() -> [(keys: String, text: String)] {
        Commands.all.map { command in
            let reason = disabledReason(command.id).map { "  [\($0)]" } ?? ""
            return (command.keys.map(\.description).joined(separator: " "), "\(command.help) (:\(command.name))\(reason)")
        } + [("", ""), ("●", "changed by someone else since you looked"), ("» «", "shared by you · shared with you"),
             ("⊘ ! ↑", "read-only · conflict · waiting to be sent"), ("(n)", "comments")]
    }
}
