import Cloud
import Foundation
import Notes

/// Presence: while this front end's editor is open on a shared post, the post's other readers see so
/// ("heather is editing 'Meeting'"), and this front end shows who else is editing what it shows.
extension FrontEnd {
    /// How long an announcement stands without being renewed (an editor that crashed says nothing more).
    static let presenceLasts: TimeInterval = 300
    static let presenceRenewed: TimeInterval = 120

    /// Announces or ends this front end's presence as its editor opens, stays open, or closes. Cloud calls run
    /// off the loop, and their failures (a read-only share, no network) cost only the presence.
    func updatePresence() {
        guard let sharing = context.postSharing else { return }
        var editing: Post?
        if case .edit(let form) = state.mode, !form.isNew { editing = form.post }
        let now = context.now()
        if let announced = presenceAnnounced, announced.post.recordID != editing?.recordID {
            let post = announced.post
            presenceAnnounced = nil
            context.background { try? sharing.doneEditing(post) }
        }
        guard let editing else { return presenceCheckedFor = nil }
        if presenceCheckedFor != editing.recordID {
            presenceCheckedFor = editing.recordID
            guard context.sharing.isShared(editing) else { return }  // nobody else reads it: nothing to say
        } else if presenceAnnounced == nil || now.timeIntervalSince(presenceAnnounced!.at) < Self.presenceRenewed {
            return
        }
        presenceAnnounced = (editing, now)
        context.background { try? sharing.announceEditing(editing, until: now.addingTimeInterval(Self.presenceLasts)) }
    }

    /// Who else is editing a post this device holds now; a newcomer is said once.
    func readPresences() -> String? {
        let now = context.now()
        let others = (try? context.store.presences(besides: context.account.id, now: now)) ?? []
        let fresh = others.filter { presence in !presences.contains { $0.account == presence.account && $0.postID == presence.postID } }
        presences = others
        guard let first = fresh.first,
              let post = try? context.store.post(id: first.postID, zone: first.zone, scope: first.zone.owner == context.account.id ? .private : .shared)
        else { return nil }
        return "\(context.names(first.account)) is editing '\(post.title)'"
    }

    /// Who else is editing `post`, by name, for its detail.
    func editors(of post: Post) -> [String] {
        presences.filter { $0.postID == post.id && $0.zone == post.zone }.map { context.names($0.account) }
    }
}
