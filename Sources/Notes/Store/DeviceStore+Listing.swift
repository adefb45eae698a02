import Cloud
import Foundation
import GRDB

/// A post as a list shows it: the row without its location (opening a
/// sealed location costs a key agreement; only the detail needs it).
public struct ListedPost: Equatable, Sendable {
    public var post: Post
    /// A change to it waits to be sent.
    public var pending: Bool
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

/// Which posts a list shows: all of them, or one notebook's.
public struct PostFilter: Equatable, Sendable {
    public var notebook: Notebook?

    public init(notebook: Notebook? = nil) { self.notebook = notebook }

    public static let all = PostFilter()
}

/// Reading posts a screenful at a time, newest first (modification time, then
/// ID), across both stores, so a list of 100,000 posts costs what it shows.
extension DeviceStore {
    public func postCount(_ filter: PostFilter = .all) throws -> Int {
        try read { db in
            try arms(filter).reduce(0) { total, arm in
                total + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(arm.table) WHERE \(arm.condition)", arguments: arm.arguments) ?? 0)
            }
        }
    }

    /// `limit` posts from position `offset` of the list. Given the list's
    /// length, a window in its second half is read from the end (SQLite steps
    /// over the rows an OFFSET skips, so the last page costs what the first does).
    public func listedPosts(_ filter: PostFilter = .all, offset: Int, limit: Int, total: Int? = nil) throws -> [ListedPost] {
        try read { db in
            let (sql, arguments) = union(filter, columns: "\(Self.postColumns), EXISTS(SELECT 1 FROM SCHEMA.pending p WHERE p.zone_name = t.zone_name AND p.zone_owner = t.zone_owner AND p.name = t.id) AS is_pending")
            let rows: [Row]
            if let total, offset > total / 2 {
                let fromEnd = max(0, total - offset - limit)
                rows = try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY modified_at, id LIMIT ? OFFSET ?"),
                                        arguments: arguments + [min(limit, total - offset), fromEnd]).reversed()
            } else {
                rows = try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY modified_at DESC, id DESC LIMIT ? OFFSET ?"), arguments: arguments + [limit, offset])
            }
            return try rows.map {
                let post = Self.post(from: $0, scope: $0["scope"] == "shared" ? .shared : .private, at: 1)
                let (comments, seenAt, arrivedAt) = try Self.commentsAndSeen(db, post)
                return ListedPost(post: post, pending: $0["is_pending"], comments: comments, seenAt: seenAt, arrivedAt: arrivedAt)
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

    /// The position of the first post after (or, backwards, before) position
    /// `from` whose title or content contains `text`, wrapping around; nil when none does.
    public func position(of text: String, after from: Int, backwards: Bool = false, _ filter: PostFilter = .all) throws -> Int? {
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let start = from < 0 ? nil : try listedPosts(filter, offset: from, limit: 1).first.map { ($0.post.modifiedAt?.timeIntervalSince1970, $0.post.id) }
        return try read { db in
            let matching = "AND (title LIKE ? ESCAPE '\\' OR content LIKE ? ESCAPE '\\')"
            let order = backwards ? "modified_at, id" : "modified_at DESC, id DESC"
            let beyond = backwards ? "(modified_at > ? OR (modified_at = ? AND id > ?))" : "(modified_at < ? OR (modified_at = ? AND id < ?))"
            var tries: [(String, StatementArguments)] = []
            if let start { tries.append(("\(matching) AND \(beyond)", [pattern, pattern, start.0, start.0, start.1])) }
            tries.append((matching, [pattern, pattern]))  // wrapped around
            for (condition, extra) in tries {
                let (sql, arguments) = union(filter, columns: "modified_at, id", extra: condition, extraArguments: extra)
                if let row = try Row.fetchOne(db, sql: sql + " ORDER BY \(order) LIMIT 1", arguments: arguments) {
                    return try position(db, filter, (row["modified_at"], row["id"]))
                }
            }
            return nil
        }
    }

    /// Where a post stands in the list now (its place moves when it is edited), if the filter shows it.
    public func position(of post: Post, _ filter: PostFilter = .all) throws -> Int? {
        if let book = filter.notebook, book.zone != post.zone || book.scope != post.scope { return nil }
        return try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT modified_at FROM \(Self.schema(post.scope)).posts WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                                             arguments: [post.zone.name, post.zone.owner, post.id]) else { return nil }
            return try position(db, filter, (row["modified_at"], post.id))
        }
    }

    /// How many posts come before the one with this key in the list.
    private func position(_ db: Database, _ filter: PostFilter, _ key: (Double?, String)) throws -> Int {
        try arms(filter).reduce(0) { total, arm in
            let before = "(modified_at > ? OR (modified_at = ? AND id > ?) OR (? IS NULL AND modified_at IS NOT NULL))"
            return total + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(arm.table) WHERE \(arm.condition) AND \(before)",
                                             arguments: arm.arguments + [key.0, key.0, key.1, key.0]) ?? 0)
        }
    }

    /// One post, its location opened, for the detail pane; nil when it is gone.
    public func post(id: String, zone: ZoneID, scope: DatabaseScope) throws -> Post? {
        try read { db in
            try Self.localPost(db, scope, RecordID(name: id, zone: zone)).map { try opened(db, $0) }
        }
    }

    // MARK: Query parts

    private struct Arm {
        var schema: String
        var table: String { "\(schema).posts" }
        var condition: String
        var arguments: StatementArguments
    }

    /// The part of the query each store contributes under a filter.
    private func arms(_ filter: PostFilter) -> [Arm] {
        guard let book = filter.notebook else {
            return [Arm(schema: "main", condition: "1", arguments: []), Arm(schema: "shared", condition: "1", arguments: [])]
        }
        return [Arm(schema: Self.schema(book.scope), condition: "zone_name = ? AND zone_owner = ?", arguments: [book.zone.name, book.zone.owner])]
    }

    private func union(_ filter: PostFilter, columns: String, extra: String = "", extraArguments: StatementArguments = []) -> (String, StatementArguments) {
        var arguments: StatementArguments = []
        let selects = arms(filter).map { arm in
            arguments += arm.arguments
            arguments += extraArguments
            let scope = arm.schema == "shared" ? "shared" : "private"
            return "SELECT '\(scope)' AS scope, \(columns.replacingOccurrences(of: "SCHEMA.", with: "\(arm.schema).")) FROM \(arm.table) t WHERE \(arm.condition) \(extra)"
        }
        return (selects.joined(separator: " UNION ALL "), arguments)
    }
}
