import Cloud
import Foundation
import GRDB

extension DeviceStore {
    /// Opens the sealed locations of the posts `condition` (SQL over `posts`) picks into plain text, while
    /// the keys this device knew are still at hand: before their records are forgotten, so the posts go out
    /// again as new with their locations sealed by whatever key the cloud has then. A location no key here
    /// opens stays sealed, as the cloud had it.
    func openLocations(_ db: Database, _ scope: DatabaseScope, where condition: String, arguments: StatementArguments = []) throws {
        for post in try sealedPosts(db, scope, where: condition, arguments: arguments) {
            guard let location = post.location else { continue }
            try db.execute(sql: "UPDATE \(Self.schema(scope)).posts SET location = ?, location_sealed = NULL WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                           arguments: [location, post.zone.name, post.zone.owner, post.id])
        }
    }

    /// The posts `condition` (SQL over `posts`) picks that hold a sealed location, opened where a key is at hand.
    func sealedPosts(_ db: Database, _ scope: DatabaseScope, where condition: String = "1",
                     arguments: StatementArguments = []) throws -> [Post] {
        try Row.fetchAll(db, sql: """
            SELECT \(Self.postColumns) FROM \(Self.schema(scope)).posts WHERE location IS NULL AND location_sealed IS NOT NULL AND (\(condition))
            """, arguments: arguments).map { try opened(db, Self.post(from: $0, scope: scope)) }
    }

    /// Readies the device to rebuild a cloud that lost its data: every
    /// location is opened while the keys this device knew are still at hand
    /// (the rebuilt cloud may have other keys, or none), everything the
    /// device knew of the cloud's records is forgotten (a merge then keeps
    /// whatever either side holds), and every post, comment and notebook of
    /// this account waits to be sent again.
    func prepareReupload() throws {
        try write(.private, .shared) { db in
            for scope in [DatabaseScope.private, .shared] {
                let schema = Self.schema(scope)
                try openLocations(db, scope, where: "1")
                // The rebuilt cloud may lack the key generations the device knew: while it merges with what the
                // cloud holds, it still opens locations they sealed.
                try db.execute(sql: """
                    INSERT OR IGNORE INTO \(schema).retired_keys(zone_name, zone_owner, record)
                    SELECT zone_name, zone_owner, record FROM \(schema).server_records WHERE name LIKE 'keys%'
                    """)
                try db.execute(sql: "DELETE FROM \(schema).server_records")
                try db.execute(sql: "UPDATE \(schema).posts SET change_tag = NULL")
                for table in ["posts", "comments"] {
                    try db.execute(sql: """
                        INSERT OR REPLACE INTO \(schema).pending(zone_name, zone_owner, name, kind)
                        SELECT zone_name, zone_owner, id, ? FROM \(schema).\(table)
                        """, arguments: [PendingKind.saveRecord.rawValue])
                }
            }
            try db.execute(sql: """
                INSERT OR REPLACE INTO main.pending(zone_name, zone_owner, name, kind) SELECT zone_name, zone_owner, '', ? FROM main.notebooks
                """, arguments: [PendingKind.saveZone.rawValue])
            // A post this device moved goes out as moved again, from where it was (its original's deletion waits
            // there): a cloud put back from before the move then keeps the move's mark in the old notebook, and a
            // device rebuilding it from before the move is told where the post is (app seed 98332), not making it
            // twice. (Not where this device holds the post in that notebook too: that copy is sent as it is.)
            try db.execute(sql: """
                INSERT OR IGNORE INTO main.pending(zone_name, zone_owner, name, kind)
                SELECT m.from_zone, m.from_owner, m.name, ? FROM main.moves m JOIN main.notebooks b
                ON b.zone_name = m.from_zone AND b.zone_owner = m.from_owner
                WHERE EXISTS (SELECT 1 FROM main.posts p WHERE p.zone_name = m.to_zone AND p.zone_owner = m.to_owner AND p.id = m.name)
                """, arguments: [PendingKind.deleteRecord.rawValue])
        }
    }
}
