import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

extension DeviceStore {
    /// The share of a post, from the share records this device fetched: one rooted at the post, or one of its
    /// whole notebook. What manages a share (inviting, stopping) asks this.
    public func share(for post: Post) throws -> Share? {
        try read { db in try Self.share(db, for: post) }
    }

    /// The share a post is in: `share(for:)`, or, for a post someone filed under another post (the app never does;
    /// a read-write participant can), that post's share. What shows whether a post is shared asks this.
    public func coveringShare(for post: Post) throws -> Share? {
        try read { db in try Self.share(db, for: post, throughParents: true) }
    }

    /// What a post's share is called when someone leaves or stops it: "notebook Trip (12 posts)" when it
    /// covers the post's notebook whole (`wholeNotebook`: every post of it goes), else the post's quoted title.
    public func sharedName(of post: Post) throws -> (text: String, wholeNotebook: Bool) {
        guard try share(for: post)?.isZoneWide == true,
              let book = try notebooks().first(where: { $0.zone == post.zone && $0.scope == post.scope }) else {
            return ("\"\(post.title)\"", false)
        }
        let count = try postCount(PostFilter(notebook: book))
        return ("notebook \(book.title) (\(count.counting("post")))", true)
    }

    /// The shares of this account's own notebooks and posts this device knows.
    public func ownShares() throws -> [Share] {
        try read { db in
            try Self.shares(fromStored: try Data.fetchAll(db.cachedStatement(sql: "SELECT record FROM main.server_records WHERE \(Self.shareNames)")))
        }
    }

    /// The names share records go by, as an SQL condition on `server_records.name` (a post's share is "share-" and
    /// its post's ID; a notebook's has one fixed name), so the records read to find shares are only those.
    static let shareNames = "(name LIKE 'share-%' OR name = '\(Share.zoneWideRecordName)')"

    /// The shares covering many posts in one read (a screenful of the list), as `coveringShare(for:)`.
    public func shares(for posts: [Post]) throws -> [Share?] {
        try read { db in try posts.map { try Self.share(db, for: $0, throughParents: true) } }
    }

    static func share(_ db: Database, for post: Post, throughParents: Bool = false) throws -> Share? {
        var name = post.id
        // A post a participant filed under another post (the app never does; the cloud lets a read-write participant
        // add records under a share's root) is in that post's share: its owner must see it as shared.
        // One read a level: the share records it could be in and, to go up, the post's own stored record (kept
        // only where its row could not stand for the record whole, such as one with a parent: most posts end here).
        for _ in 0..<(throughParents ? maxParentDepth : 1) {
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT name, record FROM \(Self.schema(post.scope)).server_records
                    WHERE zone_name = ? AND zone_owner = ? AND name IN (?, ?, ?)
                    """), arguments: [post.zone.name, post.zone.owner, "share-" + name, Share.zoneWideRecordName, throughParents ? name : ""])
            let own = rows.first { $0["name"] == name }.map { $0["record"] as Data }
            let shared = rows.filter { $0["name"] != name }.map { $0["record"] as Data }
            if let share = try shares(fromStored: shared).first(where: { $0.rootRecord == nil || $0.rootRecord == name }) { return share }
            guard let own, let parent = try RecordArchive.decode(own).parent else { return nil }
            name = parent
        }
        return nil
    }

    /// How far up a post's parents a share is looked for (the cloud's hierarchies are no deeper).
    static let maxParentDepth = 32

    /// The shares among stored server records (`server_records.record`); other records are skipped. A stored
    /// record that does not read is an error, not a post that is not shared (the cloud alone writes shares).
    static func shares(fromStored rows: [Data]) throws -> [Share] {
        try rows.map { try RecordArchive.decode($0) }
            .filter { $0.type == Share.recordType }
            .map { try Share(record: $0) }
    }
}
