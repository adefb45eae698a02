import Cloud
import Crypto
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

extension DeviceStore {
    /// The key records of a zone this device has fetched.
    static func keyRecords(_ db: Database, _ scope: DatabaseScope, zone: ZoneID) throws -> [Record] {
        try Data.fetchAll(db, sql: "SELECT record FROM \(schema(scope)).server_records WHERE zone_name = ? AND zone_owner = ? AND name LIKE 'keys%'",
                          arguments: [zone.name, zone.owner])
            .map { try RecordArchive.decode($0) }
    }

    /// The zone's key records to open with: those fetched, and those of a cloud this device rebuilt
    /// (`prepareReupload`). Only fetched ones seal.
    static func openingKeyRecords(_ db: Database, _ scope: DatabaseScope, zone: ZoneID) throws -> [Record] {
        let retired = try Data.fetchAll(db, sql: "SELECT record FROM \(schema(scope)).retired_keys WHERE zone_name = ? AND zone_owner = ?",
                                        arguments: [zone.name, zone.owner]).map { try RecordArchive.decode($0) }
        return try keyRecords(db, scope, zone: zone) + retired
    }

    /// Keeps the key records `records` replace or `deleted` deletes, as retired, when the new version drops a
    /// generation, or an envelope, the one held here had (a participant who may write the zone's records wrote
    /// over it or deleted it, or a device rebuilt it without generations it never held): what they sealed
    /// still opens here, the owner's devices put them back in the cloud (see `Keyring.grant`), and who was
    /// granted what is still known. What is retired already is not kept twice.
    static func retireKeysWrittenOver(_ db: Database, _ scope: DatabaseScope, by records: [Record], deleted: [RecordID] = []) throws {
        let incoming = Dictionary(records.filter { $0.type == ZoneKeys.recordType }.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let ids = Array(incoming.keys) + deleted.filter { $0.name.hasPrefix("keys") }
        guard !ids.isEmpty else { return }
        // Envelopes too, not only generations: whom a generation was wrapped for tells who may hold it (see
        // `Keyring.holdersOfNewest`), even once a participant's envelopes were written over.
        func envelopes(_ keys: ZoneKeys) -> Set<String> {
            Set(keys.generations.flatMap { generation in generation.envelopes.keys.map { generation.id + " " + $0 } })
        }
        var retired: [ZoneID: Set<String>] = [:]  // what each zone's retired records hold, read once per zone
        for (id, old) in try lastKnown(db, scope, ids) where old.type == ZoneKeys.recordType && Keyring.isTrusted(old, zone: id.zone) {
            if retired[id.zone] == nil {
                retired[id.zone] = try Data.fetchAll(db, sql: "SELECT record FROM \(schema(scope)).retired_keys WHERE zone_name = ? AND zone_owner = ?",
                                                     arguments: [id.zone.name, id.zone.owner])
                    .map { try RecordArchive.decode($0) }.reduce(into: Set<String>()) { $0.formUnion(envelopes(ZoneKeys(record: $1))) }
            }
            let new = incoming[id].flatMap { Keyring.isTrusted($0, zone: id.zone) ? ZoneKeys(record: $0) : nil } ?? ZoneKeys()
            let held = envelopes(ZoneKeys(record: old))
            guard !held.isSubset(of: envelopes(new).union(retired[id.zone]!)) else { continue }
            try db.execute(sql: "INSERT OR IGNORE INTO \(schema(scope)).retired_keys(zone_name, zone_owner, record) VALUES (?, ?, ?)",
                           arguments: [id.zone.name, id.zone.owner, RecordArchive.encode(old)])
            retired[id.zone]!.formUnion(held)
        }
    }

    /// The post with its location opened, when it came sealed and a key is at hand.
    func opened(_ db: Database, _ post: Post) throws -> Post {
        guard post.location == nil, let sealed = post.sealedLocation, let keyring else { return post }
        let keys = keyring.openZoneKeys(from: try Self.openingKeyRecords(db, post.scope, zone: post.zone), zone: post.zone)
        guard !keys.isEmpty else { return post }
        var opened = post
        opened.location = Self.open(sealed, keys, post.recordID)
        opened.conflicted = opened.conflicted || ConflictBlock.isConflicted(opened.fields)
        return opened
    }

    /// Seals the post's location into the record to send. The owner makes
    /// the zone's key if it has none; a participant uses the key its share
    /// granted. Without a key the location is left as the cloud has it: it
    /// never travels in plain text. A post still holding a sealed location
    /// it could not open leaves it too (removing a location clears the sealed
    /// one, see `saveEdit`), and so does one typed over such a location (see
    /// `mergeUnopenedLocations`).
    func sealLocation(of post: Post, into record: inout Record) throws {
        guard let keyring else { return }
        guard let location = post.location else {
            if post.sealedLocation == nil, record.encrypted(Post.Key.location) != nil,
               try read({ db in try Self.unopenedLocation(db, post.scope, post.recordID) }) == nil {
                record.setEncrypted(Post.Key.location, nil)
            }
            return
        }
        // Read only for a post with a location: a send reads its keys per post, and most posts have none.
        let (known, unopened) = try read { db in
            (try Self.keyRecords(db, post.scope, zone: post.zone), try Self.unopenedLocation(db, post.scope, post.recordID))
        }
        // Typed over a location this device cannot open yet: the cloud keeps its own until both can be kept.
        guard unopened == nil else { return }
        // Only keys at hand: the record provider must not talk to the cloud (see `prepareZoneKeys`).
        let keys = keyring.openZoneKeys(from: known, zone: post.zone)
        guard let key = keyring.sealingKey(from: known, zone: post.zone) else { return }
        if let current = record.encrypted(Post.Key.location), Self.open(current, keys, post.recordID) == location { return }
        record.setEncrypted(Post.Key.location, try Sealing.seal(location, key: key, record: post.recordID))
    }
}

extension DeviceStore {
    /// Makes sure this account's zones holding posts with a location to send
    /// have a key, before a send: a failure here is a failed sync, retried
    /// later, and never a change dropped.
    func prepareZoneKeys() throws {
        guard let keyring else { return }
        let zones = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT DISTINCT p.zone_name, p.zone_owner FROM main.posts p JOIN main.pending q
                ON q.zone_name = p.zone_name AND q.zone_owner = p.zone_owner AND q.name = p.id
                WHERE p.location IS NOT NULL
                """).map { ZoneID(name: $0["zone_name"], owner: $0["zone_owner"]) }
        }
        for zone in zones {
            let known = try read { db in try Self.keyRecords(db, .private, zone: zone) }
            guard keyring.sealingKey(from: known, zone: zone) == nil else { continue }  // at hand already
            do {
                _ = try keyring.ownZoneKey(zone, known: known, kept: keptKeyRecords(zone))
            } catch CloudError.zoneNotFound {
                continue  // the send creates the zone; the location goes out sealed on the next sync
            }
            try keepOwnKeysAtHand(zone)
        }
    }

    /// Stores the cloud's key record of one of this account's zones, so the record provider seals with what
    /// it holds now without asking the cloud.
    func keepOwnKeysAtHand(_ zone: ZoneID) throws {
        guard let keyring else { return }
        let record = try keyring.cloud.database(.private, as: keyring.account).record(ZoneKeys.recordID(zone: zone, root: nil))
        try write { db in try Self.remember(db, .private, record) }
    }

    /// The notebooks (zones) holding a post whose location waits to be sent because this device holds no
    /// key of the zone yet (a participant's device with a new keychain, until the owner's devices grant it
    /// one), or it was typed over a location this device cannot open yet.
    public func locationsWaitingForKeys() throws -> [ZoneID] {
        guard let keyring else { return [] }
        return try read { db in
            let zones = try Row.fetchAll(db, sql: """
                SELECT DISTINCT p.zone_name, p.zone_owner FROM shared.posts p JOIN shared.pending q
                ON q.zone_name = p.zone_name AND q.zone_owner = p.zone_owner AND q.name = p.id
                WHERE p.location IS NOT NULL
                """).map { ZoneID(name: $0["zone_name"], owner: $0["zone_owner"]) }
            var waiting = try zones.filter { keyring.sealingKey(from: try Self.keyRecords(db, .shared, zone: $0), zone: $0) == nil }
            for scope in [DatabaseScope.private, .shared] {
                for zone in try Self.unopenedIDs(db, scope).map(\.zone) where !waiting.contains(zone) { waiting.append(zone) }
            }
            return waiting
        }
    }

    /// How many posts hold a location this device cannot open (it was granted no key for it yet): for
    /// `status`, so a missing location is never silent.
    public func lockedLocationCount() throws -> Int {
        try read { db in
            try [DatabaseScope.private, .shared].map {
                try sealedPosts(db, $0).filter(\.locationLocked).count + unopenedLocationCount(db, $0)
            }.reduce(0, +)
        }
    }

    /// Whether the cloud's record holds the post's location (sealed), as the device has it.
    func locationSynced(_ db: Database, _ post: Post, in record: Record) -> Bool {
        guard let location = post.location else { return record.encrypted(Post.Key.location) == nil }
        guard let sealed = record.encrypted(Post.Key.location), let keyring,
              // (Keys that do not read are not known to match: the post stays pending and is sent again, never taken as synced.)
              let known = try? Self.openingKeyRecords(db, post.scope, zone: post.zone) else { return false }
        return Self.open(sealed, keyring.openZoneKeys(from: known, zone: post.zone), post.recordID) == location
    }
}

extension DeviceStore {
    /// A sealed value opened with whichever generation of the zone's key sealed it.
    static func open(_ sealed: Data, _ keys: [SymmetricKey], _ id: RecordID) -> String? {
        for key in keys.reversed() { if let text = Sealing.open(sealed, key: key, record: id) { return text } }
        return nil
    }
}
