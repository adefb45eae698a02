import Cloud
import Foundation
import GRDB
import SQLiteDirect
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// Reads and deletes for a whole batch of a sync (up to a few hundred
/// records) in one statement per zone, where one statement per record spent
/// more on preparing cursors and rows than SQLite spent finding them.
extension DeviceStore {
    static func localPosts(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: Post] {
        try localPostRows(db, scope, ids).mapValues(\.post)
    }

    /// The posts of `ids`, each with the change tag of the cloud's record its row holds whole, if it does.
    static func localPostRows(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: PostRow] {
        try byRecord(db, ids, """
            SELECT \(postColumns), change_tag FROM \(schema(scope)).posts WHERE zone_name = ? AND zone_owner = ? AND id IN (NAMES)
            """) {
            let post = post(from: $0, scope: scope)
            return (post.id, PostRow(post: post, changeTag: $0.optionalText(postColumnCount)))
        }
    }

    /// The last known server record of each ID that has one: where a post's row still holds the cloud's
    /// version (most posts: fetched or sent, and not edited since), the row; else its copy in `server_records`.
    /// The row comes first: a copy left beside it is older (set aside before an edit since sent; see `PostRow`).
    static func lastKnown(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID],
                          rows: [RecordID: PostRow]? = nil) throws -> [RecordID: Record] {
        var known = try (rows ?? localPostRows(db, scope, ids)).compactMapValues(\.record)
        let archives = try byRecord(db, ids.filter { known[$0] == nil }, """
            SELECT name, record FROM \(schema(scope)).server_records WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)
            """) { row in (row.text(0), row.data(1) ?? Data()) }
        for (id, archive) in archives {
            do {
                known[id] = try RecordArchive.decode(archive)
            } catch {
                throw StoreError.invalid("the cloud's copy of \(id.name) in \(id.zone.name) kept on this device does not read: \(error)")
            }
        }
        return known
    }

    /// The change tags of the last known server records, without reading the records (rows first, as `lastKnown`).
    static func knownChangeTags(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: String] {
        let inRows = try byRecord(db, ids, """
            SELECT id, change_tag FROM \(schema(scope)).posts
            WHERE zone_name = ? AND zone_owner = ? AND id IN (NAMES) AND change_tag IS NOT NULL
            """) { row in (row.text(0), row.text(1)) }
        let stored = try byRecord(db, ids.filter { inRows[$0] == nil }, """
            SELECT name, change_tag FROM \(schema(scope)).server_records
            WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES) AND change_tag IS NOT NULL
            """) { row in (row.text(0), row.text(1)) }
        return inRows.merging(stored) { row, _ in row }
    }

    /// What is pending for each ID that waits to be sent.
    static func pendingKinds(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: PendingKind] {
        let stored = try byRecord(db, ids, "SELECT name, kind FROM \(schema(scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)") { row in
            (row.text(0), row.text(1))
        }
        return try Dictionary(uniqueKeysWithValues: stored.map { id, kind in (id, try PendingKind(stored: kind, for: id)) })
    }

    /// Runs `head` (an `INSERT … INTO table(columns)` of `width` columns) for every item.
    static func insertRows<Item>(_ db: Database, _ head: String, width: Int, _ items: [Item],
                                 _ values: (inout StatementBinder, Item) -> Void) throws {
        try inRows(db, items, width: width, sql: { head + " VALUES " + $0 }, values)
    }

    /// Runs `sql(list)` for each hundred items, where `list` is their `VALUES` list (`(?,…),(?,…)`, `width`
    /// placeholders a row) and `values` binds an item's; `row` reads what the statement returns. A statement
    /// per row cost more in binding and stepping than SQLite spent on it.
    static func inRows<Item>(_ db: Database, _ items: [Item], width: Int, sql: (String) -> String,
                             _ values: (inout StatementBinder, Item) -> Void, row: (ResultRow) throws -> Void = { _ in }) throws {
        let placeholders = "(" + Array(repeating: "?", count: width).joined(separator: ",") + ")"
        try inSQLLists(items, size: 100, each: placeholders) { chunk, list in
            try db.cachedStatement(sql: sql(list)).run(binding: { binder in
                for item in chunk { values(&binder, item) }
            }, row: row)
        }
    }

    /// Forgets the pending changes of `ids`: a batch's worth of rows in a statement per few hundred.
    static func clearPending(_ db: Database, _ scope: DatabaseScope, _ ids: [RecordID]) throws {
        try inSlices(db, ids, "DELETE FROM \(schema(scope)).pending WHERE zone_name = ? AND zone_owner = ? AND name IN (NAMES)") { _, _ in }
    }

    /// Runs `sql` (whose `NAMES` stands for the list of record names) for each
    /// zone of `ids` and each slice of a few hundred names; `entry` turns a row
    /// into a record name and its value.
    private static func byRecord<Value>(_ db: Database, _ ids: [RecordID], _ sql: String,
                                        entry: (ResultRow) throws -> (String, Value)) throws -> [RecordID: Value] {
        var found: [RecordID: Value] = [:]
        found.reserveCapacity(ids.count)
        try inSlices(db, ids, sql) { row, zone in
            let (name, value) = try entry(row)
            found[RecordID(name: name, zone: zone)] = value
        }
        return found
    }

    /// Runs `sql` for each zone of `ids` and each slice of a few hundred of its
    /// names, bound to the zone, then the names (`NAMES` in `sql` stands for
    /// their placeholders); `row` reads each result row. The statement of a
    /// full slice is prepared once and reused.
    private static func inSlices(_ db: Database, _ ids: [RecordID], _ sql: String,
                                 _ row: (ResultRow, ZoneID) throws -> Void) throws {
        let around = sql.components(separatedBy: "NAMES")
        for (zone, zoneIDs) in byZone(ids) {
            try inSQLLists(zoneIDs, size: 200, each: "?") { names, list in
                try db.cachedStatement(sql: around.joined(separator: list)).run(binding: { binder in
                    binder.add(zone.name)
                    binder.add(zone.owner)
                    for id in names { binder.add(id.name) }
                }, row: { try row($0, zone) })
            }
        }
    }

    /// The IDs of each zone; a batch's usual single zone without hashing every ID.
    private static func byZone(_ ids: [RecordID]) -> [(ZoneID, [RecordID])] {
        guard let first = ids.first?.zone else { return [] }
        if ids.allSatisfy({ $0.zone == first }) { return [(first, ids)] }
        return Dictionary(grouping: ids, by: \.zone).map { ($0.key, $0.value) }
    }
}
