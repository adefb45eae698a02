import Cloud
import Foundation
import GRDB
import SQLiteDirect
import Sync

/// Moving posts between notebooks, renaming and deleting notebooks. A notebook is a zone of the cloud, and a
/// record stays in its zone for life, so a move is a copy into the other notebook and the deletion of the
/// original, in one transaction here and sent in one request. Each copy names its original and the version it
/// copies (`movedFrom`, see `records(for:)`), and the cloud moves it: the copies keep the history, the age and the
/// authors they had (`LocalDatabase+Moves` in the cloud). The share rules decide what may
/// move: only the owner's own posts, into their own notebooks; not a post shared by itself (its share would end).
extension DeviceStore {
    /// The notebook a person means by its name: one written exactly so (their own first, else one shared with
    /// them), else one named so in another case (their own first). A notebook shared with them that one of their
    /// own shadows is named with its owner, as the app shows it: "Work (bob)". A name that several notebooks
    /// could be (two shared ones, or "NOTES" for Notes and notes) is refused, never guessed: deleting one is
    /// for good.
    public func notebook(named name: String) throws -> Notebook {
        let all = try notebooks()
        let exactly = all.filter { $0.title == name }
        let inAnyCase = all.filter { $0.title.compare(name, options: .caseInsensitive) == .orderedSame }
        for found in [exactly, withOwner(name, in: all), inAnyCase] where !found.isEmpty {
            let own = found.filter { $0.scope == .private }
            if own.count > 1 {
                throw StoreError.invalid("\(own.count) of your notebooks are named \(name) in another case: "
                                         + own.map(\.title).sorted().joined(separator: ", ") + "; name one as it is written")
            }
            if let own = own.first { return own }
            if found.count > 1 {
                throw StoreError.invalid("\(found.count) notebooks shared with you are named \(name); name one with its owner: "
                                         + found.map(label).sorted().joined(separator: ", "))
            }
            return found[0]
        }
        throw StoreError.unknownNotebook(name)
    }

    /// A notebook as the app names it with its owner: "Work (bob)".
    public func label(_ book: Notebook) -> String { "\(book.title) (\(names(book.zone.owner)))" }

    /// The notebooks `name` names with their owner ("Work (bob)"), title in any case.
    private func withOwner(_ name: String, in all: [Notebook]) -> [Notebook] {
        all.filter { label($0).compare(name, options: .caseInsensitive) == .orderedSame }
    }

    /// Why `post` may not move to `book`, or nil.
    public func moveRefusal(_ post: Post, to book: Notebook) throws -> String? {
        let title = "\"\(post.title)\""
        guard post.scope == .private else { return "\(title) is shared with you by \(names(post.zone.owner)): only its owner moves it" }
        guard book.scope == .private else {
            return "notebook \(book.title) is shared with you by \(names(book.zone.owner)): a post moves only into a notebook of your own"
        }
        if book.zone == post.zone { return "\(title) is in notebook \(book.title) already" }
        if post.locationLocked {
            // Its location is sealed with a key not at hand here: sealed for this notebook, it would open in no other.
            return "\(title)'s location cannot be opened on this device yet (the notebook's key has not reached it): sync, then move it"
        }
        let there = try read { db in try Self.localPost(db, .private, RecordID(name: post.id, zone: book.zone)) }
        if let author = there?.createdBy, let maker = post.createdBy, author != maker {
            // Not a copy of this post (a copy keeps who made it): another account's record of its name, planted by a
            // participant of that notebook. Merged, the post would take their authorship and lose its history.
            return "notebook \(book.title) holds another post with this one's ID (\(post.id)), written by \(names(author)): moved, the two "
                + "would merge; delete that one first"
        }
        if let share = try share(for: post), !share.isZoneWide {
            return "\(title) is shared: moving it would end its share (cloudnotes stop-sharing first, or share notebook \(book.title))"
        }
        // A move longer than one request is sent in two, and the comments in the later one would find their originals
        // gone with the post's: copied as new, others' comments would be the mover's.
        let comments = try comments(on: post)
        let others = Set(comments.compactMap(\.createdBy)).subtracting([post.zone.owner])
        if !others.isEmpty && comments.count + 2 > RecordZoneChangeBatch.defaultMaxItems {
            let who = others.sorted().map(names).joined(separator: ", ")
            return "\(title) holds \(comments.count) comments, some by \(who): moved, they would be yours, so it stays"
        }
        return nil
    }

    /// Moves a post of this account (and its comments) into another of its notebooks, as one transaction;
    /// returns the post where it is now, with its history.
    @discardableResult
    public func move(_ post: Post, to book: Notebook, by account: String, on device: String? = nil, now: Date) throws -> Post {
        if let refusal = try moveRefusal(post, to: book) { throw StoreError.invalid(refusal) }
        let comments = try comments(on: post)
        return try write(.private) { db in try move(db, post, comments: comments, to: book.zone, by: account, on: device, now: now) }
    }

    private func move(_ db: Database, _ post: Post, comments: [Comment], to zone: ZoneID, by account: String,
                      on device: String?, now: Date) throws -> Post {
        var moved = post
        let target = RecordID(name: post.id, zone: zone)
        // Moved back before its move went out (the original's deletion waits where it goes now): that move is undone,
        // not followed by a deletion of copies the cloud never acknowledged. Such a deletion names no version, and took
        // whatever was there: another device's move of the post, with the words typed into it (app seed 99013).
        let originals = [post.recordID] + comments.map { RecordID(name: $0.id, zone: post.zone) }
        let known = try Self.knownChangeTags(db, .private, originals)
        let movingBack = try known[post.recordID] == nil && Self.pendingKinds(db, .private, [target])[target] == .deleteRecord
        if let there = try Self.localPost(db, .private, target) {
            // A copy of it is there already (another device moved it out of that notebook, and this one has not
            // heard yet): what was typed into that copy merges with this one, and the move makes it anew there.
            moved = try merging(db, .private, post, into: there)
            try Self.forget(db, .private, target)
        }
        moved.zone = zone
        moved.modifiedAt = now
        moved.modifiedBy = account
        moved.modifiedOn = device ?? post.modifiedOn
        if moved.location != nil { moved.sealedLocation = nil }  // sealed again with the other notebook's key when sent
        try Self.requireFits(moved, holding: post.title)
        try Self.upsert(db, moved)
        try Self.markPending(db, .private, zone: zone, name: moved.id, kind: .saveRecord)
        for var comment in comments {
            comment.zone = zone
            try Self.upsert(db, comment)
            try Self.markPending(db, .private, zone: zone, name: comment.id, kind: .saveRecord)
        }
        // The originals go as deletions (each comment too, though the post's would take it: each copy names the
        // version it moves, and the cloud moves none that changed since this device saw it).
        try Self.setAsideKnown(db, .private, originals)
        for table in ["posts", "comments"] {
            let column = table == "posts" ? "id" : "post_id"
            try db.execute(sql: "DELETE FROM main.\(table) WHERE zone_name = ? AND zone_owner = ? AND \(column) = ?",
                           arguments: [post.zone.name, post.zone.owner, post.id])
        }
        for id in originals {
            if movingBack && known[id] == nil {
                try Self.clearPending(db, .private, zone: id.zone, name: id.name)
            } else {
                try Self.markPending(db, .private, zone: id.zone, name: id.name, kind: .deleteRecord)
            }
        }
        if movingBack {
            try db.execute(sql: "DELETE FROM main.moves WHERE name = ?", arguments: [post.id])
        } else {
            try db.execute(sql: "INSERT OR REPLACE INTO main.moves(name, from_zone, from_owner, to_zone, to_owner) VALUES (?, ?, ?, ?, ?)",
                           arguments: [post.id, post.zone.name, post.zone.owner, zone.name, zone.owner])
        }
        return moved
    }

    /// Why notebook `book` may not be renamed `title`, or nil.
    public func renameRefusal(_ book: Notebook, to title: String) throws -> String? {
        guard book.scope == .private else { return "notebook \(book.title) is shared with you by \(names(book.zone.owner)): only its owner renames it" }
        let name = title.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return "a notebook needs a name" }
        if name == book.title { return "notebook \(name) is named so already" }
        if book.title.compare(name, options: .caseInsensitive) != .orderedSame, let refusal = try newNotebookRefusal(name) { return refusal }
        if try ownShares().contains(where: { $0.isZoneWide && $0.id.zone == book.zone }) {
            return "notebook \(book.title) is shared as a whole: renamed, its share would end (cloudnotes stop-sharing first)"
        }
        let target = Notebook(zone: ZoneID(name: name, owner: book.zone.owner), scope: .private, title: name)
        for post in try posts(in: book) {
            if let refusal = try moveRefusal(post, to: target) { return refusal }
        }
        return nil
    }

    /// Why a notebook of this account may not be named `name` beside those it has, or nil: not twice, nor in
    /// another case only (a name in another case names it too, and "Trip" beside "trip" could not be told apart).
    public func newNotebookRefusal(_ name: String) throws -> String? {
        guard let same = try notebooks().first(where: { $0.scope == .private && $0.title.compare(name, options: .caseInsensitive) == .orderedSame })
        else { return nil }
        return same.title == name ? "notebook \(name) exists already" : "notebook \(same.title) exists already; another name must differ from it by more than case"
    }

    /// Renames a notebook of this account: a new notebook of the new name takes every post, and the old one
    /// goes (with its trash). One transaction.
    @discardableResult
    public func renameNotebook(_ book: Notebook, to title: String, by account: String, on device: String? = nil, now: Date) throws -> Notebook {
        if let refusal = try renameRefusal(book, to: title) { throw StoreError.invalid(refusal) }
        let name = title.trimmingCharacters(in: .whitespaces)
        let renamed = Notebook(zone: ZoneID(name: name, owner: book.zone.owner), scope: .private, title: name)
        let posts = try posts(in: book)
        let comments = try posts.map { try self.comments(on: $0) }
        try write(.private) { db in
            try Self.insertNotebook(db, renamed)
            for (post, comments) in zip(posts, comments) {
                _ = try move(db, post, comments: comments, to: renamed.zone, by: account, on: device, now: now)
            }
            // The posts' deletions from the old notebook stay pending: sent with their copies, they make moves, which
            // keep the posts' history (the sync sends a zone's deletion after its records).
            try Self.dropNotebook(db, book.zone, keepingDeletions: true)
            try db.execute(sql: "INSERT OR REPLACE INTO main.renamed_notebooks(zone_name, zone_owner, renamed_to) VALUES (?, ?, ?)",
                           arguments: [book.zone.name, book.zone.owner, name])
        }
        return renamed
    }

    /// A notebook of this account's brought back for what waited in it (`dropZones`), all of whose posts the cloud held
    /// (`held`) have arrived together in one other notebook since, where the cloud also said any posts sent into it
    /// went (`followedTo`): renamed on another device (its posts moved there, then it went). What waited follows them
    /// there, moved as a person would, and the old name goes again. Returns the posts moved, as they are now, where they
    /// went, and comments kept as posts of their own (their post is nowhere here); nil where what was in it did not all
    /// go to one other notebook.
    public func followRename(of zone: ZoneID, held: Set<String>, followedTo: Set<ZoneID>)
        throws -> (posts: [RecordID], to: ZoneID, rescued: [RecordID])? {
        guard !held.isEmpty || !followedTo.isEmpty, followedTo.allSatisfy({ $0.owner == zone.owner && $0 != zone }) else { return nil }
        let left = held
        return try write(.private) { db -> (posts: [RecordID], to: ZoneID, rescued: [RecordID])? in
            var holders: Set<String> = []
            var found = 0
            try inSQLLists(Array(left).sorted(), size: 200, each: "?") { names, list in
                for row in try Row.fetchAll(db, sql: """
                    SELECT zone_name FROM main.posts WHERE zone_owner = ? AND zone_name != ? AND id IN (\(list))
                    """, arguments: [zone.owner, zone.name] + StatementArguments(Array(names))) {
                    holders.insert(row[0])
                    found += 1
                }
            }
            holders.formUnion(followedTo.map(\.name))
            guard found == left.count, holders.count == 1, let name = holders.first,
                  try Self.holdsNotebook(db, zone) else { return nil }
            let to = ZoneID(name: name, owner: zone.owner)
            let now = now()
            var moved: [RecordID] = []
            let waiting = try Row.fetchAll(db, sql: "SELECT \(Self.postColumns) FROM main.posts WHERE zone_name = ? AND zone_owner = ? ORDER BY id",
                                           arguments: [zone.name, zone.owner]).map { try opened(db, Self.post(from: $0, scope: .private)) }
            for post in waiting {
                _ = try move(db, post, comments: try Self.comments(db, on: post), to: to, by: zone.owner, on: nil, now: now)
                moved.append(RecordID(name: post.id, zone: to))
            }
            // Comments waiting here on posts that went there already (the cloud told the post's edit where it is):
            // they go to their post; one whose post is nowhere here is kept as a post of its own.
            let comments = try String.fetchAll(db, sql: "SELECT id FROM main.comments WHERE zone_name = ? AND zone_owner = ? ORDER BY id",
                                               arguments: [zone.name, zone.owner]).compactMap { try Self.localComment(db, .private, RecordID(name: $0, zone: zone)) }
            var orphans: [RecordID] = []
            for var comment in comments {
                let id = RecordID(name: comment.id, zone: zone)
                guard try Self.localPost(db, .private, RecordID(name: comment.postID, zone: to)) != nil else {
                    orphans.append(id)
                    continue
                }
                try Self.dropHere(db, .private, id)
                comment.zone = to
                try Self.upsert(db, comment)
                try Self.markPending(db, .private, zone: to, name: comment.id, kind: .saveRecord)
            }
            let rescued = try rescueComments(db, orphans, from: .private)
            try Self.dropNotebook(db, zone, keepingDeletions: true)
            return (moved, to, rescued)
        }
    }

    /// What deleting a notebook takes with it: its posts and the changes to it not yet sent.
    public func notebookContents(_ book: Notebook) throws -> (posts: Int, unsent: Int) {
        try read { db in
            let arguments: StatementArguments = [book.zone.name, book.zone.owner]
            let posts = try Int.fetchOne(db, sql: "SELECT count(*) FROM main.posts WHERE zone_name = ? AND zone_owner = ?", arguments: arguments) ?? 0
            let unsent = try Int.fetchOne(db, sql: "SELECT count(*) FROM main.pending WHERE zone_name = ? AND zone_owner = ? AND name != ''",
                                          arguments: arguments) ?? 0
            return (posts, unsent)
        }
    }

    /// Deletes a notebook of this account, everything in it and its trash, here at once and in the cloud
    /// when sent (every reader of it loses it).
    public func deleteNotebook(_ book: Notebook) throws {
        guard book.scope == .private else {
            throw StoreError.invalid("notebook \(book.title) is shared with you by \(names(book.zone.owner)): leave it instead (cloudnotes leave --notebook \"\(label(book))\")")
        }
        try write(.private) { db in
            try Self.dropNotebook(db, book.zone)
            // (Renamed once, then made again and deleted: deleted is what it was last.)
            try db.execute(sql: "DELETE FROM main.renamed_notebooks WHERE zone_name = ? AND zone_owner = ?", arguments: [book.zone.name, book.zone.owner])
        }
    }

    /// Forgets a notebook of this account here and marks its zone to be deleted in the cloud; `keepingDeletions`,
    /// the records' deletions still to send stay pending.
    private static func dropNotebook(_ db: Database, _ zone: ZoneID, keepingDeletions: Bool = false) throws {
        let deletion = PendingKind.deleteRecord.rawValue
        for table in ["posts", "comments", "server_records", "pending", "notebooks"] {
            // The deletions, and the last known records they name (a move's copy names its version).
            let kept = !keepingDeletions ? ""
                : table == "pending" ? " AND kind != '\(deletion)'"
                : table == "server_records" ? " AND name NOT IN (SELECT name FROM main.pending WHERE zone_name = ?1 AND zone_owner = ?2 AND kind = '\(deletion)')"
                : ""
            try db.execute(sql: "DELETE FROM main.\(table) WHERE zone_name = ?1 AND zone_owner = ?2\(kept)", arguments: [zone.name, zone.owner])
        }
        try markPending(db, .private, zone: zone, name: "", kind: .deleteZone)
    }
}
