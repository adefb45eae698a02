import Cloud
import Foundation
import Notes

/// The share screen: a share as it stands, for its owner to manage and for anyone in it to see who else is
/// and to copy its URL again (opened from the share's sealed link).
extension FrontEnd {
    func openShareScreen(_ post: Post) {
        let url = readStore("the share's URL", { try context.postSharing?.url(of: post) })
        state.mode = .shareScreen(ShareScreen(post: post, url: url ?? nil))
    }

    func shareScreenKey(_ screen: inout ShareScreen, _ key: Key) {
        let share = context.sharing.share(for: screen.post)
        let people = share?.currentParticipants ?? []
        let owner = screen.post.scope == .private
        let person = people.indices.contains(screen.selection) ? people[screen.selection] : nil
        let who = person.map(name(of:)) ?? "", address = person.map(address(of:)) ?? ""
        let post = screen.post
        switch key {
        case .escape, .char("q"), .enter:
            state.mode = .browse
            return
        case .down, .char("j"): screen.selection = min(max(0, people.count - 1), screen.selection + 1)
        case .up, .char("k"): screen.selection = max(0, screen.selection - 1)
        case .char("y"):
            guard let url = screen.url else { flash("this device cannot open the URL yet: sync, or ask the owner", .warning); break }
            clipboard = url
            flash("URL copied to the clipboard (where the terminal allows)")
        case .char("i") where owner:
            state.mode = .prompt(Prompt(purpose: .invite(post), label: "Invite (names or emails, comma-separated): "))
            return
        case .char("p") where owner:
            guard let person, person.role != .owner else { flash("the owner keeps the share", .warning); break }
            let permission: SharePermission = person.permission == .readWrite ? .readOnly : .readWrite
            cloudWork("\(who) is now \(permission.text) on \(sharedName(of: post).text)") { try $0.setPermission(permission, email: address, on: post) }
        case .char("x") where owner:
            guard let person, person.role != .owner else { flash("the owner keeps the share", .warning); break }
            state.mode = .shareScreen(screen)
            return confirm("Take \(who) off \(sharedName(of: post).text)? They lose it; nobody else does.", "Remove", .removeParticipant(post, address: address, name: who))
        case .char("P") where owner:
            let next: SharePermission = [.none: .readOnly, .readOnly: .readWrite, .readWrite: .none][share?.publicPermission ?? .none]!
            setPublicPermission(next, on: post)
        case .char("o") where owner:
            guard let sharing = context.postSharing else { break }
            askCloud({ try sharing.oneTimeLink(for: post, permission: .readOnly) }) { fe, made in
                switch made {
                case .success(let url):
                    fe.clipboard = url.absoluteString
                    fe.state.mode = .shareScreen(ShareScreen(post: post, url: url.absoluteString, oneTime: true))
                    fe.flash("a one-time link: it admits the first person to accept it, read-only, and nobody after")
                case .failure(let error):
                    fe.flash("\(error)", .error)
                }
            }
        case .char("i"), .char("p"), .char("x"), .char("P"), .char("o"):
            flash("shared with you by \(context.names(post.zone.owner)): only the owner changes the share", .warning)
        default: break
        }
        state.mode = .shareScreen(screen)
    }

    /// P: what anyone with the URL gets. Opening the share to its URL drops the invitations nobody accepted
    /// (a one-time link among them): said, and a one-time link on the screen gives way to the share's URL.
    func setPublicPermission(_ permission: SharePermission, on post: Post) {
        guard let sharing = context.postSharing else { return }
        askCloud({ () throws -> (before: Share, after: Share) in
            let before = try sharing.currentShare(of: post)
            return (before, try sharing.setPublicPermission(permission, on: post))
        }) { fe, outcome in
            switch outcome {
            case .success(let (before, after)):
                func pending(_ share: Share) -> [ShareParticipant] { share.participants.filter { $0.status == .pending } }
                var said = "anyone with the URL: \(permission == .none ? "nobody more" : permission.text)"
                let dropped = pending(before).filter { gone in !pending(after).contains { $0 == gone } }
                if !dropped.isEmpty {
                    said += "; \(dropped.count.counting("invitation")) nobody accepted "
                        + "no longer admit\(dropped.count == 1 ? "s" : "") anyone"
                    if dropped.contains(where: { $0.oneTimeID != nil }) { said += " (a one-time link among them)" }
                }
                if case .shareScreen(let screen) = fe.state.mode, screen.oneTime, screen.post.id == post.id,
                   !pending(after).contains(where: { $0.oneTimeID != nil }) {
                    fe.openShareScreen(post)  // the one-time link shown admits nobody now: the share's URL instead
                }
                fe.flash(said)
            case .failure(let error):
                fe.flash("\(error)", .error)
            }
            fe.context.sync?.refresh()
        }
    }

    func invite(_ text: String, to post: Post) {
        let people = text.commaSeparated
        guard !people.isEmpty else { return openShareScreen(post) }
        openShareScreen(post)
        cloudWork("invited \(people.joined(separator: ", ")); it waits in their invitations") {
            _ = try $0.share(post, inviting: people, permission: .readWrite)
        }
    }

    /// The share screen's lines, for the renderer: a URL on lines of their own, then the people.
    func shareScreenModel() -> ScreenModel.SharePage? {
        guard case .shareScreen(let screen) = state.mode else { return nil }
        let share = context.sharing.share(for: screen.post)
        let people = (share?.currentParticipants ?? []).map(participantRow)
        let title = share?.isZoneWide == true ? "notebook \(share?.title ?? screen.post.zone.name)" : "\"\(share?.title ?? screen.post.title)\""
        let whose = screen.post.scope == .private ? "yours" : "shared with you by \(context.names(screen.post.zone.owner))"
        let anyone = share.map { $0.publicPermission == .none ? "nobody more" : $0.publicPermission.text } ?? "?"
        let label = screen.oneTime ? "One-time link: it admits one person, read-only (copied; y copies it again):" : screen.fresh
            ? (share?.invitees.isEmpty == false
                ? "Shared. Those you invited find it in their invitations; or send them this URL (y copies it, and it is copied):"
                : "Shared. Send this URL to whoever should join (y copies it, and it is copied):")
            : "URL (y copies it):"
        return ScreenModel.SharePage(title: "Share of \(title) · \(whose)", urlLabel: label, url: screen.url, anyone: anyone, people: people,
                                     selection: min(screen.selection, max(0, people.count - 1)))
    }
}
