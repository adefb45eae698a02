import Cloud
import Foundation
import FrontEnd
import Notes
import TestSupport

/// The sharing seam, answered from tables: which posts are shared, how, and
/// which the account may only read (the real provider is tested in NotesTests).
struct StandInSharing: SharingProvider {
    var shares: [String: Share] = [:]
    var readOnly: [String: String] = [:]
    var undeletable: Set<String> = []

    func share(for post: Post) -> Share? { shares[post.id] }
    func canEdit(_ post: Post) -> Bool { readOnly[post.id] == nil }
    func canDelete(_ post: Post) -> Bool { canEdit(post) && !undeletable.contains(post.id) }
    func readOnlyReason(for post: Post) -> String? { readOnly[post.id] }
}

/// A real device store in a temporary directory, filled with posts at fixed
/// times, and a front end over it with a fixed clock and IDs.
final class Fixture {
    let directory = TemporaryDirectory("frontend")
    let store: DeviceStore
    let account = Account(id: "_jermaine", name: "jermaine", email: "jermaine@example.com", createdAt: Date(timeIntervalSince1970: 0))
    let notes: Notebook
    var sharing = StandInSharing()
    static let names = ["_jermaine": "jermaine", "_heather": "heather", "_mary": "mary"]
    private var nextID = 0

    init() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        store = try DeviceStore(directory: directory.path("device"))
        store.names = { Self.names[$0] ?? $0 }
        notes = try store.ensureDefaultNotebook(owner: account.id)
    }

    /// Saves a post modified `minute` minutes after a fixed moment (later ones list first).
    @discardableResult
    func post(_ title: String, _ content: String = "", minute: Int, scope: DatabaseScope = .private, owner: String? = nil,
              by: String = "_jermaine", tags: [String] = []) throws -> Post {
        nextID += 1
        let zone = scope == .private ? notes.zone : ZoneID(name: "Notes", owner: owner ?? "_heather")
        let post = Post(id: String(format: "p%03d", nextID), zone: zone, scope: scope, title: title, content: content, tags: tags)
        try store.save(post, by: by, now: Self.moment.addingTimeInterval(Double(minute) * 60))
        return post
    }

    static let moment = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 10:13 UTC

    func frontEnd(sync: (any SyncControl)? = StandInSync()) -> FrontEnd {
        let counter = Counter()
        return FrontEnd(context: FrontEndContext(
            store: store, account: account, device: "laptop", sharing: sharing, names: { Self.names[$0] ?? $0 },
            postSharing: nil, sync: sync, now: { Self.moment.addingTimeInterval(3600) }, newID: { "\($0)new\(counter.next())" }))
    }

    /// A share of `post` owned by jermaine with heather (accepted) and mary (pending), both read-write.
    static func share(of post: Post, heather: SharePermission = .readWrite) -> Share {
        var share = Share(rootRecord: post.recordID, title: post.title, type: "Post")
        share.participants = [
            ShareParticipant(userRecordID: "_jermaine", name: "jermaine", email: "jermaine@example.com", role: .owner, permission: .readWrite, status: .accepted),
            ShareParticipant(userRecordID: "_heather", name: "heather", email: "heather@example.com", permission: heather, status: .accepted),
            ShareParticipant(userRecordID: "_mary", name: "mary", email: "mary@example.com", permission: .readWrite, status: .pending),
        ]
        return share
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}

/// A sync that only counts what it is asked.
final class StandInSync: SyncControl, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var added = 0
    private(set) var refreshed = 0
    var current: LiveSync.Status = .synced
    var cloudChanged = false
    private(set) var reuploads = 0
    func reupload() { lock.withLock { reuploads += 1 } }
    func changesAdded() { lock.withLock { added += 1 } }
    func refresh() { lock.withLock { refreshed += 1 } }
    func status() -> LiveSync.Status { lock.withLock { current } }
}

extension FrontEnd {
    func press(_ keys: Key...) { for key in keys { handle(key) } }
    func type(_ text: String) { for c in text { handle(.char(c)) } }
}
