import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// A change the cloud refused for what it is (a post too large for a record, the account's storage full, a
/// value the cloud does not take): it stays on the device as typed, marked with the cloud's reason, is not sent
/// again as it is, and is never counted as sent. An edit of it writes its pending row anew, which clears the
/// mark and sends it again; `discardRefused` gives it up for the cloud's copy.
public struct RefusedChange: Equatable, Sendable {
    public var id: RecordID
    public var scope: DatabaseScope
    /// The post's title; nil for a comment.
    public var title: String?
    public var reason: String
    public var at: Date
}

extension DeviceStore {
    /// The most a post or comment may hold, as the cloud measures a record (`Record.encodedSize`).
    public static let recordLimit = CloudLimits().maxRecordBytes

    /// Why the cloud would refuse the record at once (too large), as the refusal a person reads; nil if it fits.
    static func tooLarge(_ record: Record, limit: Int = recordLimit) -> String? {
        let size = record.encodedSize
        return size > limit ? "too large for the cloud (\(ByteCount.over(size, limit: limit)))" : nil
    }

    /// Refuses a post that could never reach the cloud as it is, measured as a send builds its record (a location
    /// sealed adds AES-GCM's nonce and tag), before anything of it is saved. A title longer than the app writes
    /// that the post holds already (`title`: another client wrote it) is not this change's, and stays.
    public static func requireFits(_ post: Post, holding title: String? = nil) throws {
        guard post.title.count <= Post.maxTitleLength || post.title == title else {
            throw StoreError.invalid("a title holds at most \(Post.maxTitleLength) characters, and this one has \(post.title.count): "
                                     + "nothing was saved; put the rest in the text")
        }
        var record = Record(type: Post.recordType, id: post.recordID)
        post.apply(to: &record)
        if let location = post.location {
            record.setEncrypted(Post.Key.location, Data(count: location.utf8.count + sealingOverhead))
        } else if let sealed = post.sealedLocation {
            record.setEncrypted(Post.Key.location, sealed)
        }
        let size = record.encodedSize
        if size > recordLimit { throw StoreError.tooLarge(what: "\"\(post.title.prefix(60))\"", size: size, limit: recordLimit) }
    }

    static func requireFits(_ comment: Comment) throws {
        var record = Record(type: Comment.recordType, id: RecordID(name: comment.id, zone: comment.zone))
        comment.apply(to: &record)
        let size = record.encodedSize
        if size > recordLimit { throw StoreError.tooLarge(what: "the comment", size: size, limit: recordLimit) }
    }

    /// What sealing adds to a location: AES-GCM's 12-byte nonce and 16-byte tag.
    static let sealingOverhead = 28

    /// The reason a refused change is marked with, in words a person reads in `status` and on the post.
    static func refusalReason(_ record: Record, _ error: CloudError) -> String {
        switch error {
        case .limitExceeded(let why): tooLarge(record) ?? "refused by the cloud: \(why)"
        case .quotaExceeded: "the account's storage in the cloud is full"
        default: "refused by the cloud: \(error)"
        }
    }

    /// Marks a change waiting to be sent as refused: kept, shown, not sent again until edited.
    static func markRefused(_ db: Database, _ scope: DatabaseScope, _ id: RecordID, reason: String, at: Date) throws {
        try db.cachedStatement(sql: """
            UPDATE \(schema(scope)).pending SET refused = ?, refused_at = ? WHERE zone_name = ? AND zone_owner = ? AND name = ?
            """).execute(arguments: [reason, at.timeIntervalSince1970, id.zone.name, id.zone.owner, id.name])
    }

    /// Every change the cloud refused and this device keeps, oldest refusal first.
    public func refusedChanges() throws -> [RefusedChange] {
        try read { db in
            try [DatabaseScope.private, .shared].flatMap { scope in
                try Row.fetchAll(db, sql: """
                    SELECT q.zone_name, q.zone_owner, q.name, q.refused, q.refused_at, p.title FROM \(Self.schema(scope)).pending q
                    LEFT JOIN \(Self.schema(scope)).posts p ON p.zone_name = q.zone_name AND p.zone_owner = q.zone_owner AND p.id = q.name
                    WHERE q.refused IS NOT NULL ORDER BY q.refused_at, q.name
                    """).map { row in
                    RefusedChange(id: RecordID(name: row["name"], zone: ZoneID(name: row["zone_name"], owner: row["zone_owner"])),
                                  scope: scope, title: row["title"], reason: row["refused"],
                                  at: Date(timeIntervalSince1970: row["refused_at"] ?? 0))
                }
            }
        }
    }

    /// Why the cloud refused this post's change, if it did and the change is still kept here.
    public func refusal(of post: Post) throws -> String? {
        try read { db in
            try String.fetchOne(db, sql: """
                SELECT refused FROM \(Self.schema(post.scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name = ?
                """, arguments: [post.zone.name, post.zone.owner, post.id])
        }
    }

    /// Whether this device knows a copy of the post in the cloud (what discarding its refused change goes back to).
    public func cloudHasCopy(of post: Post) throws -> Bool {
        try read { db in try Self.lastKnown(db, post.scope, post.recordID) != nil }
    }

    /// Gives up a refused change: the post or comment goes back to the copy the cloud holds, or is gone from
    /// this device if the cloud never had it. Refuses a change that is not marked refused (it may yet be sent).
    public func discardRefused(_ id: RecordID, in scope: DatabaseScope) throws {
        try write(scope) { db in
            guard try String.fetchOne(db, sql: """
                SELECT refused FROM \(Self.schema(scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name = ?
                """, arguments: [id.zone.name, id.zone.owner, id.name]) != nil else {
                throw StoreError.invalid("\(id.name) holds no change the cloud refused: nothing to discard")
            }
            try restore(db, scope, id)
        }
    }
}

extension RefusedChange {
    /// "the post "Trip"", or "a comment": what was refused, as a sentence names it.
    public var what: String { title.map { "the post \"\($0.prefix(60))\"" } ?? "a comment" }
}
