import Foundation

/// History and trash, as the cloud keeps them for every reader of a record alike (see `Retention`).
extension LocalDatabase {
    /// A record's versions, newest first: its current one (when it is live) and those the retention keeps.
    /// Whoever can read the record can read its history; to anyone else it is unknown.
    public func history(of id: RecordID) throws(CloudError) -> [RecordVersion] {
        let zoneID = try normalize(id.zone)
        return try cloud.performRead { db in
            guard let access = try access(db, zoneID), try access.canRead(db, name: id.name),
                  let stored = try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID), stored.type != Share.recordType
            else { throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID)) }
            // Only this record's own versions (a name deleted and used again is another record, which may have held what
            // its readers never could), and, for a participant, only those they could read: still current when they
            // joined or saved since (a password removed before sharing stays gone), and not while the record sat
            // outside what is shared with them (a private record the owner then moved under a shared post), nor any its
            // owner's move brought from another zone.
            let joined = try access.joined(db, name: id.name) ?? 0
            let kept = try VersionTable.versions(db, zone: access.zone.id, name: id.name, zoneID: zoneID)
            let incarnation = stored.record?.system?.createdAt
            let earlier = try kept.indices.filter { index in
                let version = kept[index]
                // When the next save (or the deletion) replaced it.
                let replaced = index == 0 ? stored.seq : kept[index - 1].record.changeTag.flatMap { Int64($0, radix: 36) }
                guard incarnation == nil || version.record.system?.createdAt == incarnation, access.isOwner || !version.carried,
                      let replaced, replaced > joined else { return false }
                return try access.couldRead(db, name: id.name, parent: version.record.parent)
            }.map { RecordVersion(number: kept[$0].number, record: kept[$0].record) }
            guard let current = stored.record else { return earlier }
            return [RecordVersion(number: (kept.first?.number ?? 0) + 1, record: current)] + earlier
        }
    }

    /// The records of `type` deleted in a zone less than the trash's time ago that the caller could read,
    /// the latest deletion first. Restoring one is saving its last version again (as a new record).
    public func trash(in zone: ZoneID, type: String) throws(CloudError) -> [DeletedRecord] {
        let zoneID = try normalize(zone)
        let now = cloud.clock.now()
        return try cloud.performRead { db in
            guard let access = try access(db, zoneID) else { return [] }
            let cutoff = now.timeIntervalSince1970 - (try VersionTable.retention(db)).trashAge
            let rows = try db.all("""
                SELECT name, modified_at, modified_by, seq FROM records
                WHERE zone = ? AND deleted = 1 AND type = ? AND modified_at >= ? ORDER BY modified_at DESC, name
                """, [access.zone.id, type, cutoff]) { row in
                (name: row.text(0), deletedAt: Date(timeIntervalSince1970: row.double(1) ?? 0), deletedBy: row.text(2),
                 deletedSeq: row.int64(3))
            }
            return try rows.compactMap { row -> DeletedRecord? in
                let (name, deletedSeq) = (row.name, row.deletedSeq)
                // Deleted before the caller joined: never theirs to see.
                guard try access.canRead(db, name: name), deletedSeq >= (try access.joined(db, name: name) ?? 0),
                      let last = try VersionTable.versions(db, zone: access.zone.id, name: name, zoneID: zoneID).first else { return nil }
                return DeletedRecord(last: RecordVersion(number: last.number, record: last.record),
                                     deletedAt: row.deletedAt, deletedBy: row.deletedBy)
            }
        }
    }

    /// Brings deleted records back from the trash as they last were, in order (a post before the comments deleted
    /// with it): each keeps its creation, its author, its last change's stamps and its history.
    /// Each must be in the trash the caller sees (`trash`) and theirs to save; the request is made whole or not at all.
    public func restoreDeleted(_ names: [String], in zone: ZoneID) throws(CloudError) -> [Record] {
        let now = cloud.clock.now()
        let zoneID = try normalize(zone)
        return try cloud.perform { request in
            let access = try wrapStorage { try self.access(zoneID, for: &request) }
            var restored: [Record] = []
            for id in names.map({ RecordID(name: $0, zone: zoneID) }) {
                restored.append(try wrapStorage {
                    let db = request.db
                    let cutoff = now.timeIntervalSince1970 - (try VersionTable.retention(db)).trashAge
                    let deletedAt = try db.all("SELECT modified_at FROM records WHERE zone = ? AND name = ? AND deleted = 1 AND moved_to IS NULL",
                                               [access.zone.id, id.name]) { $0.double(0) ?? 0 }.first
                    guard let deletedAt, deletedAt >= cutoff,
                          let stored = try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID), stored.isDeleted,
                          try access.canRead(db, name: id.name),
                          stored.seq >= (try access.joined(db, name: id.name) ?? 0),
                          let last = try VersionTable.versions(db, zone: access.zone.id, name: id.name, zoneID: zoneID).first?.record
                    else { throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID)) }
                    // Below a parent deleted too, its parent first. Below one that never was (a participant wrote it so,
                    // then deleted it: the owner's post could never come back), at the top of the zone.
                    var parent = last.parent
                    if let name = parent {
                        switch try RecordTable.find(db, zone: access.zone.id, name: name, zoneID: zoneID) {
                        case nil: parent = nil
                        case let found? where found.record == nil: throw CloudError.unknownItem(RecordID(name: name, zone: zoneID))
                        case _?: break
                        }
                    }
                    try access.checkSave(db, name: id.name, parent: parent, existing: stored)
                    let seq = request.nextSequence()
                    // Its stamps as it was last (a comment brought back was not edited by whoever restored it); only
                    // its change tag is new, so every device hears of it.
                    let system = SystemFields(changeTag: String(seq, radix: 36), createdAt: last.system?.createdAt ?? request.now,
                                              createdBy: last.system?.createdBy ?? caller.id, modifiedAt: last.system?.modifiedAt ?? request.now,
                                              modifiedBy: last.system?.modifiedBy ?? caller.id)
                    let record = Record(id: RecordID(name: id.name, zone: zoneID), type: last.type, fields: last.fields,
                                        encryptedFields: last.encryptedFields, parent: parent, system: system)
                    try RecordTable.write(db, zone: access.zone.id, record: record, body: RecordArchive.encodeBody(record), seq: seq, replacing: false)
                    return record
                })
            }
            try finish(access, &request)
            return restored
        }
    }

    /// Empties a zone's trash, which only its owner may: what was deleted there can no longer be restored
    /// (its versions go; the tombstones stay for change fetches). Returns how many records it held.
    @discardableResult
    public func emptyTrash(in zone: ZoneID, counting type: String? = nil) throws(CloudError) -> Int {
        let zoneID = try normalize(zone)
        return try cloud.perform { request in
            try wrapStorage {
                guard let access = try access(request.db, zoneID) else { return 0 }
                guard access.isOwner else { throw CloudError.permissionFailure("only the owner of \(zoneID.name) empties its trash") }
                // The type test is added only when asked for: PostgreSQL cannot type a parameter only ever compared with NULL.
                let bindings: [any SQLBindable] = [access.zone.id] + (type.map { [$0] } ?? [])
                let count = try request.db.int64("""
                    SELECT count(DISTINCT v.name) FROM versions v JOIN records r ON r.zone = v.zone AND r.name = v.name
                    WHERE v.zone = ?1 AND r.deleted = 1\(type == nil ? "" : " AND v.type = ?2")
                    """, bindings).map(Int.init) ?? 0
                try request.db.execute("""
                    DELETE FROM versions WHERE zone = ?1
                        AND name IN (SELECT name FROM records WHERE zone = ?1 AND deleted = 1)
                    """, [access.zone.id])
                return count
            }
        }
    }
}

extension LocalCloud {
    /// How long this cloud keeps history and trash.
    public func retention() throws(CloudError) -> Retention {
        try storage.read { db in try VersionTable.retention(db) }
    }

    /// Sets how long this cloud keeps history and trash; what is already past it goes as records change.
    public func setRetention(_ retention: Retention) throws(CloudError) {
        guard retention.historyVersions >= 1, retention.historyDays > 0, retention.trashDays > 0 else {
            throw .invalidArguments("history keeps at least one version, and every time is more than zero days")
        }
        try storage.write { db in try VersionTable.setRetention(db, retention) }
    }
}
