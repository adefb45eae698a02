import Cloud
import Foundation

/// A post's history and the trash, as the cloud keeps them: the same for every reader of the post on every
/// device (nothing of it is stored here). Restoring is an edit like any other: it merges with what the post
/// holds now, so a restore never loses words typed since.
public struct PostHistory: Sendable {
    public let store: DeviceStore
    public let cloud: any Cloud
    public let account: Account

    public init(store: DeviceStore, cloud: any Cloud, account: Account) {
        self.store = store
        self.cloud = cloud
        self.account = account
    }

    /// A post as one save left it: its content then, and who changed it and when (`post.modifiedBy/At`).
    /// `number` is the cloud's number of the last save that still held this content, so it names the same
    /// version to every reader, whichever of its saves they could read; `numbers` are all those saves.
    public struct Version: Equatable, Sendable {
        public var number: Int
        public var post: Post
        public var isCurrent: Bool
        public var numbers: ClosedRange<Int>

        public init(number: Int, post: Post, isCurrent: Bool, numbers: ClosedRange<Int>? = nil) {
            self.number = number
            self.post = post
            self.isCurrent = isCurrent
            self.numbers = numbers ?? number...number
        }
    }

    /// The post's versions, newest first, one per change of its content: a save that changed nothing a
    /// reader sees (saving its share saves the post again; a location sealed again) is folded into the
    /// version that made the content, which keeps its author and time and takes the number of the run's last
    /// save (a reader who joined during the run sees the same number as one who saw it all).
    public func versions(of post: Post) throws -> [Version] {
        let kept = try cloud.database(post.scope, as: account).history(of: post.recordID)
        var versions: [Version] = []
        for (index, kept) in kept.enumerated().reversed() {  // oldest first: a run of the same content keeps its first
            let version = Version(number: kept.number, post: try opened(Post(record: kept.record, scope: post.scope)), isCurrent: index == 0)
            if let last = versions.last, Self.sameContent(last.post, version.post) {
                versions[versions.count - 1].isCurrent = version.isCurrent
                versions[versions.count - 1].number = version.number
                versions[versions.count - 1].numbers = last.numbers.lowerBound...version.number
            } else {
                versions.append(version)
            }
        }
        return versions.reversed()
    }

    /// Restores the content of version `number` (any save of it) as a new edit of the post, merged with what it holds now.
    public func restore(_ post: Post, version number: Int, by editor: Editor, now: Date) throws -> SavedEdit {
        let versions = try versions(of: post)
        guard let version = versions.first(where: { $0.numbers.contains(number) }) else {
            let some = versions.map { String($0.number) }.reversed().joined(separator: ", ")
            throw StoreError.invalid("\"\(post.title)\" has no version \(number) you can read (its versions here: \(some); cloudnotes history shows them)")
        }
        return try restore(post, to: version, by: editor, now: now)
    }

    /// Restores a version read before (no cloud call: only this device's store is written). `post` is the
    /// copy the person saw when they chose the version, the base of the edit: what changed in the post since
    /// (a live edit that arrived while the history was open) merges in, as with any edit from an older copy.
    public func restore(_ post: Post, to version: Version, by editor: Editor, now: Date) throws -> SavedEdit {
        var restored = post
        restored.fields = version.post.fields
        if version.post.locationLocked { restored.location = post.location }  // a location this device cannot open stays as it is
        return try store.saveEdit(restored, from: post.fields, by: editor, now: now)
    }

    /// A post deleted less than the trash's time ago, as it was last.
    public struct Deleted: Equatable, Sendable {
        public var post: Post
        public var deletedAt: Date
        public var deletedBy: String
    }

    /// Every post deleted from a notebook this device holds, less than the trash's time ago, the latest first.
    /// A post moved to another notebook (the same ID, live there) is not deleted, so it is not listed.
    public func trash() throws -> [Deleted] {
        let live = Set(try store.posts().map { "\($0.scope.rawValue)/\($0.zone.owner)/\($0.id)" })
        return try store.notebooks().flatMap { book in
            try (inCloud(book) { try $0.trash(in: book.zone, type: Post.recordType) } ?? []).compactMap { deleted -> Deleted? in
                guard !live.contains("\(book.scope.rawValue)/\(book.zone.owner)/\(deleted.last.record.id.name)") else { return nil }
                return Deleted(post: try opened(Post(record: deleted.last.record, scope: book.scope)), deletedAt: deleted.deletedAt,
                               deletedBy: deleted.deletedBy)
            }
        }.sorted { $0.deletedAt > $1.deletedAt }
    }

    /// Brings a deleted post back as it was last, with the comments deleted with it (not those deleted before it):
    /// the cloud restores them whole, each with its author, its age and its history, and this device shows them at
    /// once. Returns the post as the cloud now has it.
    public func restoreDeleted(_ deleted: Deleted) throws -> Post {
        let (zone, scope) = (deleted.post.zone, deleted.post.scope)
        let database = cloud.database(scope, as: account)
        let comments = try database.trash(in: zone, type: Comment.recordType).filter {
            $0.last.record.parent == deleted.post.id && $0.deletedAt == deleted.deletedAt
        }
        let restored = try database.restoreDeleted([deleted.post.id] + comments.map(\.last.record.id.name), in: zone)
        try store.applyFetched(scope, modifications: restored, deletions: [])
        return try opened(Post(record: restored[0], scope: scope))
    }

    /// Empties the trash of the account's own notebooks; returns how many posts can no longer be restored.
    public func emptyTrash() throws -> Int {
        try store.notebooks().filter { $0.scope == .private }.reduce(0) { count, book in
            count + (try inCloud(book) { try $0.emptyTrash(in: book.zone, counting: Post.recordType) } ?? 0)
        }
    }

    /// Asks the notebook's database; nil where the cloud has no such zone (a notebook not sent yet, or gone).
    private func inCloud<T>(_ book: Notebook, _ ask: (CloudDatabase) throws -> T) throws -> T? {
        do {
            return try ask(cloud.database(book.scope, as: account))
        } catch let error as CloudError {
            if case .zoneNotFound = error { return nil }
            throw error
        }
    }

    private func opened(_ post: Post) throws -> Post {
        try store.read { db in try store.opened(db, post) }
    }

    /// Same title, text, tags and location as the reader sees them: a location sealed again under a new key
    /// is the same location, and one this reader cannot open in either is no change they could see.
    static func sameContent(_ a: Post, _ b: Post) -> Bool {
        a.fields == b.fields && a.locationLocked == b.locationLocked
    }
}
