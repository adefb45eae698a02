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
}

extension SharingProvider {
    public func isShared(_ post: Post) -> Bool { post.scope == .shared || share(for: post) != nil }
    public func participants(for post: Post) -> [ShareParticipant] { share(for: post)?.participants ?? [] }
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

    public func share(for post: Post) -> Share? { try? store.share(for: post) }

    public func canEdit(_ post: Post) -> Bool { readOnlyReason(for: post) == nil }

    /// Participants may delete what they may edit, but not the root of a share: only its owner does.
    public func canDelete(_ post: Post) -> Bool {
        guard canEdit(post) else { return false }
        return post.scope == .private || share(for: post)?.rootRecord != post.id
    }

    public func readOnlyReason(for post: Post) -> String? {
        guard post.scope == .shared, share(for: post)?.participant(account.id)?.permission != .readWrite else { return nil }
        return "read-only: shared by \(name(post.zone.owner))"
    }
}
