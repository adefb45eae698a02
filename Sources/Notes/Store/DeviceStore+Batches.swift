import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// Reads for a whole batch of a sync (up to a few hundred records) in one
/// query per zone, where one query per record spent more on preparing
/// cursors and rows than SQLite spent finding them.
extension DeviceStore {
    static func localPosts(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: Post] {
        try byRecord(db, ids, "SELECT \(postColumns) FROM \(schema(scope)).posts WHERE zone_name = ? AND zone_owner = ? AND id IN (NAMES)") {
            let post = post(from: $0, scope: scope)
            return (post.id, post)
        }
    }

    /// The last known server record of each ID that has one.
    static func lastKnown(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: Record] {
        let archives = try byRecord(db, ids, """
            SELECT name, record FROM \(schema(scope)).server_records WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)
            """) { row in (row[0] as String, row[1] as Data) }
        return archives.compactMapValues { try? RecordArchive.decode($0) }
    }

    /// The change tags of the last known server records, without reading the records.
    static func knownChangeTags(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: String] {
        try byRecord(db, ids, """
            SELECT name, change_tag FROM \(schema(scope)).server_records
            WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES) AND change_tag IS NOT NULL
            """) { row in (row[0] as String, row[1] as String) }
    }

    /// What is pending for each ID that waits to be sent ("saveRecord" or "deleteRecord").
    static func pendingKinds(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: String] {
        try byRecord(db, ids, "SELECT name, kind FROM \(schema(scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)") { row in
            (row[0] as String, row[1] as String)
        }
    }

    /// Runs `sql` (whose `NAMES` stands for the list of record names) for each
    /// zone of `ids` and each slice of a few hundred names; `entry` turns a row
    /// into a record name and its value. The statement of a full slice is
    /// prepared once and reused.
    private static func byRecord<Value>(_ db: Database, _ ids: [RecordID], _ sql: String,
                                        entry: (Row) throws -> (String, Value)) throws -> [RecordID: Value] {
        let slice = 200
        var found: [RecordID: Value] = [:]
        for (zone, zoneIDs) in Dictionary(grouping: ids, by: \.zone) {
            for start in stride(from: 0, to: zoneIDs.count, by: slice) {
                let names = zoneIDs[start..<min(zoneIDs.count, start + slice)].map(\.name)
                let placeholders = Array(repeating: "?", count: names.count).joined(separator: ",")
                let statement = try db.cachedStatement(sql: sql.replacingOccurrences(of: "NAMES", with: placeholders))
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments([zone.name, zone.owner] + names))
                while let row = try rows.next() {
                    let (name, value) = try entry(row)
                    found[RecordID(name: name, zone: zone)] = value
                }
            }
        }
        return found
    }
}
