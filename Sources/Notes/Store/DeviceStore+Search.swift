import Cloud
import Foundation
import GRDB

/// Keeping the search index in step (see `SearchIndex`): posts written since the last search are indexed
/// before the next one reads.
extension DeviceStore {
    /// Whether posts changed since they were last indexed.
    public var searchIsBehind: Bool {
        get throws {
            try read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM main.search_dirty) OR EXISTS(SELECT 1 FROM shared.search_dirty)") ?? false
            }
        }
    }

    /// Indexes the posts changed since they were last indexed, `batch` to a transaction (each a short hold on
    /// the store: a front end's frame waits for no more than one), at most `batches` of them; returns whether
    /// some are left.
    @discardableResult
    public func catchUpSearchIndex(batch: Int = 2000, batches: Int = .max) throws -> Bool {
        guard try searchIsBehind else { return false }
        var done = 0
        for scope in [DatabaseScope.private, .shared] {
            let schema = Self.schema(scope)
            while try read({ try Bool.fetchOne($0, sql: "SELECT EXISTS(SELECT 1 FROM \(schema).search_dirty)") }) == true {
                guard done < batches else { return true }
                try write(scope) { db in
                    try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS search_batch(zone_name TEXT, zone_owner TEXT, id TEXT)")
                    try db.execute(sql: "DELETE FROM temp.search_batch")
                    try db.execute(sql: "INSERT INTO temp.search_batch SELECT zone_name, zone_owner, id FROM \(schema).search_dirty LIMIT ?",
                                   arguments: [batch])
                    for statement in SearchIndex.reindex(schema) { try db.execute(sql: statement) }
                }
                done += 1
            }
        }
        return false
    }
}
