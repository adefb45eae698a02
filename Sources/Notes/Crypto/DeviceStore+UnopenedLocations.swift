import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// A location typed on a device that could not open the one the post held
/// (sealed with a key not granted to it yet). The person never saw that
/// location, so typing over it removes nothing of it: the typed one waits on
/// this device, the sealed one kept beside it (`unopened_locations`), and the
/// cloud keeps its own; once a key opens the sealed one, the post holds both
/// (in a conflict block when they differ) and the merge goes out.
extension DeviceStore {
    /// Keeps, as an edit is saved, the sealed location it was typed over.
    static func keepUnopened(_ db: Database, _ scope: DatabaseScope, _ id: RecordID, sealed: Data) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO \(schema(scope)).unopened_locations(zone_name, zone_owner, id, sealed) VALUES (?, ?, ?, ?)",
                       arguments: [id.zone.name, id.zone.owner, id.name, sealed])
    }

    /// The sealed location the post's typed one waits beside, if any.
    static func unopenedLocation(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT sealed FROM \(schema(scope)).unopened_locations WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                          arguments: [id.zone.name, id.zone.owner, id.name])
    }

    /// The posts whose typed location waits beside an unopened one.
    static func unopenedIDs(_ db: Database, _ scope: DatabaseScope) throws -> [RecordID] {
        try Row.fetchAll(db, sql: "SELECT zone_name, zone_owner, id FROM \(schema(scope)).unopened_locations")
            .map { RecordID(name: $0["id"], zone: ZoneID(name: $0["zone_name"], owner: $0["zone_owner"])) }
    }

    static func forgetUnopened(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        try db.execute(sql: "DELETE FROM \(schema(scope)).unopened_locations WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                       arguments: [id.zone.name, id.zone.owner, id.name])
    }

    /// The post with the location it was typed over merged in, when a key opens that one now; `waiting`
    /// when it still cannot be opened here.
    func mergingUnopened(_ db: Database, _ post: Post) throws -> (post: Post, waiting: Bool) {
        guard let sealed = try Self.unopenedLocation(db, post.scope, post.recordID) else { return (post, false) }
        guard let keyring else { return (post, true) }
        let records = try Self.openingKeyRecords(db, post.scope, zone: post.zone)
        guard let theirs = Self.open(sealed, keyring.openZoneKeys(from: records, zone: post.zone), post.recordID) else {
            // A participant seals only with keys the owner granted, which the owner's records name. On the owner's
            // device holding every one of them, a participant's location that none opens was sealed with no key of
            // the notebook's (a raw write): it never opens, so what was typed replaces it. (One the owner's own other
            // device wrote may be sealed with a key not filed yet: it waits.) A device holds a prefix of its zone's
            // changes, so holding the participant's record it holds every key record filed before it (and the
            // generations written over since, retired).
            let record = try Self.lastKnown(db, post.scope, post.recordID)
            guard post.scope == .private, let writer = record?.system?.modifiedBy, writer != post.zone.owner,
                  record?.encrypted(Post.Key.location) == sealed, keyring.opensEveryGeneration(in: records, zone: post.zone)
            else { return (post, true) }
            try Self.forgetUnopened(db, post.scope, post.recordID)
            return (post, false)
        }
        try Self.forgetUnopened(db, post.scope, post.recordID)
        return (typedOver(post, theirs, by: try Self.lastKnown(db, post.scope, post.recordID)), false)
    }

    /// A location typed without seeing `theirs` (written by the author of `record`) beside it: both are
    /// kept, since nothing of theirs was removed on purpose.
    private func typedOver(_ post: Post, _ theirs: String?, by record: Record?) -> Post {
        var unseen = post.fields
        unseen.location = nil
        var other = post.fields
        other.location = theirs
        let merged = PostMerge.merge(base: unseen, mine: .init(post.fields, by: author(of: post)),
                                     theirs: .init(other, by: author(of: record.map { Post(record: $0, scope: post.scope) } ?? post)))
        var result = post
        result.fields = merged.fields
        result.sealedLocation = nil
        result.conflicted = post.conflicted || merged.conflicted
        return result
    }

    /// Before a send of `scope`: every post whose typed location waits beside one a key now opens takes
    /// both. A waiting location whose edit is no longer pending (refused, or its post gone) is forgotten with it.
    public func mergeUnopenedLocations(_ scope: DatabaseScope) throws {
        guard try read({ db in try unopenedLocationCount(db, scope) }) > 0 else { return }
        try write(scope) { db in
            let ids = try Self.unopenedIDs(db, scope)
            guard !ids.isEmpty else { return }
            let kinds = try Self.pendingKinds(db, scope, ids), posts = try Self.localPosts(db, scope, ids)
            for id in ids {
                guard kinds[id] == .saveRecord, let post = posts[id] else {
                    try Self.forgetUnopened(db, scope, id)
                    continue
                }
                let (merged, waiting) = try mergingUnopened(db, post)
                if !waiting { try Self.upsert(db, merged) }
            }
        }
    }

    /// How many posts hold a typed location waiting beside one this device cannot open yet.
    func unopenedLocationCount(_ db: Database, _ scope: DatabaseScope) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(Self.schema(scope)).unopened_locations") ?? 0
    }
}
