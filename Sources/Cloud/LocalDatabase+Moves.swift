import Foundation

/// Moves: a record its owner moves to another zone of theirs (a post to another notebook) is saved there as a
/// copy that names the original (`Record.movedFrom`) and the change tag of the version it copies. CloudKit has no
/// move (a record stays in its zone for life); ours keeps what a copy and a deletion would lose: the record's
/// history and age (`VersionTable.carry`), its place out of the first zone's trash, and an edit of the old copy,
/// which is told where the record is now (`movedRecord`).
extension LocalDatabase {
    /// Makes the moves among `saving` (each a copy naming its original), before the request's other saves and
    /// deletions; returns the originals whose move failed, whose deletion in this request must wait.
    func moveRecords(_ saving: [Record], bodies: [Data], into result: inout ModifyResult,
                     _ request: inout Request) throws(CloudError) -> Set<RecordID> {
        let moves = saving.indices.filter { saving[$0].movedFrom != nil }
        guard !moves.isEmpty else { return [] }
        // A comment moving with its post is not deleted with the post's original: it is moved itself.
        let moving = Set(moves.map { saving[$0].id.name })
        var waiting = Set<RecordID>()
        for i in moves {
            let outcome = Result { () throws(CloudError) in try move(saving[i], body: bodies[i], sparing: moving, &request) }
            result.saveResults[saving[i].id] = outcome
            if case .failure = outcome { waiting.insert(saving[i].movedFrom!) }
        }
        return waiting
    }

    /// Moves one record: only from the version its copy's change tag names (where the original has changed since,
    /// or the copy names none, the copy fails with the original as it is now: its device merges and moves again);
    /// an original moved elsewhere meanwhile is told where it went (its device follows it there); one its device
    /// never saw is not waited for (the copy is made).
    private func move(_ copy: Record, body: Data, sparing: Set<String>, _ request: inout Request) throws(CloudError) -> Record {
        guard scope == .private, let source = copy.movedFrom else { throw .invalidArguments("only its owner moves a record") }
        let to = try normalize(copy.id.zone), from = try normalize(source.zone)
        guard from != to, source.name == copy.id.name else {
            throw .invalidArguments("a record moves to another zone under its own name (\(copy.id.name) from \(source))")
        }
        let db = request.db
        let (fromRow, original, existing, deleted, movedAway) = try wrapStorage {
            () -> (Int64?, StoredRecord?, StoredRecord?, Bool, Record?) in
            let fromRow: Int64?
            do {
                fromRow = try access(db, from)?.zone.id
            } catch let error as CloudError {
                guard case .zoneNotFound = error else { throw error }
                // Its notebook was deleted since: renamed (its records moved on), or deleted with them.
                let existing = try access(db, to).flatMap { try RecordTable.find(db, zone: $0.zone.id, name: copy.id.name, zoneID: to) }
                if let moved = try movedOutOfDeletedZone(db, from, name: source.name), moved.id.zone != to { return (nil, nil, existing, false, moved) }
                return (nil, nil, existing, true, nil)
            }
            let original = try fromRow.flatMap { try RecordTable.find(db, zone: $0, name: source.name, zoneID: from) }
            let existing = try access(db, to).flatMap { try RecordTable.find(db, zone: $0.zone.id, name: copy.id.name, zoneID: to) }
            guard let fromRow, original?.isDeleted == true else { return (fromRow, original, existing, false, nil) }
            let moved = try RecordTable.movedTo(db, zone: fromRow, name: source.name) != nil
            return (fromRow, original, existing, !moved, moved ? try movedRecord(db, from: fromRow, name: source.name, owner: from.owner) : nil)
        }
        // A copy already there (a device rebuilding the cloud sent it): its device merges with it, and saves it over.
        // A record of that name made by someone other than whoever made the original is no copy (a participant of the
        // target zone planted it): merged, the post would take its author and lose its own history. Refused, saying so.
        // (A copy carries its original's maker, whoever moves it: a participant's post moved again is no stranger.)
        if let there = existing?.record {
            // (An original no longer live here says nothing of who made it: the copy merges, as before.)
            let maker = original?.record?.system?.createdBy
            guard maker == nil || there.system?.createdBy == maker else {
                throw .invalidArguments("zone \(to.name) holds another account's record named \(copy.id.name): the move would merge "
                                        + "the two (delete that record first)")
            }
            throw .serverRecordChanged(server: there)
        }
        // Moved elsewhere since its device fetched it (another device's move): told where it is now, as an edit of
        // the old copy is, its device follows it there; a second copy would make two posts of one.
        if let movedAway { throw .serverRecordChanged(server: movedAway) }
        // Deleted since its device fetched the version it moves (on another device, or a comment by its author): the
        // move does not bring it back. Refused as an edit of a deleted record is; its device brings it back only
        // where it changed it since. With its whole zone (no trash left to find it in), refused naming the zone: its
        // device keeps it where it was moved, as its person asked.
        if deleted, copy.changeTag != nil { throw fromRow == nil ? .zoneNotFound(from) : .unknownItem(source) }
        if let live = original?.record, live.changeTag != copy.changeTag { throw .serverRecordChanged(server: live) }
        var created = copy
        created.restoreSystemFields(nil)  // the tag was the original's
        let target = try wrapStorage { try self.access(to, for: &request) }
        var saved = try write(created, body: body, policy: .ifServerRecordUnchanged, access: target, existing: existing, moving: true, &request)
        try finish(target, &request)
        if original == nil, let fromRow {
            // Never held where it came from (a cloud put back from a copy older than the post, rebuilt by the device
            // that moved it): the move leaves its mark there all the same, so a device rebuilding it from before the
            // move, which sends the old copy, is told where the post is now instead of making it twice (app seed
            // 98332: a participant of the old notebook read the copy without what was typed since).
            try wrapStorage {
                try RecordTable.markMoved(db, zone: fromRow, name: source.name, type: copy.type, to: target.zone.id,
                                          by: caller.id, now: request.now, seq: request.nextSequence())
                try ZoneTable.touch(db, zone: fromRow, seq: request.sequence)
            }
        }
        guard original?.record != nil, let fromRow else { return saved }
        let below = try carryBelow(source.name, from: fromRow, fromID: from, to: target, sparing: sparing, &request)
        try delete(source, sparing: sparing.union(below.stayed), &request)
        for name in below.carried.sorted() {  // those no delete-self reference took with it
            let id = RecordID(name: name, zone: from)
            if try wrapStorage({ try RecordTable.find(db, zone: fromRow, name: name, zoneID: from)?.record != nil }) {
                try delete(id, sparing: sparing.union(below.stayed), &request)
            }
        }
        for name in below.carried { _ = try wrapStorage { try VersionTable.carry(db, name: name, from: fromRow, to: target.zone.id) } }
        let carried = try wrapStorage { try VersionTable.carry(db, name: copy.id.name, from: fromRow, to: target.zone.id) }
        if let carried {
            saved.system?.createdAt = carried.createdAt
            saved.system?.createdBy = carried.createdBy
            saved.system?.modifiedAt = carried.modifiedAt
            saved.system?.modifiedBy = carried.modifiedBy
        }
        return saved
    }

    /// Copies into the target zone the live records hanging below a moving original that its device did not move
    /// with it (a comment someone added since that device last fetched, another account's included): the move's
    /// deletion of the original would otherwise take them with it. Parents go before their children. Some stay
    /// where they were, and with them all that hangs below them: a name the target already holds, and a record with
    /// encrypted fields (sealed for its place, under a key the cloud never holds: copied elsewhere, they would never
    /// open again, as a post's location planted below another post lost the words typed into it, app seed 100795).
    /// Returns the names copied (the deletion then takes their originals, and the caller carries their history) and
    /// those that stayed (the deletion spares them).
    private func carryBelow(_ name: String, from fromRow: Int64, fromID: ZoneID, to target: ZoneAccess, sparing: Set<String>,
                            _ request: inout Request) throws(CloudError) -> (carried: Set<String>, stayed: Set<String>) {
        let db = request.db
        let left = try wrapStorage { () -> [(depth: Int, record: Record, existing: StoredRecord?)] in
            let names = try RecordTable.descendants(db, zone: fromRow, of: [name]).subtracting(sparing).subtracting([name])
            return try RecordTable.find(db, zone: fromRow, names: Array(names), zoneID: fromID).values.compactMap { stored in
                guard let record = stored.record else { return nil }
                let there = try RecordTable.find(db, zone: target.zone.id, name: record.id.name, zoneID: target.zoneID)
                return (try RecordTable.chain(db, zone: fromRow, from: record.id.name).count, record, there)
            }
        }
        var carried = Set<String>(), stayed = Set<String>()
        for (_, record, existing) in left.sorted(by: { ($0.depth, $0.record.id.name) < ($1.depth, $1.record.id.name) }) {
            guard existing?.record == nil, record.encryptedFields.isEmpty, !(record.parent.map(stayed.contains) ?? false) else {
                stayed.insert(record.id.name)
                continue
            }
            let copy = Record(id: RecordID(name: record.id.name, zone: target.zoneID), type: record.type, fields: record.fields,
                              encryptedFields: record.encryptedFields, parent: record.parent, system: nil)
            _ = try write(copy, body: RecordArchive.encodeBody(copy), policy: .allKeys, access: target, existing: existing, moving: true, &request)
            carried.insert(record.id.name)
        }
        return (carried, stayed)
    }

    /// Where the owner's move took the record `name` of a zone deleted since (a notebook renamed: its records
    /// moved, then it went), if anywhere: a save into it from a device that had not heard follows the record there.
    func movedOutOfDeletedZone(_ db: any SQLTransaction, _ zoneID: ZoneID, name: String) throws -> Record? {
        let owner = storedOwner(of: zoneID)
        guard scope == .private, let row = try ZoneTable.find(db, container: cloud.container, scope: Self.storedScope(owner: owner),
                                                               owner: owner, name: zoneID.name), !row.isLive else { return nil }
        return try movedRecord(db, from: row.id, name: name, owner: owner)
    }

    /// Where the owner's move took the record `name` of a zone of `owner`'s (following later moves), if it is
    /// there. A participant is told only of a place they may read: anywhere else, the record left what was shared
    /// with them, and it is unknown to them as before.
    func movedRecord(_ db: any SQLTransaction, from zone: Int64, name: String, owner: String) throws -> Record? {
        guard scope != .public else { return nil }
        var zone = zone
        for _ in 0..<16 {  // a chain of moves ends; a loop of them (moved back and forth) is cut short
            guard let next = try RecordTable.movedTo(db, zone: zone, name: name), let row = try ZoneTable.find(db, id: next), row.isLive,
                  let stored = try RecordTable.find(db, zone: next, name: name, zoneID: ZoneID(name: row.name, owner: owner))
            else { return nil }
            if let record = stored.record { return try scope == .private || readable(db, record.id) ? record : nil }
            zone = next
        }
        return nil
    }

    /// Whether the caller, a participant, may read the record.
    private func readable(_ db: any SQLTransaction, _ id: RecordID) throws -> Bool {
        do {
            guard let access = try access(db, id.zone) else { return false }
            return try access.canRead(db, name: id.name)
        } catch is CloudError {
            return false  // no share of that zone admits the caller: not theirs to read
        }
    }
}
