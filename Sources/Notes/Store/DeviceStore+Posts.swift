import Cloud
import Foundation
import GRDB
import SQLiteDirect
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Sync

/// Why the store refused a request; one line each.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case unknownPost(String)
    case ambiguousPost(String, [String])
    /// One ID in several notebooks: each place as it may be named (`Team/p3f6…`).
    case samePostTwice(String, [String])
    case unknownNotebook(String)
    case invalid(String)
    /// A pending change of a kind this version does not know: kept, and nothing is sent until it is understood.
    case unknownPendingKind(String, RecordID)
    /// A post or comment bigger than the cloud takes in one record: refused before anything is saved.
    case tooLarge(what: String, size: Int, limit: Int)

    public var description: String {
        switch self {
        case .unknownPost(let ref): "no post matches \"\(ref)\""
        case .ambiguousPost(let ref, let posts): "\"\(ref)\" matches several posts: \(posts.joined(separator: "; ")); name one by its ID"
        case .samePostTwice(let id, let places):
            "\(id) is one post in several notebooks (moved on two devices at once, or written there by someone else): "
                + "name one as NOTEBOOK/ID: \(places.joined(separator: ", "))"
        case .unknownNotebook(let name): "no notebook named \"\(name)\""
        case .invalid(let why): why
        case .unknownPendingKind(let kind, let id):
            "a change waiting for \(id.name.isEmpty ? "zone \(id.zone.name)" : id.name) is of an unknown kind '\(kind)' "
                + "(written by a newer CloudNotes?); it is kept, and this device sends nothing until it is understood"
        case .tooLarge(let what, let size, let limit):
            "\(what) is too large for the cloud (\(ByteCount.over(size, limit: limit))): nothing was saved; shorten it, or split it "
                + "into several posts"
        }
    }
}

/// A notebook: one zone of posts.
public struct Notebook: Equatable, Sendable {
    public var zone: ZoneID
    public var scope: DatabaseScope
    public var title: String

    public init(zone: ZoneID, scope: DatabaseScope, title: String) {
        self.zone = zone
        self.scope = scope
        self.title = title
    }
}

extension DeviceStore {
    // MARK: Reading

    /// Every post of both stores, newest first, or those of one notebook.
    public func posts(in book: Notebook? = nil) throws -> [Post] {
        try read { db in
            try [DatabaseScope.private, .shared].flatMap { scope in
                try Row.fetchAll(db, sql: "SELECT \(Self.postColumns) FROM \(Self.schema(scope)).posts").map { try opened(db, Self.post(from: $0, scope: scope)) }
            }
            .filter { post in book.map { $0.zone == post.zone && $0.scope == post.scope } ?? true }
            .sorted { ($0.modifiedAt ?? .distantFuture, $0.id) > ($1.modifiedAt ?? .distantFuture, $1.id) }
        }
    }

    /// The post a person means: its ID, an unambiguous ID prefix, or its title in any case (as `/` finds it;
    /// where several differ only in case, the one written exactly so). Several: refused, each listed with
    /// its notebook, owner and last change, so the person can tell them apart and name one by its ID.
    ///
    /// One ID held in several notebooks is never guessed at (an edit could land in a shared copy): the person
    /// names one as `NOTEBOOK/ID`.
    public func post(_ reference: String) throws -> Post {
        let all = try posts()
        let exact = all.filter { $0.id == reference }
        if exact.count == 1 { return exact[0] }
        if exact.count > 1 { throw StoreError.samePostTwice(reference, places(exact)) }
        if let slash = reference.lastIndex(of: "/") {
            let (book, id) = (String(reference[..<slash]), reference[reference.index(after: slash)...])
            let placed = all.filter { $0.id == id && $0.zone.name.compare(book, options: .caseInsensitive) == .orderedSame }
            if placed.count == 1 { return placed[0] }
        }
        let titled = all.filter { $0.title.compare(reference, options: .caseInsensitive) == .orderedSame }
        let exactly = titled.filter { $0.title == reference }
        for candidates in [all.filter { $0.id.hasPrefix(reference) }, exactly.count == 1 ? exactly : titled] {
            if candidates.count == 1 { return candidates[0] }
            if candidates.count > 1 {
                // Copies of one post (moved on two devices at once) share an ID: only NOTEBOOK/ID tells them apart.
                if Set(candidates.map(\.id)).count == 1 {
                    throw StoreError.samePostTwice(candidates[0].id, places(candidates))
                }
                throw StoreError.ambiguousPost(reference, candidates.sorted { $0.id < $1.id }.map(describe))
            }
        }
        throw StoreError.unknownPost(reference)
    }

    /// Copies of one post, each as `NOTEBOOK/ID` names it, with its owner: "Travel/plan (heather's)".
    private func places(_ copies: [Post]) -> [String] {
        copies.map { "\($0.zone.name)/\($0.id) (\(names($0.zone.owner))'s)" }.sorted()
    }

    /// One line telling a post apart from others of the same title: "p3F9… in Trip (heather's), changed 2026-11-27 10:02".
    private func describe(_ post: Post) -> String {
        let owner = names(post.zone.owner)
        let changed = post.modifiedAt.map { date in
            let c = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            return String(format: ", changed %04d-%02d-%02d %02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
        } ?? ""
        return "\(post.id) in \(post.zone.name) (\(owner)'s)\(changed)"
    }

    public func notebooks() throws -> [Notebook] {
        try read { db in
            try [DatabaseScope.private, .shared].flatMap { scope in
                try Row.fetchAll(db, sql: "SELECT * FROM \(Self.schema(scope)).notebooks ORDER BY title").map {
                    Notebook(zone: ZoneID(name: $0["zone_name"], owner: $0["zone_owner"]), scope: scope, title: $0["title"])
                }
            }
        }
    }

    /// How many changes made here wait to be sent (those the cloud refused are counted by `refusedChanges`);
    /// with `deletionsOnly`, the deletions among them (the cloud's trash holds those once they are sent).
    public func pendingCount(deletionsOnly: Bool = false) throws -> Int {
        let kind = deletionsOnly ? PendingKind.deleteRecord.rawValue : nil
        return try read { db in
            try ["main", "shared"].reduce(0) { total, schema in
                total + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).pending WHERE refused IS NULL AND (?1 IS NULL OR kind = ?1)",
                                          arguments: [kind]) ?? 0)
            }
        }
    }

    // MARK: Writing

    /// Creates a notebook (its zone is created in the cloud on the next send).
    public func createNotebook(_ title: String, owner: String) throws -> Notebook {
        let book = Notebook(zone: ZoneID(name: title, owner: owner), scope: .private, title: title)
        try write { db in try Self.insertNotebook(db, book) }
        return book
    }

    static func insertNotebook(_ db: Database, _ book: Notebook) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO main.notebooks(zone_name, zone_owner, title) VALUES (?, ?, ?)",
                       arguments: [book.zone.name, book.zone.owner, book.title])
        try markPending(db, .private, zone: book.zone, name: "", kind: .saveZone)
    }

    /// Records notebooks the cloud reported (zones of this database). One of this account's that this device deleted,
    /// and does not hold now, is back from another device: said in a notice.
    func noteNotebooks(_ scope: DatabaseScope, _ zones: [ZoneID]) throws {
        let now = self.now()
        try write(scope) { db in
            for zone in zones where !zone.isDefault {
                if scope == .private, let deleted = try Self.deletedHere(db, zone), try !Self.holdsNotebook(db, zone) {
                    let renamed = try String.fetchOne(db, sql: "SELECT renamed_to FROM main.renamed_notebooks WHERE zone_name = ? AND zone_owner = ?",
                                                      arguments: [zone.name, zone.owner])
                    try addNotices(db, [Notice(at: now, kind: renamed == nil ? .notebookBack : .renamedNotebookBack, by: zone.owner,
                                               subject: "notebook \(zone.name)", detail: renamed ?? deleted.formatted(.iso8601.year().month().day()))])
                }
                for table in ["deleted_notebooks", "renamed_notebooks"] {
                    try db.execute(sql: "DELETE FROM main.\(table) WHERE zone_name = ? AND zone_owner = ?", arguments: [zone.name, zone.owner])
                }
                try Self.noteNotebook(db, scope, zone)
            }
        }
    }

    /// When the cloud took this device's deletion of the notebook, if it did and the notebook has not been back since.
    private static func deletedHere(_ db: Database, _ zone: ZoneID) throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT deleted_at FROM main.deleted_notebooks WHERE zone_name = ? AND zone_owner = ?",
                            arguments: [zone.name, zone.owner]).map(Date.init(timeIntervalSince1970:))
    }

    static func holdsNotebook(_ db: Database, _ zone: ZoneID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM main.notebooks WHERE zone_name = ? AND zone_owner = ?)",
                          arguments: [zone.name, zone.owner]) == true
    }

    /// Records a notebook the cloud holds, named as its zone, unless known here already.
    static func noteNotebook(_ db: Database, _ scope: DatabaseScope, _ zone: ZoneID) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO \(schema(scope)).notebooks(zone_name, zone_owner, title) VALUES (?, ?, ?)",
                       arguments: [zone.name, zone.owner, zone.name])
    }

    /// Every account starts with a notebook named "Notes".
    public func ensureDefaultNotebook(owner: String) throws -> Notebook {
        if let notes = try notebooks().first(where: { $0.scope == .private && $0.title == "Notes" }) { return notes }
        return try createNotebook("Notes", owner: owner)
    }

    /// Saves a new post (or writes one over whatever the store holds) and marks it to be sent, in one
    /// transaction. An edit of a post someone saw goes through `saveEdit`, which merges.
    public func save(_ post: Post, by account: String, on device: String? = nil, now: Date) throws {
        try save([post], by: account, on: device, now: now)
    }

    /// Saves many posts (an import) in one transaction: all are kept and marked, or none; with the new
    /// notebooks of this account they go into (`creating`), made in the same transaction.
    public func save(_ posts: [Post], by account: String, on device: String? = nil, now: Date, creating books: [Notebook] = []) throws {
        try write(locking: Set(posts.map(\.scope)).union(books.isEmpty ? [] : [.private])) { db in
            for book in books { try Self.insertNotebook(db, book) }
            for (scope, edited) in Dictionary(grouping: posts, by: \.scope) {
                try Self.setAsideKnown(db, scope, edited.map(\.recordID))
            }
            for var post in posts {
                post.modifiedAt = now
                post.modifiedBy = account
                post.modifiedOn = device ?? post.modifiedOn
                if post.createdAt == nil {
                    post.createdAt = now
                    post.createdBy = account
                }
                try Self.requireFits(post)  // before any is written: an import is kept whole or not at all
                try Self.upsert(db, post)
                try Self.markPending(db, post.scope, zone: post.zone, name: post.id, kind: .saveRecord)
            }
        }
    }

    /// Deletes a post with the comments on it. Each comment known to the cloud goes as a deletion of its own, before
    /// the post's, naming the version seen here: the cloud deletes the post only with what was seen of it, so a
    /// comment added meanwhile elsewhere brings the post back instead of going unseen (`LocalDatabase.delete`).
    /// A comment only typed here goes with it.
    public func delete(_ post: Post) throws {
        try write(post.scope) { db in
            let comments = try Self.comments(db, on: post).map { RecordID(name: $0.id, zone: $0.zone) }
            let below = try Self.knownBelow(db, post).filter { !comments.contains($0) }
            let known = try Self.knownChangeTags(db, post.scope, comments + below)
            for id in below { try Self.markPending(db, post.scope, zone: id.zone, name: id.name, kind: .deleteRecord) }
            for id in comments {
                guard known[id] != nil else {
                    try Self.dropHere(db, post.scope, id)
                    continue
                }
                try Self.deleteRow(db, post.scope, id)
                try Self.markPending(db, post.scope, zone: id.zone, name: id.name, kind: .deleteRecord)
            }
            try Self.setAsideKnown(db, post.scope, [post.recordID])
            try db.execute(sql: "DELETE FROM \(Self.schema(post.scope)).posts WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                           arguments: [post.zone.name, post.zone.owner, post.id])
            try Self.markPending(db, post.scope, zone: post.zone, name: post.id, kind: .deleteRecord)
        }
    }

    /// The records other than comments this device knows to hang below `post` by a delete-self reference (put there
    /// by raw requests, say), all the way down: its deletion names them too, or the cloud would refuse it for good as
    /// one that takes what its deleter never saw.
    static func knownBelow(_ db: Database, _ post: Post) throws -> [RecordID] {
        var targets: [String: [String]] = [:]  // a record's name → the names that would go with it
        for row in try Row.fetchAll(db, sql: "SELECT name, record FROM \(schema(post.scope)).server_records WHERE zone_name = ? AND zone_owner = ?",
                                    arguments: [post.zone.name, post.zone.owner]) {
            // (A copy that does not read is not named: the cloud then refuses the deletion, and says so.)
            guard let record = try? RecordArchive.decode(row["record"] as Data? ?? Data()) else { continue }
            for reference in record.fields.values.flatMap(\.references) where reference.action == .deleteSelf {
                targets[reference.recordName, default: []].append(row["name"])
            }
        }
        var found: [String] = [], next = [post.id], seen: Set<String> = [post.id]
        while let name = next.popLast() {
            for source in targets[name] ?? [] where seen.insert(source).inserted {
                found.append(source)
                next.append(source)
            }
        }
        return found.map { RecordID(name: $0, zone: post.zone) }
    }

    // MARK: Rows

    static func upsert(_ db: Database, _ post: Post) throws {
        try upsert(db, post.scope, [PostRow(post: post, changeTag: nil)])
    }

    static func upsert(_ db: Database, _ scope: DatabaseScope, _ rows: [PostRow]) throws {
        try insertRows(db, """
            INSERT OR REPLACE INTO \(schema(scope)).posts(id, zone_name, zone_owner, title, content, tags, location,
                location_sealed, created_at, created_by, modified_at, modified_by, conflicted, change_tag, modified_on,
                saved_at, saved_by)
            """, width: 17, rows) { row, item in
            let post = item.post
            row.add(post.id)
            row.add(post.zone.name)
            row.add(post.zone.owner)
            row.add(post.title.keepable)
            row.add(post.content.keepable)
            row.add(TagsColumn.text(post.tags.map(\.keepable)))
            row.add(post.location?.keepable)
            row.add(post.sealedLocation)
            row.add(post.createdAt?.timeIntervalSince1970)
            row.add(post.createdBy)
            row.add(post.modifiedAt?.timeIntervalSince1970)
            row.add(post.modifiedBy)
            row.add(ConflictBlock.isConflicted(post.fields))
            row.add(item.changeTag)
            row.add(post.modifiedOn)
            row.add(post.savedAt?.timeIntervalSince1970)
            row.add(post.savedBy)
        }
    }

    /// Before local edits change the rows of `ids`, copies the cloud's records they hold whole into
    /// `server_records`: the base a merge of those edits needs. (The edited row holds no change tag.)
    static func setAsideKnown(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws {
        try remember(db, scope, localPostRows(db, scope, ids).values.compactMap(\.record))
    }

    /// The columns `post(from:)` reads, in its order: select these, not `*`
    /// (reading by position spares a name lookup per column per row).
    static let postColumns = """
        id, zone_name, zone_owner, title, content, tags, location, location_sealed,
        created_at, created_by, modified_at, modified_by, conflicted, modified_on, saved_at, saved_by
        """
    static let postColumnCount = 16

    /// A post from a row whose columns from `start` on are `postColumns`.
    static func post(from row: some ColumnValues, scope: DatabaseScope, at start: Int = 0) -> Post {
        var post = Post(id: row.text(start), zone: ZoneID(name: row.text(start + 1), owner: row.text(start + 2)), scope: scope,
                        title: row.text(start + 3), content: row.text(start + 4), tags: TagsColumn.tags(from: row.text(start + 5)),
                        location: row.optionalText(start + 6))
        post.sealedLocation = row.data(start + 7)
        post.createdAt = row.double(start + 8).map(Date.init(timeIntervalSince1970:))
        post.createdBy = row.optionalText(start + 9)
        post.modifiedAt = row.double(start + 10).map(Date.init(timeIntervalSince1970:))
        post.modifiedBy = row.optionalText(start + 11)
        post.conflicted = row.bool(start + 12)
        post.modifiedOn = row.optionalText(start + 13)
        post.savedAt = row.double(start + 14).map(Date.init(timeIntervalSince1970:))
        post.savedBy = row.optionalText(start + 15)
        return post
    }

    static func markPending(_ db: Database, _ scope: DatabaseScope, zone: ZoneID, name: String, kind: PendingKind) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO \(schema(scope)).pending(zone_name, zone_owner, name, kind) VALUES (?, ?, ?, ?)")
            .execute(arguments: [zone.name, zone.owner, name, kind.rawValue])
    }
}

/// A post's row, and the change tag of the cloud's record it holds whole
/// (fetched or sent, and not edited since), if it does: then the row is the
/// last known server record, and `server_records` keeps no copy of it, which
/// spared every sync writing each post twice.
struct PostRow {
    var post: Post
    var changeTag: String?

    /// The cloud's record this row stands for, while it holds one.
    var record: Record? { changeTag.flatMap(post.record(changeTag:)) }
}

extension PostRow {
    /// The row for a record as the cloud holds it, holding it whole where it can.
    init(record: Record, scope: DatabaseScope) {
        post = Post(record: record, scope: scope)
        changeTag = Post.rowCanHold(record) ? record.changeTag : nil
    }
}
