import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

extension DeviceStore {
    /// A post's comments, oldest first.
    public func comments(on post: Post) throws -> [Comment] {
        try read { db in try Self.comments(db, on: post) }
    }

    static func comments(_ db: Database, on post: Post) throws -> [Comment] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM \(schema(post.scope)).comments WHERE zone_name = ? AND zone_owner = ? AND post_id = ?
            ORDER BY created_at, id
            """), arguments: [post.zone.name, post.zone.owner, post.id]).map { comment(from: $0, scope: post.scope) }
    }

    /// Adds a comment and marks it to be sent, in one transaction.
    public func add(_ comment: Comment, by account: String, now: Date) throws {
        var comment = comment
        comment.createdAt = now
        comment.createdBy = account
        comment.modifiedAt = now
        comment.modifiedBy = account
        try save(comment)
    }

    /// Changes the text of a comment, which only its author may.
    public func editComment(_ comment: Comment, text: String, by account: String, now: Date) throws {
        try requireAuthor(comment, account)
        var edited = comment
        edited.text = text
        edited.modifiedAt = now
        edited.modifiedBy = account
        try save(edited)
    }

    /// Deletes a comment, which only its author may, and marks the deletion to be sent.
    public func deleteComment(_ comment: Comment, by account: String) throws {
        try requireAuthor(comment, account)
        try write(comment.scope) { db in
            try db.execute(sql: "DELETE FROM \(Self.schema(comment.scope)).comments WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                           arguments: [comment.zone.name, comment.zone.owner, comment.id])
            try Self.markPending(db, comment.scope, zone: comment.zone, name: comment.id, kind: .deleteRecord)
        }
    }

    private func requireAuthor(_ comment: Comment, _ account: String) throws {
        guard comment.createdBy == account else {
            throw StoreError.invalid("only \(comment.createdBy.map(names) ?? "its author") changes that comment: it is theirs")
        }
    }

    private func save(_ comment: Comment) throws {
        try Self.requireFits(comment)
        try write(comment.scope) { db in
            try Self.upsert(db, comment)
            try Self.markPending(db, comment.scope, zone: comment.zone, name: comment.id, kind: .saveRecord)
        }
    }

    static func upsert(_ db: Database, _ comment: Comment) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO \(schema(comment.scope)).comments(id, zone_name, zone_owner, post_id, text, created_at, created_by,
                modified_at, modified_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [comment.id, comment.zone.name, comment.zone.owner, comment.postID, comment.text.keepable,
                             comment.createdAt?.timeIntervalSince1970, comment.createdBy, comment.modifiedAt?.timeIntervalSince1970,
                             comment.modifiedBy])
    }

    static func comment(from row: Row, scope: DatabaseScope) -> Comment {
        var comment = Comment(id: row["id"], postID: row["post_id"], zone: ZoneID(name: row["zone_name"], owner: row["zone_owner"]),
                              scope: scope, text: row["text"])
        comment.createdAt = (row["created_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        comment.createdBy = row["created_by"]
        comment.modifiedAt = (row["modified_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        comment.modifiedBy = row["modified_by"]
        return comment
    }

    static func localComment(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws -> Comment? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM \(schema(scope)).comments WHERE zone_name = ? AND zone_owner = ? AND id = ?"),
                         arguments: [id.zone.name, id.zone.owner, id.name]).map { comment(from: $0, scope: scope) }
    }
}
