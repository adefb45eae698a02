import Cloud
import Foundation
import GRDB

/// A post as a list shows it: the row without its location (opening a
/// sealed location costs a key agreement; only the detail needs it).
public struct ListedPost: Equatable, Sendable {
    public var post: Post
    /// A change to it waits to be sent.
    public var pending: Bool
    /// The cloud refused its change; it is kept here, not sent (`DeviceStore.refusal(of:)` says why).
    public var refused = false
    public var comments = 0
    /// When this device last showed it (`markSeen`); nil if never.
    public var seenAt: Date?
    /// When someone's change of it last reached this device (its clock); nil for a change made here.
    public var arrivedAt: Date?

    /// Someone else changed it since this device last showed it: by when the change arrived here where it
    /// did (an edit typed offline hours ago is still news), else by when it was made.
    public func isUnread(by account: String) -> Bool {
        guard let changed = arrivedAt ?? post.modifiedAt, post.modifiedBy != account else { return false }
        return seenAt.map { $0 < changed } ?? true
    }
}

/// Which posts a list shows: all of them, or those every set part of the filter lets through.
public struct PostFilter: Equatable, Sendable {
    /// Posts by how they stand, for `f`.
    public enum Kind: String, CaseIterable, Sendable {
        case sharedWithMe = "shared with me", sharedByMe = "shared by me", conflicts = "with conflicts", waiting = "waiting to be sent"
        case notSent = "refused by the cloud"
    }

    public var notebook: Notebook?
    public var search: PostSearch?
    public var tag: String?
    /// An owner's user record ID.
    public var owner: String?
    public var kind: Kind?

    public init(notebook: Notebook? = nil, search: PostSearch? = nil, tag: String? = nil, owner: String? = nil, kind: Kind? = nil) {
        self.notebook = notebook
        self.search = search
        self.tag = tag
        self.owner = owner
        self.kind = kind
    }

    public static let all = PostFilter()

    public var isEmpty: Bool { self == .all || (notebook == nil && search?.terms.isEmpty != false && tag == nil && owner == nil && kind == nil) }
}

/// Reading posts a screenful at a time, newest first, across both stores, so
/// a list of a million posts costs what it shows. Unsearched, the list goes
/// by modification time, then ID; searched, by the index's row IDs (see
/// `SearchIndex`), which follow modification time to the millisecond.
extension DeviceStore {
    /// How many posts the filter lets through; with `atMost`, counting stops past it (a search for "a" matches
    /// nearly every post, and counting a million matches on every key costs more than the frame may), so an
    /// answer above `atMost` means "more than that".
    public func postCount(_ filter: PostFilter = .all, atMost: Int? = nil) throws -> Int {
        if filter.search?.match != nil { try catchUpSearchIndex() }
        return try read { db in
            try arms(filter).reduce(0) { total, arm in
                // Searched and nothing else: the index counts alone, without reading a post.
                let from = arm.searchOnly ? "\(Self.schema(arm.scope)).post_words w" : arm.from
                let rows = "SELECT 1 FROM \(from) WHERE \(arm.condition)" + (atMost.map { " LIMIT \($0 + 1)" } ?? "")
                return total + (try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM (\(rows))"), arguments: arm.arguments) ?? 0)
            }
        }
    }

    /// `limit` posts from position `offset` of the list. Given the list's
    /// length, a window in its second half is read from the end (SQLite steps
    /// over the rows an OFFSET skips, so the last page costs what the first does).
    public func listedPosts(_ filter: PostFilter = .all, offset: Int, limit: Int, total: Int? = nil) throws -> [ListedPost] {
        if filter.search?.match != nil { try catchUpSearchIndex() }
        return try read { db in
            if let total, offset >= total { return [] }
            let fromEnd = total.map { offset > $0 / 2 } ?? false
            let (sql, arguments): (String, StatementArguments)
            if fromEnd, let total {
                let count = min(limit, total - offset)
                (sql, arguments) = page(filter, newestFirst: false, limit: count, offset: max(0, total - offset - limit))
            } else {
                (sql, arguments) = page(filter, newestFirst: true, limit: limit, offset: offset)
            }
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            return try (fromEnd ? rows.reversed() : rows).map {
                let post = Self.post(from: $0, scope: $0["scope"] == "shared" ? .shared : .private, at: 1)
                let (comments, seenAt, arrivedAt) = try Self.commentsAndSeen(db, post)
                return ListedPost(post: post, pending: $0["is_pending"], refused: $0["is_refused"], comments: comments, seenAt: seenAt,
                                  arrivedAt: arrivedAt)
            }
        }
    }

    /// A post's comment count, when this device last showed it and when someone's change of it last arrived:
    /// read for the rows on screen only.
    private static func commentsAndSeen(_ db: Database, _ post: Post) throws -> (Int, Date?, Date?) {
        let arguments: StatementArguments = [post.zone.name, post.zone.owner, post.id]
        let schema = schema(post.scope)
        let comments = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM \(schema).comments WHERE zone_name = ? AND zone_owner = ? AND post_id = ?
            """), arguments: arguments) ?? 0
        let seen = try Double.fetchOne(db.cachedStatement(sql: """
            SELECT seen_at FROM \(schema).seen WHERE zone_name = ? AND zone_owner = ? AND id = ?
            """), arguments: arguments)
        let arrived = try Double.fetchOne(db.cachedStatement(sql: """
            SELECT arrived_at FROM \(schema).arrived WHERE zone_name = ? AND zone_owner = ? AND id = ?
            """), arguments: arguments)
        return (comments, seen.map(Date.init(timeIntervalSince1970:)), arrived.map(Date.init(timeIntervalSince1970:)))
    }

    /// Remembers that this device showed the post at `now`, so it no longer reads as new.
    public func markSeen(_ post: Post, now: Date) throws {
        try write(post.scope) { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO \(Self.schema(post.scope)).seen(zone_name, zone_owner, id, seen_at) VALUES (?, ?, ?, ?)")
                .execute(arguments: [post.zone.name, post.zone.owner, post.id, now.timeIntervalSince1970])
        }
    }

    /// Where a post stands in the list now (its place moves when it is edited), if the filter shows it.
    public func position(of post: Post, _ filter: PostFilter = .all) throws -> Int? {
        if filter.search?.match != nil { try catchUpSearchIndex() }
        return try read { db in
            let searched = filter.search?.match != nil
            let order = searched ? "t.key" : "t.modified_at"  // a post's place in the index is its key in post_order
            let from = "\(Self.schema(post.scope)).\(searched ? "post_order" : "posts") t"
            guard let arm = arms(filter).first(where: { $0.scope == post.scope }),
                  let row = try Row.fetchOne(db, sql: "SELECT \(order) AS sort FROM \(from) WHERE t.zone_name = ? AND t.zone_owner = ? AND t.id = ?",
                                             arguments: [post.zone.name, post.zone.owner, post.id]),
                  try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM \(arm.from) WHERE \(arm.condition) AND t.id = ? AND t.zone_name = ? AND t.zone_owner = ?)",
                                    arguments: arm.arguments + [post.id, post.zone.name, post.zone.owner]) == true
            else { return nil }
            let sort: DatabaseValue = row["sort"]
            return try arms(filter).reduce(0) { total, arm in
                // Before it: a later sort value, or the same one and a later ID (searched: the shared store's row first).
                let before = searched
                    ? "(w.rowid > ? OR (w.rowid = ? AND '\(arm.scope.rawValue)' > '\(post.scope.rawValue)'))"
                    : "(t.modified_at > ? OR (t.modified_at = ? AND t.id > ?) OR (? IS NULL AND (t.modified_at IS NOT NULL OR t.id > ?)))"
                let arguments: StatementArguments = searched ? [sort, sort] : [sort, sort, post.id, sort, post.id]
                return total + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(arm.from) WHERE \(arm.condition) AND \(before)",
                                                 arguments: arm.arguments + arguments) ?? 0)
            }
        }
    }

    /// One post, its location opened, for the detail pane; nil when it is gone.
    public func post(id: String, zone: ZoneID, scope: DatabaseScope) throws -> Post? {
        try read { db in
            try Self.localPost(db, scope, RecordID(name: id, zone: zone)).map { try opened(db, $0) }
        }
    }

    /// A record as a person reads it in a line about it: a post by its title, a comment by the post it is on, with its
    /// ID; its ID alone where this device holds neither (a post it cannot read now, say).
    public func spoken(_ id: RecordID) -> String {
        // (Only a name: a store that cannot be read now still lets the line be said, by the ID.)
        let named = try? read { db -> String? in
            for scope in [DatabaseScope.private, .shared] {
                if let post = try Self.localPost(db, scope, id) { return "\"\(post.title)\" (\(id.name))" }
                if let comment = try Self.localComment(db, scope, id) {
                    let on = try Self.localPost(db, scope, RecordID(name: comment.postID, zone: id.zone)).map { " on \"\($0.title)\"" }
                    return "comment\(on ?? "") (\(id.name))"
                }
            }
            return nil
        }
        return named.flatMap { $0 } ?? id.name
    }

    /// The tags of this device's latest posts (up to `recent` of each store: a list of a million posts is
    /// not read whole to offer tags), most used first (for `f` and `:filter tag:`).
    public func tags(limit: Int = 50, recent: Int = 5000) throws -> [String] {
        try read { db in
            var counts: [String: Int] = [:]
            for schema in ["main", "shared"] {
                let sql = "SELECT tags FROM \(schema).posts WHERE tags <> '[]' ORDER BY modified_at DESC LIMIT ?"
                for text in try String.fetchAll(db, sql: sql, arguments: [recent]) {
                    for tag in TagsColumn.tags(from: text) { counts[tag, default: 0] += 1 }
                }
            }
            return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(limit).map(\.key)
        }
    }

    /// The accounts this device knows of: every notebook's owner and every share's participants.
    public func knownPeople() throws -> Set<String> {
        try read { db in
            var people = Set(try String.fetchAll(db, sql: "SELECT zone_owner FROM main.notebooks UNION SELECT zone_owner FROM shared.notebooks"))
            for schema in ["main", "shared"] {
                let stored = try Data.fetchAll(db, sql: "SELECT record FROM \(schema).server_records WHERE \(Self.shareNames)")
                for share in try Self.shares(fromStored: stored) { people.formUnion(share.participants.compactMap(\.userRecordID)) }
            }
            return people
        }
    }

    // MARK: Query parts

    /// What one store contributes to a list: the rows of `from` (posts as `t`) meeting `condition`.
    private struct Arm {
        var scope: DatabaseScope
        var from: String
        var condition: String
        var arguments: StatementArguments
        /// The condition is the search's alone (on `w`, the index).
        var searchOnly = false
    }

    private static func samePost(_ a: String, _ b: String) -> String {
        "ON \(a).zone_name = \(b).zone_name AND \(a).zone_owner = \(b).zone_owner AND \(a).id = \(b).id"
    }

    /// The part of the query each store contributes under a filter.
    private func arms(_ filter: PostFilter) -> [Arm] {
        var scopes: [DatabaseScope] = [.private, .shared]
        if let book = filter.notebook { scopes = [book.scope] }
        if filter.kind == .sharedWithMe { scopes.removeAll { $0 != .shared } }
        if filter.kind == .sharedByMe { scopes.removeAll { $0 != .private } }
        return scopes.map { scope in
            let schema = Self.schema(scope)
            var conditions: [String] = [], arguments: StatementArguments = []
            var from = "\(schema).posts t"
            if let match = filter.search?.match {
                from = "\(schema).post_words w JOIN \(schema).post_order o ON o.key = w.rowid JOIN \(schema).posts t \(Self.samePost("o", "t"))"
                conditions.append("w.post_words MATCH ?")
                arguments += [match]
            }
            if let book = filter.notebook {
                conditions.append("t.zone_name = ? AND t.zone_owner = ?")
                arguments += [book.zone.name, book.zone.owner]
            }
            if let tag = filter.tag {
                conditions.append("instr(t.tags, ?) > 0")
                arguments += [String(TagsColumn.text([tag]).dropFirst().dropLast())]  // the tag as the column quotes it
            }
            if let owner = filter.owner {
                conditions.append("t.zone_owner = ?")
                arguments += [owner]
            }
            switch filter.kind {
            case .conflicts: conditions.append("t.conflicted <> 0")
            case .waiting: conditions.append("EXISTS(SELECT 1 FROM \(schema).pending p WHERE \(Self.samePending) AND p.refused IS NULL)")
            case .notSent: conditions.append("EXISTS(SELECT 1 FROM \(schema).pending p WHERE \(Self.samePending) AND p.refused IS NOT NULL)")
            case .sharedByMe:
                conditions.append("""
                    EXISTS(SELECT 1 FROM \(schema).server_records s WHERE s.zone_name = t.zone_name AND s.zone_owner = t.zone_owner
                           AND (s.name = 'share-' || t.id OR s.name = '\(Share.zoneWideRecordName)'))
                    """)
            case .sharedWithMe, nil: break
            }
            return Arm(scope: scope, from: from, condition: conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), arguments: arguments,
                       searchOnly: filter.search?.match != nil && conditions.count == 1)
        }
    }

    /// The pending row `p` of the post `t`.
    private static let samePending = "p.zone_name = t.zone_name AND p.zone_owner = t.zone_owner AND p.name = t.id"

    /// A page of the list, newest first or (to read a window near the end) oldest first.
    private func page(_ filter: PostFilter, newestFirst: Bool, limit: Int, offset: Int) -> (String, StatementArguments) {
        let searched = filter.search?.match != nil
        let direction = newestFirst ? "DESC" : "ASC"
        let order = searched ? "sort \(direction), scope \(direction)" : "sort \(direction), id \(direction)"
        var arguments: StatementArguments = []
        let selects = arms(filter).map { arm in
            arguments += arm.arguments
            arguments += [offset + limit]
            let columns = Self.postColumns.split(separator: ",").map { "t." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            // Each store's first `offset + limit` in order, then the two merged: each arm stops early.
            return """
                SELECT * FROM (SELECT '\(arm.scope.rawValue)' AS scope, \(columns.joined(separator: ", ")),
                    EXISTS(SELECT 1 FROM \(Self.schema(arm.scope)).pending p WHERE \(Self.samePending) AND p.refused IS NULL) AS is_pending,
                    EXISTS(SELECT 1 FROM \(Self.schema(arm.scope)).pending p WHERE \(Self.samePending) AND p.refused IS NOT NULL) AS is_refused,
                    \(searched ? "w.rowid" : "t.modified_at") AS sort
                FROM \(arm.from) WHERE \(arm.condition) ORDER BY \(searched ? "w.rowid \(direction)" : "t.modified_at \(direction), t.id \(direction)") LIMIT ?)
                """
        }
        arguments += [limit, offset]
        return ("SELECT * FROM (\(selects.joined(separator: " UNION ALL "))) ORDER BY \(order) LIMIT ? OFFSET ?", arguments)
    }
}
