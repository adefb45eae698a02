import Cloud

/// What the app asks about a post's sharing, in one place, so the front end
/// can be tested with a stand-in instead of a cloud (the Posts sample's
/// SharingProvider).
public protocol SharingProvider: Sendable {
    func isShared(_ post: Post) -> Bool
    func participants(for post: Post) -> [ShareParticipant]
    func share(for post: Post) -> Share?
    func canEdit(_ post: Post) -> Bool
    func canDelete(_ post: Post) -> Bool
    /// Why the account may not change the post ("read-only: shared by heather"); nil when it may.
    func readOnlyReason(for post: Post) -> String?
    /// The list's markers for a screenful of posts, asked at once.
    func marks(for posts: [Post]) -> [SharingMark]
}

/// What a list row shows of a post's sharing.
public struct SharingMark: Equatable, Sendable {
    public enum Sharing: Equatable, Sendable {
        case notShared
        /// Someone besides the owner is invited or in, or anyone with the URL may join.
        case byMe
        case withMe
    }

    public var sharing: Sharing
    public var readOnly: Bool

    public init(sharing: Sharing, readOnly: Bool) {
        self.sharing = sharing
        self.readOnly = readOnly
    }

    init(_ post: Post, share: Share?, readOnly: Bool) {
        if post.scope == .shared {
            sharing = .withMe
        } else if let share, !share.invitees.isEmpty || share.publicPermission != .none {
            sharing = .byMe
        } else {
            sharing = .notShared  // never shared, or nobody left in it
        }
        self.readOnly = readOnly
    }
}

extension SharingProvider {
    public func isShared(_ post: Post) -> Bool { post.scope == .shared || share(for: post) != nil }
    public func participants(for post: Post) -> [ShareParticipant] { share(for: post)?.participants ?? [] }
    public func marks(for posts: [Post]) -> [SharingMark] { posts.map { SharingMark($0, share: share(for: $0), readOnly: !canEdit($0)) } }
}

/// The sharing provider of a device: answers from the share records the
/// device has fetched, for the account signed into it.
public struct StoreSharingProvider: SharingProvider {
    let store: DeviceStore
    let account: Account
    /// Turns a user record ID into a name for messages.
    let name: @Sendable (String) -> String

    public init(store: DeviceStore, account: Account, name: @escaping @Sendable (String) -> String) {
        self.store = store
        self.account = account
        self.name = name
    }

    // (A store that cannot be read answers "not shared", and a participant's post then reads as read-only, the safe
    // side; the list, which reads the same store, says it cannot. A throwing provider is for the seams of issue 40.)
    public func share(for post: Post) -> Share? { try? store.coveringShare(for: post) }

    public func canEdit(_ post: Post) -> Bool { readOnlyReason(for: post) == nil }

    /// Participants may delete what they may edit, but not the root of a share: only its owner does.
    public func canDelete(_ post: Post) -> Bool {
        guard canEdit(post) else { return false }
        return post.scope == .private || share(for: post)?.rootRecord != post.id
    }

    public func readOnlyReason(for post: Post) -> String? {
        readOnlyReason(for: post, share: post.scope == .shared ? share(for: post) : nil)
    }

    /// One read for the whole screenful, and one share lookup per post.
    public func marks(for posts: [Post]) -> [SharingMark] {
        let shares = (try? store.shares(for: posts)) ?? posts.map { _ in nil }  // (as `share(for:)`)
        return zip(posts, shares).map { post, share in
            SharingMark(post, share: share, readOnly: readOnlyReason(for: post, share: share) != nil)
        }
    }

    private func readOnlyReason(for post: Post, share: Share?) -> String? {
        guard post.scope == .shared, share?.participant(account.id)?.permission != .readWrite else { return nil }
        return "read-only: shared by \(name(post.zone.owner))"
    }
}
