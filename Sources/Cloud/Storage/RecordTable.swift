import Foundation
import SQLiteDirect

/// A record's row: the live record, or the tombstone a deletion left.
struct StoredRecord {
    let name: String
    let type: String
    let seq: Int64
    let createdBy: String
    /// The parent as stored: a tombstone keeps the one it had, so that what
    /// hung below it stays where it was.
    let parent: String?
    /// Nil for a tombstone, or for a version the reader said it holds.
    let record: Record?
    /// A live record at the change tag the reader already holds: not decoded.
    var isKnown = false

    var isDeleted: Bool { record == nil && !isKnown }
}

/// Queries on the `records` and `cascades` tables.
enum RecordTable {
    /// The columns `stored(from:)` reads, by position (a name lookup per column per row was a measurable cost).
    private static let columns = "name, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by, seq, deleted"
    /// `columns` of `records r` in a join.
    private static let qualifiedColumns = columns.split(separator: ", ").map { "r." + $0 }.joined(separator: ", ")

    static func find(_ db: any SQLTransaction, zone: Int64, name: String, zoneID: ZoneID) throws -> StoredRecord? {
        try find(db, zone: zone, names: [name], zoneID: zoneID)[name]
    }

    /// The stored rows of many names, a few hundred to a query (a request's saves, found before they are written).
    static func find(_ db: any SQLTransaction, zone: Int64, names: [String], zoneID: ZoneID) throws -> [String: StoredRecord] {
        var found: [String: StoredRecord] = [:]
        found.reserveCapacity(names.count)
        try inSQLLists(names, size: 200, each: "?") { part, list in
            var values: [SQLValue] = [.integer(zone)]
            values.reserveCapacity(part.count + 1)
            for name in part { values.append(.text(name)) }
            try db.run("SELECT \(columns) FROM records WHERE zone = ? AND name IN (\(list))", values) { row in
                let stored = try stored(from: row, zoneID: zoneID)
                found[stored.name] = stored
            }
        }
        return found
    }

    /// `find` for a zone named by its database's key rather than its row, asked without waiting
    /// (`SQLTransaction.ask`): sent before the zone itself is looked up, the thread waits once for both answers.
    /// The returned closure reads them.
    static func ask(_ db: any SQLTransaction, container: String, scope: DatabaseScope, owner: String, names: [String],
                    zoneID: ZoneID) throws -> () throws -> [String: StoredRecord] {
        let key: [SQLValue] = [.text(container), .text(scope.rawValue), .text(owner), .text(zoneID.name)]
        var answers: [SQLAnswer] = []
        try inSQLLists(names, size: 200, each: "?") { part, list in
            answers.append(try db.ask("""
                SELECT \(qualifiedColumns) FROM records r JOIN zones z ON z.id = r.zone JOIN databases d ON d.id = z.database
                WHERE d.container = ? AND d.scope = ? AND d.owner = ? AND z.name = ? AND r.name IN (\(list))
                """, key + part.map(SQLValue.text)))
        }
        return {
            var found: [String: StoredRecord] = [:]
            for answer in answers {
                for row in try answer.rows() {
                    let stored = try stored(from: row, zoneID: zoneID)
                    found[stored.name] = stored
                }
            }
            return found
        }
    }

    /// Records changed after `sequence` (tombstones included), or every live
    /// record when nil, in the order they changed. A record whose change tag
    /// `known` holds for its name comes back marked known, without its fields.
    /// With `visible`, only the records it names, up to `limit` of them: the
    /// others are passed over unread (a participant of one post in a zone of
    /// thousands costs the server its post, not the zone).
    static func changed(_ db: any SQLTransaction, zone: Int64, after sequence: Int64?, limit: Int, zoneID: ZoneID,
                        known: [String: String] = [:], visible: Set<String>? = nil) throws -> [StoredRecord] {
        let sqlLimit = visible == nil ? limit : Int(Int32.max)
        let sql = sequence == nil
            ? "SELECT \(columns) FROM records WHERE zone = ? AND deleted = 0 ORDER BY seq LIMIT ?"
            : "SELECT \(columns) FROM records WHERE zone = ? AND seq > ? ORDER BY seq LIMIT ?"
        let values: [SQLValue] = sequence.map { [.integer(zone), .integer($0), .integer(Int64(sqlLimit))] }
            ?? [.integer(zone), .integer(Int64(sqlLimit))]
        var changed: [StoredRecord] = []
        try db.run(sql, values) { row in
            if let visible, changed.count >= limit || !visible.contains(row.text(0)) { return }
            if !known.isEmpty, let tag = row.optionalText(4), known[row.text(0)] == tag, row.int64(10) == 0 {
                changed.append(StoredRecord(name: row.text(0), type: row.text(1), seq: row.int64(9), createdBy: row.text(6),
                                            parent: row.optionalText(3), record: nil, isKnown: true))
            } else {
                changed.append(try stored(from: row, zoneID: zoneID))
            }
        }
        return changed
    }

    /// The most levels a hierarchy of records may have (a root alone is one).
    /// Saves that would go deeper are refused, so every walk up a chain
    /// reaches its root (or, in a file written before the rule, stops one
    /// past the limit) and access checks and change feeds agree.
    static let maxDepth = 1_000

    /// The record's name and its ancestors' names, nearest first, following
    /// stored parents: at most `maxDepth + 1` names.
    static func chain(_ db: any SQLTransaction, zone: Int64, from name: String) throws -> [String] {
        try db.strings("""
            WITH RECURSIVE up(name, depth) AS (
                SELECT \(db.dialect.name("?")), 0
                UNION
                SELECT r.parent, up.depth + 1 FROM records r JOIN up ON r.zone = ? AND r.name = up.name
                WHERE r.parent IS NOT NULL AND up.depth < \(maxDepth))
            SELECT name FROM up ORDER BY depth
            """, [name, zone])
    }

    /// The levels of the records hanging below `name`, itself included (1 when nothing does), tombstones
    /// too: they come back where they were. At most `maxDepth + 1`.
    static func height(_ db: any SQLTransaction, zone: Int64, of name: String) throws -> Int {
        try db.int64("""
            WITH RECURSIVE down(name, depth) AS (
                SELECT \(db.dialect.name("?")), 1
                UNION
                SELECT r.name, down.depth + 1 FROM records r JOIN down ON r.zone = ? AND r.parent = down.name
                WHERE down.depth <= \(maxDepth))
            SELECT max(depth) FROM down
            """, [name, zone]).map(Int.init) ?? 1
    }

    /// The given records and every record below them, tombstones included.
    static func descendants(_ db: any SQLTransaction, zone: Int64, of roots: [String]) throws -> Set<String> {
        guard !roots.isEmpty else { return [] }
        let json = String(decoding: try JSONEncoder().encode(roots), as: UTF8.self)
        return Set(try db.strings("""
            WITH RECURSIVE down(name) AS (
                \(db.dialect.jsonStrings)
                UNION
                SELECT r.name FROM records r JOIN down ON r.zone = ? AND r.parent = down.name)
            SELECT name FROM down
            """, [json, zone]))
    }

    /// Whether any record, live or a tombstone, names this one as its parent.
    static func hasChildren(_ db: any SQLTransaction, zone: Int64, name: String) throws -> Bool {
        try db.exists("SELECT EXISTS(SELECT 1 FROM records WHERE zone = ? AND parent = ?)", [zone, name])
    }

    /// Writes the record as saved; `body` is its encoded fields. Only a live
    /// record `replacing` another can have delete-self references to drop
    /// (a deletion drops its tombstone's).
    static func write(_ db: any SQLTransaction, zone: Int64, record: Record, body: Data, seq: Int64, replacing: Bool) throws {
        let system = record.system!
        try db.send("""
            INSERT INTO records(zone, name, type, body, parent, change_tag, created_at, created_by,
                modified_at, modified_by, seq, deleted)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
            ON CONFLICT(zone, name) DO UPDATE SET type = excluded.type, body = excluded.body, parent = excluded.parent,
                change_tag = excluded.change_tag, created_at = excluded.created_at, created_by = excluded.created_by,
                modified_at = excluded.modified_at, modified_by = excluded.modified_by, seq = excluded.seq, deleted = 0,
                moved_to = NULL
            """, [.integer(zone), .text(record.id.name), .text(record.type), .blob(body), record.parent.sqlValue,
                  .text(system.changeTag), .real(system.createdAt.timeIntervalSince1970), .text(system.createdBy),
                  .real(system.modifiedAt.timeIntervalSince1970), .text(system.modifiedBy), .integer(seq)])
        if replacing {
            try db.send("DELETE FROM cascades WHERE zone = ? AND source = ?", [zone, record.id.name])
        }
        for case .reference(let ref) in record.fields.values where ref.action == .deleteSelf {
            try db.send("INSERT INTO cascades(zone, source, target) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           [zone, record.id.name, ref.recordName])
        }
    }

    /// Replaces the record with a tombstone, then deletes the records that
    /// asked to go with it (delete-self references), depth first, those
    /// `mayCascade` allows; the others stay, their reference dangling.
    /// Returns every name deleted.
    static func delete(_ db: any SQLTransaction, zone: Int64, name: String, by account: String, now: Date,
                       mayCascade: (String) throws -> Bool, beforeTombstone: (String) throws -> Void,
                       nextSequence: () -> Int64) throws -> [String] {
        var deleted: [String] = []
        var pending = [name]
        while let next = pending.popLast() {
            if next != name, try !mayCascade(next) { continue }
            try beforeTombstone(next)
            let changes = try tombstone(db, zone: zone, name: next, by: account, now: now, seq: nextSequence())
            guard changes else { continue }
            deleted.append(next)
            pending += try db.strings("SELECT source FROM cascades WHERE zone = ? AND target = ?", [zone, next])
            try db.execute("DELETE FROM cascades WHERE zone = ? AND (source = ? OR target = ?)",
                           [zone, next, next])
        }
        return deleted
    }

    /// Where the record `name` of a zone went when its owner moved it (`VersionTable.carry`): the zone's row, for a
    /// tombstone a move left.
    static func movedTo(_ db: any SQLTransaction, zone: Int64, name: String) throws -> Int64? {
        try db.int64("SELECT moved_to FROM records WHERE zone = ? AND name = ? AND deleted = 1", [zone, name])
    }

    /// The records a deletion of `name` would take with it (delete-self references, all the way down).
    static func cascading(_ db: any SQLTransaction, zone: Int64, from name: String) throws -> [String] {
        var found: [String] = [], next = [name], seen: Set<String> = [name]
        while let target = next.popLast() {
            for source in try db.strings("SELECT source FROM cascades WHERE zone = ? AND target = ?", [zone, target])
            where seen.insert(source).inserted {
                found.append(source)
                next.append(source)
            }
        }
        return found
    }

    /// Leaves in `zone` the tombstone of a record its owner moved to zone `to` that this zone never held.
    static func markMoved(_ db: any SQLTransaction, zone: Int64, name: String, type: String, to: Int64, by account: String,
                          now: Date, seq: Int64) throws {
        try db.send("""
            INSERT INTO records(zone, name, type, body, parent, change_tag, created_at, created_by, modified_at, modified_by, seq, deleted, moved_to)
            VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT(zone, name) DO NOTHING
            """, [.integer(zone), .text(name), .text(type), .blob(Data()), .text(String(seq, radix: 36)), .real(now.timeIntervalSince1970),
                  .text(account), .real(now.timeIntervalSince1970), .text(account), .integer(seq), .integer(to)])
    }

    private static func tombstone(_ db: any SQLTransaction, zone: Int64, name: String, by account: String, now: Date, seq: Int64) throws -> Bool {
        try db.execute("""
            UPDATE records SET deleted = 1, body = ?, seq = ?, modified_at = ?, modified_by = ?
            WHERE zone = ? AND name = ? AND deleted = 0
            """, [Data(), seq, now.timeIntervalSince1970, account, zone, name]) > 0
    }

    static func stored(from row: any SQLRow, zoneID: ZoneID) throws -> StoredRecord {
        let name = row.text(0)
        let type = row.text(1)
        let createdBy = row.text(6)
        let parent = row.optionalText(3)
        var record: Record?
        if row.int64(10) == 0 {
            let body = try RecordArchive.decodeBody(row.data(2) ?? Data())
            let system = SystemFields(
                changeTag: row.text(4),
                createdAt: Date(timeIntervalSince1970: row.double(5) ?? 0), createdBy: createdBy,
                modifiedAt: Date(timeIntervalSince1970: row.double(7) ?? 0), modifiedBy: row.text(8))
            record = Record(id: RecordID(name: name, zone: zoneID), type: type, fields: body.fields,
                            encryptedFields: body.encrypted, parent: parent, system: system)
        }
        return StoredRecord(name: name, type: type, seq: row.int64(9), createdBy: createdBy, parent: parent, record: record)
    }
}
