import Cloud
import Foundation
import Notes

/// The inbox (`I`): invitations addressed to the account, accepted or declined without a URL. Its count
/// shows in the top line, as each sync round counts it (off this thread: the cloud may be a server).
extension FrontEnd {
    func openInbox() {
        guard let sharing = context.postSharing else { return }
        fromCloud("no invitations", { (try sharing.invitations(), try sharing.accessRequests().filter { $0.request.status == .pending }) }) { fe, found in
            let (invitations, requests) = found
            (fe.invitationCount, fe.requestCount) = (invitations.count, requests.count)
            guard !invitations.isEmpty || !requests.isEmpty else { return fe.flash("no invitations wait for you, and nobody asked to join your shares") }
            fe.state.mode = .inbox(InboxBrowser(invitations: invitations, requests: requests))
        }
    }

    func inboxKey(_ browser: inout InboxBrowser, _ key: Key) {
        switch key {
        case .escape, .char("q"):
            state.mode = .browse
            return
        case .down, .char("j"): browser.selection = min(browser.invitations.count + browser.requests.count - 1, browser.selection + 1)
        case .up, .char("k"): browser.selection = max(0, browser.selection - 1)
        case .char("a"), .enter, .char("x"), .char("b"):
            guard browser.selection >= browser.invitations.count else { return answerInvitation(browser, key) }
            let asked = browser.requests[browser.selection - browser.invitations.count]
            let whom = "\(asked.request.name) for \"\(asked.share.title)\""
            let (response, said): (AccessResponse, String) = switch key {
            case .char("x"): (.deny, "denied \(whom)")
            case .char("b"): (.block, "blocked \(whom)")
            default: (.approve(.readOnly), "let in \(whom), read-only (p in the share screen changes it)")
            }
            return answer(browser, said) { try $0.respond(to: asked, with: response) }
        default: break
        }
        state.mode = .inbox(browser)
    }

    private func answerInvitation(_ browser: InboxBrowser, _ key: Key) {
        guard key != .char("b") else { return }
        let invitation = browser.invitations[browser.selection]
        let title = invitation.metadata.title
        if key == .char("x") {
            return answer(browser, "declined the invitation to \"\(title)\"") { try $0.declineInvitation(invitation.id) }
        }
        answer(browser, "accepted \"\(title)\" from \(invitation.metadata.ownerName)") { _ = try $0.acceptInvitation(invitation.id) }
    }

    /// Answers the selected item: it leaves the inbox at once, which stays open on the next while any wait (so
    /// the next `a` answers that one, not the browser's `a`); a refusal says why and shows the inbox as the cloud
    /// has it again.
    private func answer(_ browser: InboxBrowser, _ said: String, _ work: @escaping @Sendable (PostSharing) throws -> Void) {
        guard let sharing = context.postSharing else { return }
        var rest = browser
        if browser.selection < browser.invitations.count {
            rest.invitations.remove(at: browser.selection)
        } else {
            rest.requests.remove(at: browser.selection - browser.invitations.count)
        }
        rest.selection = min(browser.selection, rest.invitations.count + rest.requests.count - 1)
        (invitationCount, requestCount) = (rest.invitations.count, rest.requests.count)
        state.mode = rest.invitations.isEmpty && rest.requests.isEmpty ? .browse : .inbox(rest)
        askCloud({ try work(sharing) }) { fe, outcome in
            switch outcome {
            case .success:
                fe.flash(said)
            case .failure(let error):
                fe.flash("\(error)", .error)
                if case .inbox = fe.state.mode { fe.openInbox() }
            }
            fe.context.sync?.refresh()
        }
    }
}
