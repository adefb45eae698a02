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
            // (Presence is advisory and lapses after presenceLasts: a failed goodbye only misleads for a while; the sync still merges.)
            inOrder(sharing) { try? $0.doneEditing(post) }
        }
        guard let editing else { return presenceCheckedFor = nil }
        if presenceCheckedFor != editing.recordID {
            presenceCheckedFor = editing.recordID
            guard context.sharing.isShared(editing) else { return }  // nobody else reads it: nothing to say
        } else if presenceAnnounced == nil || now.timeIntervalSince(presenceAnnounced!.at) < Self.presenceRenewed {
            return
        }
        presenceAnnounced = (editing, now)
        // (Advisory, as above: a failed announcement leaves others unaware for a while, and nothing else.)
        inOrder(sharing) { try? $0.announceEditing(editing, until: now.addingTimeInterval(Self.presenceLasts)) }
    }

    /// Runs presence calls off the loop one after another, in the order made (a goodbye must not overtake
    /// the hello it ends, or the others would see someone editing for minutes after they left).
    private func inOrder(_ sharing: PostSharing, _ call: @escaping @Sendable (PostSharing) -> Void) {
        let start = presenceCalls.withLock { calls -> Bool in
            calls.queue.append(call)
            defer { calls.running = true }
            return !calls.running
        }
        guard start else { return }
        context.background { [presenceCalls] in
            while let next = presenceCalls.withLock({ calls -> (@Sendable (PostSharing) -> Void)? in
                guard !calls.queue.isEmpty else { calls.running = false; return nil }
                return calls.queue.removeFirst()
            }) {
                next(sharing)
            }
        }
    }

    /// Who else is editing a post this device holds now; a newcomer is said once.
    func readPresences() -> String? {
        let now = context.now()
        // (Advisory: a store that cannot be read here is said by the list, which reads it too.)
        let others = (try? context.store.presences(besides: context.account.id, now: now)) ?? []
        let fresh = others.filter { presence in !presences.contains { $0.account == presence.account && $0.postID == presence.postID } }
        presences = others
        guard let first = fresh.first,
              // (A post this device does not hold yet is not named.)
              let post = try? context.store.post(id: first.postID, zone: first.zone, scope: first.zone.owner == context.account.id ? .private : .shared)
        else { return nil }
        return "\(context.names(first.account)) is editing \"\(post.title)\""
    }

    /// Who else is editing `post`, by name, for its detail.
    func editors(of post: Post) -> [String] {
        let now = context.now()
        return presences.filter { $0.postID == post.id && $0.zone == post.zone && $0.until > now }.map { context.names($0.account) }
    }
}

/// The presence calls of a front end, run in order by one background job at a time.
final class PresenceCalls: @unchecked Sendable {
    struct State {
        var queue: [@Sendable (PostSharing) -> Void] = []
        var running = false
    }

    private let lock = NSLock()
    private var state = State()

    func withLock<T>(_ body: (inout State) -> T) -> T { lock.withLock { body(&state) } }
}
