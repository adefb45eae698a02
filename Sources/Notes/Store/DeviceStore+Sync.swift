import Cloud
import Foundation
import GRDB
import SQLiteDirect
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Sync

/// The store's side of syncing: what is pending, the records to send, and
/// applying what the engines report. The store's `pending` table is the
/// truth (a command in another process may add to it); the engines' state
/// mirrors it.
extension DeviceStore {
    /// What waits to be sent, in the order it was made; changes the cloud refused for what they are are kept
    /// apart (see `RefusedChange`) and not offered again.
    func pending(_ scope: DatabaseScope) throws -> (records: [PendingRecordZoneChange], zones: [PendingDatabaseChange]) {
        try read { db in
            var records: [PendingRecordZoneChange] = [], zones: [PendingDatabaseChange] = []
            try db.cachedStatement(sql: "SELECT zone_name, zone_owner, name, kind FROM \(Self.schema(scope)).pending WHERE refused IS NULL ORDER BY rowid")
                .run(binding: { _ in }, row: { row in
                    let zone = ZoneID(name: row.text(0), owner: row.text(1))
                    let id = RecordID(name: row.text(2), zone: zone)
                    switch try PendingKind(stored: row.text(3), for: id) {
                    case .saveRecord: records.append(.saveRecord(id))
                    case .deleteRecord: records.append(.deleteRecord(id))
                    case .saveZone: zones.append(.saveZone(zone))
                    case .deleteZone: zones.append(.deleteZone(zone))
                    }
                })
            return (records, zones)
        }
    }

    func savedState(_ scope: DatabaseScope) throws -> SyncState.Serialization? {
        try read { db in
            try Data.fetchOne(db, sql: "SELECT serialization FROM \(Self.schema(scope)).sync_state WHERE id = 1")
                .map(SyncState.Serialization.init(data:))
        }
    }

    func saveState(_ scope: DatabaseScope, _ state: SyncState.Serialization) throws {
        stagedStates.stage(scope, state)
        try saveStagedStates()
    }

    /// Keeps an engine's state to be saved with the next write of this store,
    /// instead of in a transaction of its own: during a sync every batch
    /// moves a change token, and a commit each doubled the sync's disk work.
    /// The state only describes changes already applied, so saving it later
    /// is safe; a crash before then means fetching a little again.
    func stageState(_ scope: DatabaseScope, _ state: SyncState.Serialization) {
        stagedStates.stage(scope, state)
    }

    static func writeState(_ db: Database, _ scope: DatabaseScope, _ state: SyncState.Serialization) throws {
        try db.cachedStatement(sql: """
            INSERT INTO \(schema(scope)).sync_state(id, serialization) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET serialization = excluded.serialization
            """).execute(arguments: [state.data])
    }

    /// When this device last synced (a sync that failed leaves the time of the last that did not), and the last
    /// error a sync met.
    public func syncStatus() throws -> (lastSync: Date?, lastError: String?) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT last_sync, last_error FROM main.sync_state WHERE id = 1")
            return ((row?["last_sync"] as Double?).map(Date.init(timeIntervalSince1970:)), row?["last_error"])
        }
    }

    /// Notes how a sync went: `synced` when it synced (nil when it failed: the last sync stays the one that did).
    func noteSync(synced date: Date?, error: String?) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO main.sync_state(id, last_sync, last_error) VALUES (1, ?, ?)
                ON CONFLICT(id) DO UPDATE SET last_sync = coalesce(excluded.last_sync, last_sync), last_error = excluded.last_error
                """, arguments: [date?.timeIntervalSince1970, error])
        }
    }

    // MARK: Records

    static func lastKnown(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws -> Record? {
        try lastKnown(db, scope, [id])[id]
    }

    static func remember(_ db: Database, _ scope: DatabaseScope, _ record: Record) throws {
        try remember(db, scope, [record])
    }

    static func remember(_ db: Database, _ scope: DatabaseScope, _ records: [Record]) throws {
        try retireKeysWrittenOver(db, scope, by: records)
        try insertRows(db, "INSERT OR REPLACE INTO \(schema(scope)).server_records(zone_name, zone_owner, name, record, change_tag)",
                       width: 5, records) { row, record in
            row.add(record.id.zone.name)
            row.add(record.id.zone.owner)
            row.add(record.id.name)
            row.add(RecordArchive.encode(record))
            row.add(record.changeTag)
        }
    }

    /// Forgets the last known server record of `id`, its copy and what its post's row holds of it.
    static func forget(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        let arguments: StatementArguments = [id.zone.name, id.zone.owner, id.name]
        try db.execute(sql: "DELETE FROM \(schema(scope)).server_records WHERE zone_name = ? AND zone_owner = ? AND name = ?",
                       arguments: arguments)
        try db.execute(sql: """
            UPDATE \(schema(scope)).posts SET change_tag = NULL
            WHERE zone_name = ? AND zone_owner = ? AND id = ? AND change_tag IS NOT NULL
            """, arguments: arguments)
    }

    static func localPost(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws -> Post? {
        try localPosts(db, scope, [id])[id]
    }

    /// Forgets what is pending for one record, or for the zone itself when `name` is empty.
    static func clearPending(_ db: Database, _ scope: DatabaseScope, zone: ZoneID, name: String) throws {
        try clearPending(db, scope, [RecordID(name: name, zone: zone)])
    }

    /// The record to send for a post or comment: its last known record with the row's fields over it.
    public func record(for id: RecordID, in scope: DatabaseScope) throws -> Record? {
        try records(for: [id], in: scope)[id]
    }

    /// The change tags of the cloud's versions this device last knew of `ids` (those it knew any of).
    public func knownChangeTags(_ ids: [RecordID], in scope: DatabaseScope) throws -> [RecordID: String] {
        try read { db in try Self.knownChangeTags(db, scope, ids) }
    }

    /// The records to send for many rows, read in one transaction (a batch of a send); rows gone are left out.
    public func records(for ids: [RecordID], in scope: DatabaseScope) throws -> [RecordID: Record] {
        let found = try read { db in
            let rows = try Self.localPostRows(db, scope, ids), known = try Self.lastKnown(db, scope, ids, rows: rows)
            let moved = scope == .private ? try Self.movedFrom(db, ids.filter { known[$0] == nil }) : [:]
            /// A new record, or a moved one: its copy names the record it moves and that one's change tag (so the
            /// cloud moves only the version this device saw; none known, it moves none unseen).
            func start(_ type: String, _ id: RecordID) -> Record {
                if let known = known[id] { return known }
                var record = Record(type: type, id: id)
                if let source = moved[id] {
                    record.restoreSystemFields(source.known?.system)
                    record.movedFrom = source.id
                }
                return record
            }
            return try ids.compactMap { id -> (RecordID, Record, Post?)? in
                if let post = rows[id]?.post {
                    var record = start(Post.recordType, id)
                    post.apply(to: &record)
                    return (id, record, try opened(db, post))
                }
                guard let comment = try Self.localComment(db, scope, id) else { return nil }
                var record = start(Comment.recordType, id)
                comment.apply(to: &record)
                return (id, record, nil)
            }
        }
        var records: [RecordID: Record] = [:]
        for (id, unsealed, post) in found {
            var record = unsealed
            if let post { try sealLocation(of: post, into: &record) }
            records[id] = record
        }
        return records
    }
}

extension DeviceStore {
    /// The copy a move of `original` (its deletion waiting) makes in another notebook, waiting to be sent.
    static func movingCopy(_ db: Database, of original: RecordID) throws -> Post? {
        let rows = try Row.fetchAll(db, sql: """
            SELECT zone_name, zone_owner FROM main.pending WHERE kind = '\(PendingKind.saveRecord.rawValue)' AND name = ?
            AND NOT (zone_name = ? AND zone_owner = ?)
            """, arguments: [original.name, original.zone.name, original.zone.owner])
        for row in rows {
            if let copy = try localPost(db, .private, RecordID(name: original.name, zone: ZoneID(name: row[0], owner: row[1]))) { return copy }
        }
        return nil
    }

    /// For records a move creates (`move`), the one each moves (of the same name, in another notebook, its
    /// deletion waiting) and its last known record.
    static func movedFrom(_ db: Database, _ ids: [RecordID]) throws -> [RecordID: (id: RecordID, known: Record?)] {
        var sources: [RecordID: RecordID] = [:]
        let byName = Dictionary(grouping: ids, by: \.name)
        try inSQLLists(Array(byName.keys), size: 200, each: "?") { names, list in
            let rows = try Row.fetchAll(db, sql: """
                SELECT zone_name, zone_owner, name FROM main.pending WHERE kind = '\(PendingKind.deleteRecord.rawValue)' AND name IN (\(list))
                """, arguments: StatementArguments(Array(names)))
            for row in rows {
                let source = RecordID(name: row[2], zone: ZoneID(name: row[0], owner: row[1]))
                for id in byName[source.name] ?? [] where id.zone != source.zone { sources[id] = source }
            }
        }
        let known = try lastKnown(db, .private, Array(Set(sources.values)))
        return sources.mapValues { ($0, known[$0]) }
    }
}

/// The latest unsaved sync state of each scope.
final class StagedStates: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [DatabaseScope: SyncState.Serialization] = [:]

    var current: [DatabaseScope: SyncState.Serialization] { lock.withLock { states } }

    func stage(_ scope: DatabaseScope, _ state: SyncState.Serialization) { lock.withLock { states[scope] = state } }

    /// Forgets the states that were saved, unless a newer one was staged meanwhile.
    func remove(_ saved: [DatabaseScope: SyncState.Serialization]) {
        lock.withLock { for (scope, state) in saved where states[scope] == state { states[scope] = nil } }
    }
}
