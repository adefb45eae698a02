import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// Someone has the editor open on a shared post: a small record in the post's zone, below the post (so the
/// participants of its share see it), saved when the editor opens and deleted when it closes; `until` bounds
/// it if the editor never says goodbye (a crash, a lost network).
public struct Presence: Equatable, Sendable {
    static let recordType = "Presence"

    public var account: String
    public var postID: String
    public var zone: ZoneID
    public var until: Date

    /// The most an announcement may claim past its save (the front end renews every two minutes for five).
    static let longest: TimeInterval = 600

    /// One record per account and post, always below that post (a record that changed parent would count as a
    /// move in the zone, and make every participant of its post shares fetch the zone again).
    static func recordID(account: String, post: String, zone: ZoneID) -> RecordID {
        RecordID(name: "presence-\(account)-\(post)", zone: zone)
    }

    init?(record: Record) {
        guard record.type == Self.recordType, case .string(let post)? = record["post"], case .date(let until)? = record["until"],
              let system = record.system, record.parent == post, record.id.name == Self.recordID(account: system.modifiedBy, post: post, zone: record.id.zone).name
        else { return nil }
        // Whoever saved it is the one editing; and no longer than an editor's announcement lasts past its save.
        (account, postID, zone) = (system.modifiedBy, post, record.id.zone)
        self.until = min(until, system.modifiedAt.addingTimeInterval(Self.longest))
    }
}

extension PostSharing {
    /// Tells the post's other readers this account is editing it, until `until` (or `doneEditing`).
    public func announceEditing(_ post: Post, until: Date) throws {
        var record = Record(type: Presence.recordType, id: Presence.recordID(account: account.id, post: post.id, zone: post.zone))
        record.setParent(post.id)
        record["post"] = .string(post.id)
        record["until"] = .date(until)
        _ = try cloud.database(post.scope, as: account).save(record, policy: .allKeys)
    }

    /// The editor closed: the others stop seeing this account at work on the post.
    public func doneEditing(_ post: Post) throws {
        do {
            try cloud.database(post.scope, as: account).delete(Presence.recordID(account: account.id, post: post.id, zone: post.zone))
        } catch {
            if case .unknownItem = error { return }  // gone already
            throw error
        }
    }
}

extension DeviceStore {
    /// Who else has the editor open on a post this device holds, as its last fetch says, and not past `until`.
    public func presences(besides account: String, now: Date) throws -> [Presence] {
        let books = try notebooks()
        return try read { db in
            try books.flatMap { book in
                try Data.fetchAll(db.cachedStatement(sql: """
                    SELECT record FROM \(Self.schema(book.scope)).server_records
                    WHERE zone_name = ? AND zone_owner = ? AND name >= 'presence-' AND name < 'presence.'
                    """), arguments: [book.zone.name, book.zone.owner])
                    // (A presence that does not decode is skipped: presence is advisory and lapses within minutes.)
                    .compactMap { try? RecordArchive.decode($0) }.compactMap(Presence.init(record:))
                    .filter { $0.account != account && $0.until > now }
            }
        }
    }
}
