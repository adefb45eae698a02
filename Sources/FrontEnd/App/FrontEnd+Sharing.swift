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
        case .enter, .ctrl("s"):  // ^S (and a press on Share) shares from any field
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
        let invitees = dialog.invitees.text.commaSeparated
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
        case .success(.updated(let permission, let url)):
            state.mode = .browse
            flash("anyone with the URL: \(permission.text) now" + (url == nil ? " (its URL comes with the next sync)" : ""))
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
}
