import Cloud
import Foundation

/// What a person does with shares, for the command line and the front end
/// alike: share a post or a notebook, invite, manage participants, stop,
/// leave, accept. Each call asks the cloud at once; the caller syncs after.
public struct PostSharing: Sendable {
    public let store: DeviceStore
    public let cloud: any Cloud
    public let account: Account

    public init(store: DeviceStore, cloud: any Cloud, account: Account) {
        self.store = store
        self.cloud = cloud
        self.account = account
    }

    /// What sharing made: the URL (shown once: the cloud keeps only its hash), or the people added to an existing share.
    public enum Outcome: Equatable, Sendable {
        case shared(ShareURL)
        case invited([String])
        /// Shared already, nobody named: its URL, shown again.
        case existing(String)
        /// Shared already: what anyone with its URL gets is now `publicPermission`; its URL where this device has it.
        case updated(publicPermission: SharePermission, url: String?)
    }

    /// Shares a post (its comments follow), or adds invitees to the share it already has; `publicPermission`,
    /// when given, is what anyone with the URL gets (none when a new share is made without it), set on an
    /// existing share too.
    public func share(_ post: Post, inviting invitees: [String], permission: SharePermission,
                      publicPermission: SharePermission? = nil) throws -> Outcome {
        guard post.scope == .private else { throw StoreError.invalid("\"\(post.title)\" is shared with you; only its owner shares it") }
        if let existing = try store.share(for: post) {
            guard !existing.isZoneWide else {
                throw StoreError.invalid("\"\(post.title)\" is in notebook \(post.zone.name), which is shared as a whole; share the notebook instead")
            }
            if let publicPermission { try setPublicPermission(publicPermission, on: post) }
            guard invitees.isEmpty else { return .invited(try invite(invitees, permission: permission, to: existing)) }
            let url = try store.shareURL(of: existing, scope: post.scope)
            if let publicPermission { return .updated(publicPermission: publicPermission, url: url) }
            guard let url else {
                throw StoreError.invalid("\"\(post.title)\" is shared already, and its URL is not on this device yet: sync, or name people to invite")
            }
            return .existing(url)
        }
        if let covering = try store.coveringShare(for: post) {
            throw StoreError.invalid("\"\(post.title)\" was filed under a shared post, and is shared with it (\"\(covering.title)\"): "
                                     + "share or stop sharing that one")
        }
        var share = Share(rootRecord: post.recordID, title: post.title, type: "Post")
        share.publicPermission = publicPermission ?? .none
        return .shared(try save(share, root: try store.record(for: post.recordID, in: .private), inviting: invitees, permission: permission))
    }

    /// Shares one of the account's notebooks as a whole: posts added later reach the participants too.
    public func share(notebook title: String, inviting invitees: [String], permission: SharePermission,
                      publicPermission: SharePermission = .none) throws -> ShareURL {
        guard let book = try store.notebooks().first(where: { $0.title == title && $0.scope == .private }) else {
            throw StoreError.invalid("no notebook of yours named \"\(title)\"")
        }
        if let existing = try zoneShare(of: book) {
            // Shared as a whole already: the people named join that share (as more are invited to a post's), and its
            // URL is given again. (Saying it was shared already left no way to invite anyone more, or again.)
            if !invitees.isEmpty { _ = try invite(invitees, permission: permission, to: existing) }
            guard let link = try store.shareURL(of: existing, scope: .private) else {
                throw StoreError.invalid("notebook \(title) is shared already, and its URL is not on this device yet: sync, and ask again")
            }
            return try ShareURL(parsing: link)
        }
        var share = Share(zoneWide: book.zone, title: title, type: "Notebook")
        share.publicPermission = publicPermission
        return try save(share, root: nil, inviting: invitees, permission: permission)
    }

    /// The share of a notebook shared as a whole, as the cloud has it; nil when it is not.
    private func zoneShare(of book: Notebook) throws -> Share? {
        do {
            return try cloud.database(.private, as: account).fetchShare(RecordID(name: Share.zoneWideRecordName, zone: book.zone))
        } catch let error as CloudError {
            if case .unknownItem = error { return nil }
            if case .zoneNotFound = error { return nil }  // (not in the cloud yet: the share makes it)
            throw error
        }
    }

    /// The URL of the share a post belongs to, shown again from its sealed link (the owner's devices and the
    /// share's participants hold the key); nil where this device cannot open it (yet).
    public func url(of post: Post) throws -> String? {
        guard let share = try store.coveringShare(for: post) else { throw StoreError.invalid("\"\(post.title)\" is not shared") }
        return try store.shareURL(of: share, scope: post.scope)
    }

    /// The share a post belongs to, as the cloud has it now; `throughParents`, to read it, also the share of a post
    /// it was filed under (`DeviceStore.coveringShare`), which is managed through that post, not this one.
    public func currentShare(of post: Post, throughParents: Bool = false) throws -> Share {
        let local = try throughParents ? store.coveringShare(for: post) : store.share(for: post)
        let id = local?.id ?? RecordID(name: "share-" + post.id, zone: post.zone)
        do {
            return try database(post).fetchShare(id)
        } catch {
            if !throughParents, let covering = try store.coveringShare(for: post) {
                throw StoreError.invalid("\"\(post.title)\" was filed under a shared post, and is shared with it (\"\(covering.title)\"): "
                                         + "manage that one")
            }
            throw StoreError.invalid("\"\(post.title)\" is not shared")
        }
    }

    public func removeParticipant(email: String, from post: Post) throws {
        let share = try currentShare(of: post)
        try database(post).removeParticipant(try participantID(email: email, in: share, post: post), from: share.id)
        try closeKeys(of: post)
    }

    /// Takes someone off a notebook of this account's shared as a whole (one with no post yet too).
    public func removeParticipant(email: String, from book: Notebook) throws {
        let share = try ownZoneShare(of: book, changing: "who takes part in it")
        let id = try participantID(email: email, in: share, subject: "notebook \(book.title)")
        try cloud.database(.private, as: account).removeParticipant(id, from: share.id)
        try closeKeys(of: book.zone)
    }

    public func setPermission(_ permission: SharePermission, email: String, on post: Post) throws {
        let share = try currentShare(of: post)
        try database(post).setPermission(permission, for: try participantID(email: email, in: share, subject: "\"\(post.title)\""), on: share.id)
    }

    /// Changes a participant's permission on a notebook of this account's shared as a whole (one with no post yet too).
    public func setPermission(_ permission: SharePermission, email: String, on book: Notebook) throws {
        let share = try ownZoneShare(of: book, changing: "who may do what in it")
        let id = try participantID(email: email, in: share, subject: "notebook \(book.title)")
        try cloud.database(.private, as: account).setPermission(permission, for: id, on: share.id)
    }

    /// The share of a notebook of this account's shared as a whole, or why there is none to change.
    private func ownZoneShare(of book: Notebook, changing what: String) throws -> Share {
        guard book.scope == .private else { throw StoreError.invalid("only the owner of notebook \(book.title) changes \(what)") }
        guard let share = try zoneShare(of: book) else { throw StoreError.invalid("notebook \(book.title) is not shared as a whole") }
        return share
    }

    /// What anyone holding the share's URL gets (none, read-only, read-write).
    /// Opening it to its URL drops the invitations nobody accepted yet (as CloudKit does): the share returned says who is left.
    @discardableResult
    public func setPublicPermission(_ permission: SharePermission, on post: Post) throws -> Share {
        let share = try currentShare(of: post)
        return try database(post).setPublicPermission(permission, on: share.id)
    }

    /// The owner ends the share: every participant loses it.
    public func stopSharing(_ post: Post) throws {
        guard post.scope == .private else { throw StoreError.invalid("only the owner stops sharing; leave it instead") }
        try database(post).deleteShare(try currentShare(of: post).id)
        try closeKeys(of: post)
    }

    /// The owner ends a notebook's share as a whole (one with no post yet too): every participant loses the notebook.
    public func stopSharing(notebook book: Notebook) throws {
        let share = try ownZoneShare(of: book, changing: "who takes part in it")
        try cloud.database(.private, as: account).deleteShare(share.id)
        try closeKeys(of: book.zone)
    }

    /// A participant leaves: only they lose it.
    public func leave(_ post: Post) throws {
        guard post.scope == .shared else { throw StoreError.invalid("\"\(post.title)\" is yours; stop sharing it instead") }
        // In a notebook shared as a whole: that share is the one to leave (the post has none of its own).
        if try store.coveringShare(for: post)?.isZoneWide == true {
            return try database(post).deleteShare(RecordID(name: Share.zoneWideRecordName, zone: post.zone))
        }
        try database(post).deleteShare(try currentShare(of: post).id)
    }

    /// Leaves a notebook shared with this account as a whole (one with no post left to name, too).
    public func leave(notebook book: Notebook) throws {
        guard book.scope == .shared else { throw StoreError.invalid("notebook \(book.title) is yours; stop sharing it instead") }
        try cloud.database(.shared, as: account).deleteShare(RecordID(name: Share.zoneWideRecordName, zone: book.zone))
    }

    public func accept(_ url: String) throws -> ShareMetadata {
        try cloud.acceptShare(try ShareURL(parsing: url), as: account)
    }

    /// Asks the owner of the share behind `url` to let this account in (a URL it was not invited to).
    public func requestAccess(_ url: String) throws {
        try cloud.requestAccess(try ShareURL(parsing: url), as: account)
    }

    /// A request to join one of this account's shares.
    public struct Request: Equatable, Sendable {
        public var share: Share
        public var request: AccessRequest
    }

    /// The requests to join this account's shares (those this device knows), blocked ones too: one cloud read.
    public func accessRequests() throws -> [Request] {
        let shares = Dictionary(try store.ownShares().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return try cloud.accessRequests(ownedBy: account).compactMap { asked in
            shares[asked.shareID].map { Request(share: $0, request: asked.request) }
        }
    }

    /// Approves (with a permission), denies or blocks a request; an approved participant gets the notebook's key.
    public func respond(to request: Request, with response: AccessResponse) throws {
        let db = cloud.database(.private, as: account)
        let share = try db.respond(to: request.request.userRecordID, requestingAccessTo: request.share.id, with: response)
        if case .approve = response {
            try store.grantKeys(zone: share.id.zone, root: share.rootRecord, to: share.invitees.compactMap(\.userRecordID))
        }
    }

    /// A link that admits exactly one person, the first to accept it, to the share the post belongs to.
    public func oneTimeLink(for post: Post, permission: SharePermission) throws -> ShareURL {
        let share = try currentShare(of: post)
        return try cloud.database(.private, as: account).makeOneTimeInvitation(for: share.id, permission: permission).url
    }

    /// Invitations waiting for this account, to accept or decline without a URL.
    public func invitations() throws -> [InboxInvitation] {
        try cloud.invitations(for: account)
    }

    public func acceptInvitation(_ id: String) throws -> ShareMetadata {
        try cloud.acceptInvitation(id, as: account)
    }

    public func declineInvitation(_ id: String) throws {
        try cloud.declineInvitation(id, as: account)
    }

    // MARK: Helpers

    private func database(_ post: Post) -> CloudDatabase { cloud.database(post.scope, as: account) }

    /// After someone lost the share: the owner's notebook key rotates at once, so that nothing this device seals
    /// from now on opens with a key they held (the next sync's repair would, but its send comes first).
    private func closeKeys(of post: Post) throws {
        guard post.scope == .private else { return }  // an administrator removing someone: the owner's devices rotate
        try closeKeys(of: post.zone)
    }

    /// Made to shut out everyone removed from the notebook's shares, as the next repair counts them (see
    /// `DeviceStore.repairKeyGrants`), so it need not make another.
    private func closeKeys(of zone: ZoneID) throws {
        let shares = try cloud.database(.private, as: account).shares(in: zone)
        try store.rotateKeys(zone: zone, excluding: DeviceStore.shutOut(of: shares, owner: account.id))
    }

    /// Saves a new share with its root (only if the cloud still has the version this device knows, so
    /// nobody's newer edit is overwritten), then grants the zone's key to each participant.
    private func save(_ share: Share, root: Record?, inviting invitees: [String], permission: SharePermission) throws -> ShareURL {
        let db = cloud.database(.private, as: account)
        var share = share
        for participant in try lookUp(invitees, in: db) { share.addParticipant(participant, permission: permission) }
        switch Result(catching: { () throws(CloudError) in try db.saveShare(share, rootRecord: root) }) {
        case .success(let saved):
            let ids = saved.share.invitees.compactMap(\.userRecordID)
            try store.grantKeys(zone: saved.share.id.zone, root: saved.share.rootRecord, to: ids)
            // Kept sealed to be shown again; the share stands without it (the URL is shown now whatever happens).
            try? store.keepShareLink(saved.url!, of: saved.share)
            return saved.url!
        case .failure(.serverRecordChanged):
            throw StoreError.invalid("\"\(share.title)\" changed in the cloud meanwhile; sync and share again")
        case .failure(.alreadyShared):
            throw StoreError.invalid(share.isZoneWide
                ? "notebook \(share.title) already has shared posts or is shared already"
                : "\"\(share.title)\" already belongs to a share (its notebook may be shared as a whole)")
        case .failure(let error):
            throw error
        }
    }

    private func invite(_ invitees: [String], permission: SharePermission, to share: Share) throws -> [String] {
        let db = cloud.database(.private, as: account)
        var updated = share
        for participant in try lookUp(invitees, in: db) {
            updated = try db.addParticipant(participant, permission: permission, to: share.id)
        }
        let ids = updated.invitees.compactMap(\.userRecordID)
        try store.grantKeys(zone: share.id.zone, root: share.rootRecord, to: ids)
        return invitees
    }

    /// Invitees by email, or by account name when there is no '@' (a server finds by name only the people this
    /// account shares with already: anyone else is invited by their email).
    private func lookUp(_ invitees: [String], in db: CloudDatabase) throws -> [ShareParticipant] {
        try invitees.map { who in
            if who.contains("@") { return try db.lookUpParticipant(email: who) }
            let found = Result { () throws(CloudError) in try db.lookUpParticipant(accountName: who) }
            if case .failure(let error) = found, case .unknownAccount = error {
                throw StoreError.invalid("no account \(who.inlineQuoted) among the people you share with: invite them by their email")
            }
            return try found.get()
        }
    }

    private func participantID(email: String, in share: Share, post: Post) throws -> String {
        try participantID(email: email, in: share, subject: "\"\(post.title)\"")
    }

    /// `subject`: the share as the refusal names it.
    private func participantID(email: String, in share: Share, subject: String) throws -> String {
        let match = share.currentParticipants.first {
            $0.email?.lowercased() == email.lowercased() || $0.name?.lowercased() == email.lowercased()
        }
        guard let match, let id = match.userRecordID else { throw StoreError.invalid("\(email) does not take part in \(subject)") }
        // (The cloud refuses it too, as an account that takes no part: the person is told what they asked of whom.)
        guard match.role != .owner else {
            throw StoreError.invalid("\(email) owns \(subject): the owner always reads and writes it, and cannot be taken off")
        }
        return id
    }
}
