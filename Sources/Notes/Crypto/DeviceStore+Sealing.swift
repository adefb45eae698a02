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
            .compactMap { try? JSONDecoder().decode(Record.self, from: $0) }
    }

    /// The post with its location opened, when it came sealed and a key is at hand.
    func opened(_ db: Database, _ post: Post) throws -> Post {
        guard post.location == nil, let sealed = post.sealedLocation, let keyring,
              let key = keyring.openZoneKey(from: try Self.keyRecords(db, post.scope, zone: post.zone), zone: post.zone)
        else { return post }
        var opened = post
        opened.location = Sealing.open(sealed, key: key, record: post.recordID)
        return opened
    }

    /// Seals the post's location into the record to send. The owner makes
    /// the zone's key if it has none; a participant uses the key its share
    /// granted. Without a key the location is left as the cloud has it: it
    /// never travels in plain text.
    func sealLocation(of post: Post, into record: inout Record) throws {
        guard let keyring else { return }
        let known = try read { db in try Self.keyRecords(db, post.scope, zone: post.zone) }
        guard let location = post.location else {
            if record.encrypted("location") != nil { record.setEncrypted("location", nil) }
            return
        }
        let key = post.scope == .private ? try keyring.ownZoneKey(post.zone, known: known)
            : keyring.openZoneKey(from: known, zone: post.zone)
        guard let key else { return }
        if let current = record.encrypted("location"), Sealing.open(current, key: key, record: post.recordID) == location { return }
        record.setEncrypted("location", try Sealing.seal(location, key: key, record: post.recordID))
    }
}
