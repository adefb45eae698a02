import Cloud
import Foundation
import Notes

/// The inbox (`I`): invitations addressed to the account, accepted or declined without a URL. Its count
/// shows in the top line, read again after each sync round.
extension FrontEnd {
    /// How many invitations wait, asked of the cloud when the store changed (not every frame).
    func countInvitations() {
        invitationCount = (try? context.postSharing?.invitations().count) ?? 0
    }

    func openInbox() {
        guard let sharing = context.postSharing else { return }
        do {
            let invitations = try sharing.invitations()
            invitationCount = invitations.count
            guard !invitations.isEmpty else { return flash("no invitations wait for you") }
            state.mode = .inbox(InboxBrowser(invitations: invitations))
        } catch {
            flash("no invitations: \(error)", .error)
        }
    }

    func inboxKey(_ browser: inout InboxBrowser, _ key: Key) {
        switch key {
        case .escape, .char("q"):
            state.mode = .browse
            return
        case .down, .char("j"): browser.selection = min(browser.invitations.count - 1, browser.selection + 1)
        case .up, .char("k"): browser.selection = max(0, browser.selection - 1)
        case .char("a"), .enter, .char("x"):
            let invitation = browser.invitations[browser.selection]
            let title = invitation.metadata.title
            state.mode = .browse
            if key == .char("x") {
                return cloudWork("declined the invitation to \"\(title)\"") { try $0.declineInvitation(invitation.id) }
            }
            return cloudWork("accepted \"\(title)\" from \(invitation.metadata.ownerName)") { _ = try $0.acceptInvitation(invitation.id) }
        default: break
        }
        state.mode = .inbox(browser)
    }
}
