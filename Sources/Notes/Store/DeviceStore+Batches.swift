import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// Reads and deletes for a whole batch of a sync (up to a few hundred
/// records) in one statement per zone, where one statement per record spent
/// more on preparing cursors and rows than SQLite spent finding them.
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

    /// Runs `head` (an `INSERT … INTO table(columns)` of `width` columns) for every item.
    static func insertRows<Item>(_ db: Database, _ head: String, width: Int, _ items: [Item],
                                 _ values: (Item) -> [(any DatabaseValueConvertible)?]) throws {
        try inRows(items, width: width, values) { list, arguments in
            try db.cachedStatement(sql: head + " VALUES " + list).execute(arguments: arguments)
        }
    }

    /// Calls `body` for each hundred items with their `VALUES` list (`(?,…),(?,…)`, `width` placeholders a
    /// row) and its arguments: a statement per row cost more in binding and stepping than SQLite spent on it.
    static func inRows<Item>(_ items: [Item], width: Int, _ values: (Item) -> [(any DatabaseValueConvertible)?],
                             _ body: (String, StatementArguments) throws -> Void) throws {
        let perStatement = 100
        let row = "(" + Array(repeating: "?", count: width).joined(separator: ",") + ")"
        for start in stride(from: 0, to: items.count, by: perStatement) {
            let chunk = items[start..<min(items.count, start + perStatement)]
            var arguments: [(any DatabaseValueConvertible)?] = []
            arguments.reserveCapacity(chunk.count * width)
            for item in chunk { arguments += values(item) }
            try body(Array(repeating: row, count: chunk.count).joined(separator: ","), StatementArguments(arguments))
        }
    }

    /// Forgets the pending changes of `ids`: a batch's worth of rows in a statement per few hundred.
    static func clearPending(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws {
        try inSlices(db, ids, "DELETE FROM \(schema(scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)") {
            statement, arguments, _ in try statement.execute(arguments: arguments)
        }
    }

    /// Runs `sql` (whose `NAMES` stands for the list of record names) for each
    /// zone of `ids` and each slice of a few hundred names; `entry` turns a row
    /// into a record name and its value.
    private static func byRecord<Value>(_ db: Database, _ ids: [RecordID], _ sql: String,
                                        entry: (Row) throws -> (String, Value)) throws -> [RecordID: Value] {
        var found: [RecordID: Value] = [:]
        try inSlices(db, ids, sql) { statement, arguments, zone in
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                let (name, value) = try entry(row)
                found[RecordID(name: name, zone: zone)] = value
            }
        }
        return found
    }

    /// Calls `body` for each zone of `ids` and each slice of a few hundred of
    /// its names, with the statement of `sql` for the slice (`NAMES` replaced
    /// by its placeholders) and its arguments: the zone, then the names. The
    /// statement of a full slice is prepared once and reused.
    private static func inSlices(_ db: Database, _ ids: [RecordID], _ sql: String,
                                 _ body: (Statement, StatementArguments, ZoneID) throws -> Void) throws {
        let slice = 200
        for (zone, zoneIDs) in Dictionary(grouping: ids, by: \.zone) {
            for start in stride(from: 0, to: zoneIDs.count, by: slice) {
                let names = zoneIDs[start..<min(zoneIDs.count, start + slice)].map(\.name)
                let placeholders = Array(repeating: "?", count: names.count).joined(separator: ",")
                let statement = try db.cachedStatement(sql: sql.replacingOccurrences(of: "NAMES", with: placeholders))
                try body(statement, StatementArguments([zone.name, zone.owner] + names), zone)
            }
        }
    }
}
