import Foundation

extension LocalDatabase {
    /// Saves and deletes records in one request.
    ///
    /// The request is checked against the limits first (items, bytes per
    /// record and per request) and refused whole with *limit exceeded*.
    /// Each item then succeeds or fails on its own, unless `atomically`:
    /// then one failure in a zone rolls back that zone's other items, which
    /// fail with *batch request failed*.
    func modifyRecords(
        saving: [Record], deleting: [RecordID] = [], deletionTags: [RecordID: String] = [:],
        policy: SavePolicy = .ifServerRecordUnchanged, policies: [RecordID: SavePolicy] = [:], atomically: Bool = false
    ) throws(CloudError) -> ModifyResult {
        let bodies = try checkLimits(saving: saving, deleting: deleting)
        var zones: [ZoneID] = []
        for zone in saving.map(\.id.zone) + deleting.map(\.zone) where !zones.contains(zone) { zones.append(zone) }

        let (result, committed) = try cloud.performCommitting { request in
            var result = ModifyResult()
            // Moves first, whatever the order: a deletion of what one moves waits for it (`move`).
            let waiting = try moveRecords(saving, bodies: bodies, into: &result, &request)
            for zone in zones {
                // Only an atomic zone is rolled back alone; for any other the savepoint would be two statements
                // more under the writers' lock for nothing.
                if atomically { try request.db.send("SAVEPOINT zone") }
                let topicsBefore = request.topics
                var zoneResult = ModifyResult()
                let saves = saving.indices.filter { saving[$0].id.zone == zone && saving[$0].movedFrom == nil }
                zoneResult.saveResults.reserveCapacity(saves.count)
                let deletes = deleting.filter { $0.zone == zone }
                if !saves.isEmpty {
                    let zoneID = Result { () throws(CloudError) in try normalize(zone) }
                    // What the saves replace, asked in one go (no two saves of a request name the same record) and
                    // before the zone is looked up: the thread waits once for both answers.
                    let asked = zoneID.flatMap { zoneID in
                        Result { () throws(CloudError) in
                            let owner = storedOwner(of: zoneID)
                            return try wrapStorage {
                                try RecordTable.ask(request.db, container: cloud.container, scope: Self.storedScope(owner: owner), owner: owner,
                                                    names: saves.map { saving[$0].id.name }, zoneID: zoneID)
                            }
                        }
                    }
                    // The caller's access is worked out once for the zone's saves; the zone is touched and its audience told once.
                    let access = zoneID.flatMap { zoneID in
                        Result { () throws(CloudError) in try wrapStorage { try self.access(zoneID, for: &request) } }
                    }
                    let existing = access.flatMap { _ in asked.flatMap { read in Result { () throws(CloudError) in try wrapStorage(read) } } }
                    for i in saves {
                        zoneResult.saveResults[saving[i].id] = Result { () throws(CloudError) in
                            if case .failure(.zoneNotFound) = access, case .success(let zoneID) = zoneID,
                               let moved = try wrapStorage({ try movedOutOfDeletedZone(request.db, zoneID, name: saving[i].id.name) }) {
                                throw .serverRecordChanged(server: moved)  // its notebook went after its records moved out
                            }
                            return try write(saving[i], body: bodies[i], policy: policies[saving[i].id] ?? policy, access: try access.get(),
                                             existing: try existing.get()[saving[i].id.name], &request)
                        }
                    }
                    // (Only whether any save succeeded: each failure stays in saveResults for the caller.)
                    if case .success(let access) = access, zoneResult.saveResults.values.contains(where: { (try? $0.get()) != nil }) {
                        try finish(access, &request)
                    }
                }
                let held = try heldBack(deletes, tags: deletionTags, &request)
                for id in deletes {
                    // The original of a move that failed stays, and its deletion waits for the move.
                    zoneResult.deleteResults[id] = waiting.contains(id) ? .failure(.batchRequestFailed)
                        : held[id].map { .failure(.serverRecordChanged(server: $0)) }
                        ?? Result { () throws(CloudError) in try delete(id, ifAt: deletionTags[id], &request) }
                }
                if atomically && !zoneResult.failures.isEmpty {
                    try request.db.execute("ROLLBACK TO zone")
                    request.topics = topicsBefore
                    zoneResult.saveResults = zoneResult.saveResults.mapValues { $0.flatMap { _ in .failure(.batchRequestFailed) } }
                    zoneResult.deleteResults = zoneResult.deleteResults.mapValues { $0.flatMap { _ in .failure(.batchRequestFailed) } }
                }
                // Not waited for: a failure the zone's statements hid until now fails the request whole.
                if atomically { try request.db.send("RELEASE zone") }
                result.merge(zoneResult)
            }
            return result
        }
        var told = result
        told.commit = committed.seen(by: self)
        return told
    }

    /// Fetches records by ID; each is there, or *unknown item*, or refused.
    /// A record the caller may not see is unknown to them.
    public func records(_ ids: [RecordID]) throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try cloud.performRead { db in
            var out: [RecordID: Result<Record, CloudError>] = [:]
            for id in ids {
                out[id] = Result { () throws(CloudError) in
                    let zoneID = try normalize(id.zone)
                    let record = try wrapStorage { () -> Record? in
                        guard let access = try access(db, zoneID), try access.canRead(db, name: id.name) else { return nil }
                        return try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID)?.record
                    }
                    guard let record else { throw .unknownItem(RecordID(name: id.name, zone: zoneID)) }
                    return record
                }
            }
            return out
        }
    }

    // MARK: Items

    /// Saves one record into a zone the caller reached, checking the policy and their rights,
    /// and tells the zone's audience.
    func save(_ record: Record, body: Data, policy: SavePolicy, access: ZoneAccess,
              _ request: inout Request) throws(CloudError) -> Record {
        let existing = try wrapStorage { try RecordTable.find(request.db, zone: access.zone.id, name: record.id.name, zoneID: access.zoneID) }
        let saved = try write(record, body: body, policy: policy, access: access, existing: existing, &request)
        try finish(access, &request)
        return saved
    }

    /// After saves into a zone: its change sequence moves to the last, and its audience hears of it.
    func finish(_ access: ZoneAccess, _ request: inout Request) throws(CloudError) {
        try wrapStorage {
            try ZoneTable.touch(request.db, zone: access.zone.id, seq: request.sequence)
            try request.notify(access)
        }
    }

    /// Saves one record as `save` does, leaving the telling to the caller; `moving`, as the copy a move makes
    /// (`move`).
    func write(_ record: Record, body: Data, policy: SavePolicy, access: ZoneAccess, existing: StoredRecord?,
               moving: Bool = false, _ request: inout Request) throws(CloudError) -> Record {
        guard record.type != Share.recordType else {
            throw .invalidArguments("shares are saved with saveShare, not as plain records")
        }
        let zoneID = access.zoneID
        if let parent = record.parent, parent.isEmpty || parent == record.id.name {
            throw .invalidArguments("record \(record.id.name) cannot be its own parent")
        }
        return try wrapStorage {
            let db = request.db
            var content = record
            var body = body
            var created = (at: request.now, by: caller.id)
            if let existing, let live = existing.record {
                // Readable first: a record the caller cannot read is unknown to it, whatever its type (the type's name
                // would tell it exists, and what it is).
                guard try access.canRead(db, name: live.id.name) else { throw CloudError.unknownItem(live.id) }
                guard live.type == record.type else {
                    throw CloudError.invalidArguments("record \(record.id.name) is a \(live.type), not a \(record.type)")
                }
                if policy == .ifServerRecordUnchanged && record.changeTag != live.changeTag {
                    throw CloudError.serverRecordChanged(server: live)
                }
                // As in CloudKit, only the keys the client changed travel, unless it asks for all.
                if policy != .allKeys {
                    content = live
                    for key in record.changedKeys { content.copyKey(key, from: record) }
                    body = RecordArchive.encodeBody(content)
                }
                created = (live.system!.createdAt, live.system!.createdBy)
            } else if existing != nil, !moving, let now = try movedRecord(db, from: access.zone.id, name: record.id.name, owner: zoneID.owner) {
                // Its owner moved it: a save of the old copy (a device that had not heard) is told where it is now.
                throw CloudError.serverRecordChanged(server: now)
            } else if existing != nil, !moving, scope == .shared, try RecordTable.movedTo(db, zone: access.zone.id, name: record.id.name) != nil {
                // Its owner moved it out of the participant's reach: not made again where it was (a device rebuilding a
                // cloud put back sends its old copy: app seed 98007), refused as a record deleted since; the device
                // keeps what it holds as its person's own.
                throw CloudError.unknownItem(RecordID(name: record.id.name, zone: zoneID))
            } else if !moving, let parent = content.parent,
                      let now = try movedRecord(db, from: access.zone.id, name: parent, owner: zoneID.owner) {
                // A record added below one its owner moved meanwhile (a comment typed on a device that had not heard):
                // told where that one is now, so it follows it there instead of hanging below a deleted record.
                throw CloudError.serverRecordChanged(server: now)
            } else if !moving, let parent = content.parent,
                      try RecordTable.find(db, zone: access.zone.id, name: parent, zoneID: zoneID)?.isDeleted == true {
                // Below a record deleted since, or moved out of the caller's reach (out of what is shared with them):
                // refused, naming the parent, not kept below a tombstone where no one would see it (a comment typed
                // offline on a post deleted on another device went so without a word). Its device keeps the words as
                // a post of their own; it does not bring the deleted post back (app seed 93161).
                throw CloudError.unknownItem(RecordID(name: parent, zone: zoneID))
            } else if policy == .ifServerRecordUnchanged && record.changeTag != nil {
                throw CloudError.unknownItem(RecordID(name: record.id.name, zone: zoneID))  // deleted since the client fetched it
            }
            try access.checkSave(db, name: record.id.name, parent: content.parent, existing: existing)
            try access.checkReferences(db, in: content, previous: existing?.record)
            // A tombstone keeps its parent, so re-creating a record elsewhere moves what still hangs below it.
            let moves = content.parent != existing?.parent
            if moves {
                try SharedHierarchy.checkMove(db, zone: access.zone.id, zoneID: zoneID, name: record.id.name, newParent: content.parent)
            }
            let seq = request.nextSequence()
            let system = SystemFields(
                changeTag: String(seq, radix: 36), createdAt: created.at, createdBy: created.by,
                modifiedAt: request.now, modifiedBy: caller.id)
            let saved = Record(id: RecordID(name: record.id.name, zone: zoneID), type: record.type,
                               fields: content.fields, encryptedFields: content.encryptedFields,
                               parent: content.parent, system: system)
            if existing?.record != nil {
                try VersionTable.keep(db, zone: access.zone.id, name: record.id.name, now: request.now)
            }
            try RecordTable.write(db, zone: access.zone.id, record: saved, body: body, seq: seq, replacing: existing?.record != nil)
            // What hierarchical participants see changes when a record moves, live or not (it may leave their
            // view before they heard of its deletion), or when records below it do (they may enter or leave
            // their view without changing themselves).
            if moves, try ShareTable.live(db, zone: access.zone.id).contains(where: { $0.root != nil }),
               try existing != nil || RecordTable.hasChildren(db, zone: access.zone.id, name: record.id.name) {
                try ZoneTable.moved(db, zone: access.zone.id, seq: seq)  // participants must look again
            }
            return saved
        }
    }

    /// Deletes one record. Deleting a share's record ends the share (its
    /// owner) or leaves it (a participant); deleting a share's root ends it too. What hangs below it by a
    /// delete-self reference goes with it, but for the names in `sparing` (moving themselves). A participant's
    /// deletion of a record its owner moved since is made where it went, if they may read it there.
    /// `ifAt`: the change tag of the version the caller saw; the record is deleted only while it is still that version.
    func delete(_ id: RecordID, ifAt tag: String? = nil, sparing: Set<String> = [], _ request: inout Request) throws(CloudError) {
        let zoneID = try normalize(id.zone)
        let db = request.db
        if scope == .private, tag != nil {
            // Its owner's device that had not heard of the record's move (on another device) names the version it
            // saw: told where the record is now, not left believing it deleted. (A device's own move's original
            // comes here too: its device holds the record there already, and takes this as done.)
            let moved = try wrapStorage { () -> Record? in
                guard let access = try access(db, zoneID),
                      try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID)?.isDeleted == true else { return nil }
                return try movedRecord(db, from: access.zone.id, name: id.name, owner: zoneID.owner)
            }
            if let moved { throw .serverRecordChanged(server: moved) }
        }
        let movedTo = try wrapStorage { () -> RecordID? in
            // Its owner moved it since the participant last fetched it: the deletion follows it there, as an edit
            // does (`write`), where they may read it; elsewhere it is gone to them. (Not the owner's own deletions:
            // their devices send a move's original's deletion, perhaps after the move, and following it there
            // lost words in app seeds 95012 and 95024.)
            guard scope == .shared, let access = try access(db, zoneID),
                  let existing = try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID), existing.isDeleted else { return nil }
            guard let now = try movedRecord(db, from: access.zone.id, name: id.name, owner: zoneID.owner) else {
                throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID))
            }
            return now.id
        }
        if let movedTo { return try delete(movedTo, &request) }  // (the copy is a version of its own)
        try wrapStorage {
            let access = try access(zoneID, for: &request)
            let db = request.db
            guard let existing = try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID),
                  !existing.isDeleted, try access.canRead(db, name: id.name)
            else { throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID)) }
            // Changed since its deleter saw it (an edit on another device, or another person's): theirs to look at first.
            if let tag, let live = existing.record, live.changeTag != tag { throw CloudError.serverRecordChanged(server: live) }
            if existing.type == Share.recordType {
                guard let share = try ShareTable.find(db, zone: access.zone.id, name: id.name) else {
                    throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID))
                }
                return access.isOwner ? try endShare(share, access: access, &request) : try leave(share, access: access, &request)
            }
            try access.checkDelete(db, existing)
            try request.notify(access)
            let deleted = try RecordTable.delete(db, zone: access.zone.id, name: id.name, by: caller.id, now: request.now,
                                                 mayCascade: { try !sparing.contains($0) && access.mayCascade(db, to: $0) },
                                                 beforeTombstone: { try VersionTable.keep(db, zone: access.zone.id, name: $0, now: request.now) }) {
                request.nextSequence()
            }
            for name in deleted {
                if let share = try ShareTable.rooted(db, zone: access.zone.id, at: name) {
                    try endShare(share, access: access, &request)
                }
            }
            try ZoneTable.touch(db, zone: access.zone.id, seq: request.sequence)
        }
    }

    /// The deletions among `deletes` (of one zone) refused whole, each with the record as it is now: one naming the
    /// version its deleter saw (`tags`) that would take with it a record they did not see at the version this request
    /// names (a comment added or edited since, on another device or by someone it is shared with), and the records
    /// below it this request deletes too. Taken unseen, that comment's words would be gone without anyone choosing so;
    /// and the comments its deleter saw come back with their post, not deleted apart from it.
    func heldBack(_ deletes: [RecordID], tags: [RecordID: String], _ request: inout Request) throws(CloudError) -> [RecordID: Record] {
        let named = Dictionary(deletes.compactMap { id in tags[id].map { (id.name, $0) } }, uniquingKeysWith: { first, _ in first })
        // A zone the caller cannot reach (gone, not shared with them): each deletion is refused on its own, saying why.
        guard !named.isEmpty, let zone = deletes.first?.zone, let zoneID = try? normalize(zone) else { return [:] }
        let db = request.db
        return try wrapStorage { () -> [RecordID: Record] in
            guard let access = try? access(db, zoneID) else { return [:] }  // (each deletion says why, as above)
            var held: [RecordID: Record] = [:]
            for id in deletes {
                guard let tag = tags[id], let live = try RecordTable.find(db, zone: access.zone.id, name: id.name, zoneID: zoneID)?.record,
                      live.changeTag == tag else { continue }
                let below = try RecordTable.cascading(db, zone: access.zone.id, from: id.name).filter { try access.mayCascade(db, to: $0) }
                let records = try RecordTable.find(db, zone: access.zone.id, names: below, zoneID: zoneID).compactMapValues(\.record)
                guard records.contains(where: { named[$0.key] != $0.value.changeTag }) else { continue }
                held[id] = live
                for other in deletes where named[other.name] != nil { if let record = records[other.name] { held[other] = record } }
            }
            return held
        }
    }

    /// Refuses a request over the limits (or holding a number that is not
    /// finite) before it touches the cloud, and
    /// returns each saved record's encoded body.
    func checkLimits(saving: [Record], deleting: [RecordID]) throws(CloudError) -> [Data] {
        let limits = cloud.limits
        let items = saving.count + deleting.count
        guard items <= limits.maxItemsPerRequest else {
            throw .limitExceeded("\(items) items in one request; at most \(limits.maxItemsPerRequest)")
        }
        var seen = Set<RecordID>()
        for id in saving.map(\.id) + deleting where !seen.insert(id).inserted {
            throw .invalidArguments("record \(id.name) appears twice in one request")
        }
        for id in saving.map(\.id) + deleting { try NameRules.validate(name: id.name, of: "record") }
        for record in saving where record.type != Share.recordType { try NameRules.validate(type: record.type) }
        for record in saving { if let parent = record.parent { try NameRules.validate(name: parent, of: "parent") } }
        // A reference names a record: a name no record can have is refused here, not by the store (PostgreSQL's
        // text cannot hold U+0000, and a delete-self reference's target is a column).
        for record in saving {
            for reference in record.fields.values.flatMap(\.references) { try NameRules.validate(name: reference.recordName, of: "reference") }
        }
        for record in saving {
            if let (key, _) = record.fields.first(where: { !$0.value.isFinite }) {
                throw .invalidArguments("field \(key) of record \(record.id.name) is not a finite number, or a date within 100 million days of 1970")
            }
            // Every key as CloudKit names fields (a letter, then letters, digits, '_'; at most 255 bytes): a key is
            // shown to the zone's other readers and travels in every fetch.
            for key in record.fields.keys.sorted() + record.encryptedFields.keys.sorted() { try FieldAssignment.validate(key: key) }
            if let (key, value) = record.fields.first(where: { $0.value.listDepth > FieldValue.maxListDepth }) {
                throw .invalidArguments("field \(key) of record \(record.id.name) nests lists \(value.listDepth) deep; at most "
                                        + "\(FieldValue.maxListDepth)")
            }
        }
        var total = 0
        let bodies = saving.map(RecordArchive.encodeBody)
        for (record, body) in zip(saving, bodies) {
            guard body.count <= limits.maxRecordBytes else {
                throw .limitExceeded("record \(record.id.name) is too large (\(ByteCount.over(body.count, limit: limits.maxRecordBytes)))")
            }
            total += body.count
        }
        guard total <= limits.maxRequestBytes else {
            throw .limitExceeded("request is \(total) bytes; at most \(limits.maxRequestBytes)")
        }
        return bodies
    }
}
