import Cloud
import Foundation
import GRDB

/// Who saves an edit: the account, the name people know it by, and the
/// device it is typed on (a conflict block names all three, and when).
public struct Editor: Equatable, Sendable {
    public var accountID: String
    public var name: String
    public var device: String

    public init(account: Account, device: String) {
        accountID = account.id
        name = account.name
        self.device = device
    }

    func author(at time: Date) -> Author { Author(name: name, device: device, at: time) }
}

/// What saving an edit did.
public struct SavedEdit: Sendable {
    /// The post as saved.
    public var post: Post
    /// Whose newer edit this one was merged with: the copy here had moved on from the edit's base.
    public var mergedWith: Author?
    /// Some part was changed on both sides: both texts are kept in a conflict block.
    public var conflicted: Bool
    /// The post had been deleted meanwhile; the edit brought it back.
    public var restored: Bool

    public init(post: Post, mergedWith: Author? = nil, conflicted: Bool = false, restored: Bool = false) {
        self.post = post
        self.mergedWith = mergedWith
        self.conflicted = conflicted
        self.restored = restored
    }
}

extension DeviceStore {
    /// Saves an edit a person made from `base` (the copy their screen or
    /// command started from), merged three ways with the newest copy the
    /// device holds: what others saved since the base survives beside the
    /// edit, and an overlapping change keeps both texts in a block naming
    /// their authors. The send merges once more against the cloud's copy.
    public func saveEdit(_ post: Post, from base: PostFields, by editor: Editor, now: Date) throws -> SavedEdit {
        try write(post.scope) { db in
            var post = post
            var here = try Self.localPost(db, post.scope, post.recordID)
            // Moved to another notebook while it was edited (by another process): the edit goes where the post is.
            if here == nil, let zone = try Self.zoneNow(db, post) {
                post.zone = zone
                here = try Self.localPost(db, post.scope, post.recordID)
            }
            var saved = post
            var mergedWith: Author?
            var conflicted = false
            let current = try here.map { try opened(db, $0) }
            if let current, current.fields != base {
                let theirs = author(of: current)
                let merged = PostMerge.merge(base: base, mine: .init(post.fields, by: editor.author(at: now)),
                                             theirs: .init(current.fields, by: theirs))
                saved.fields = merged.fields
                mergedWith = theirs
                conflicted = merged.conflicted
            }
            if let current {
                (saved.createdAt, saved.createdBy) = (current.createdAt, current.createdBy)
                // A location typed here replaces the sealed one (see `sealLocation`); one left alone keeps it.
                // Typed over one this device cannot open, it waits beside that one until both can be kept.
                if saved.location != current.location {
                    if current.locationLocked, let sealed = current.sealedLocation {
                        try Self.keepUnopened(db, post.scope, post.recordID, sealed: sealed)
                    }
                    saved.sealedLocation = nil
                } else {
                    saved.sealedLocation = current.sealedLocation  // the editor's copy may predate a sealed one that arrived
                }
                try Self.setAsideKnown(db, post.scope, [post.recordID])
            }
            try stampAndKeep(db, &saved, by: editor, now: now)
            return SavedEdit(post: saved, mergedWith: mergedWith, conflicted: conflicted, restored: current == nil)
        }
    }

    /// The notebook (of the same owner) that holds the post now, where it is not in its own: a post ID is one post's.
    static func zoneNow(_ db: Database, _ post: Post) throws -> ZoneID? {
        try Row.fetchOne(db, sql: "SELECT zone_name FROM \(schema(post.scope)).posts WHERE id = ? AND zone_owner = ? AND zone_name != ?",
                         arguments: [post.id, post.zone.owner, post.zone.name])
            .map { ZoneID(name: $0[0], owner: post.zone.owner) }
    }

    /// Resolves the post's conflict blocks as `choice` says, as an edit of the copy it holds now.
    public func resolve(_ post: Post, keeping choice: ConflictResolution.Choice, by editor: Editor, now: Date) throws -> SavedEdit {
        guard let current = try self.post(id: post.id, zone: post.zone, scope: post.scope) else { throw StoreError.unknownPost(post.id) }
        var resolved = current
        resolved.fields = try ConflictResolution.resolve(current.fields, keeping: choice, as: editor.author(at: now))
        return try saveEdit(resolved, from: current.fields, by: editor, now: now)
    }

    /// The author of the copy a post row holds, for a conflict label.
    func author(of post: Post) -> Author {
        Author(name: post.modifiedBy.map(names) ?? "someone", device: post.modifiedOn, at: post.modifiedAt)
    }

    private func stampAndKeep(_ db: Database, _ post: inout Post, by editor: Editor, now: Date) throws {
        post.modifiedAt = now
        post.modifiedBy = editor.accountID
        post.modifiedOn = editor.device
        if post.createdAt == nil {
            post.createdAt = now
            post.createdBy = editor.accountID
        }
        post.conflicted = ConflictBlock.isConflicted(post.fields)
        try Self.requireFits(post, holding: try Self.localPost(db, post.scope, post.recordID)?.title)
        try Self.upsert(db, post)
        try Self.markPending(db, post.scope, zone: post.zone, name: post.id, kind: .saveRecord)
    }
}
