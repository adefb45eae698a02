import Cloud
import Foundation

extension SyncEngine {
    /// Sends pending changes: zones to save first, then records in batches the
    /// delegate builds, until nothing in scope is pending, then zones to
    /// delete (a record's deletion sent before its zone's is still seen: the
    /// cloud keeps a post's history when it moves). Every change sent
    /// comes back in an event, saved or failed; a failed one is no longer
    /// pending and the app decides what to do. A transient error stops the
    /// send and is thrown; what it did not send stays pending.
    public func sendChanges(_ zoneScope: ZoneScope = .all) throws {
        try exclusively { database in
            post(.willSendChanges(zoneScope))
            defer { post(.didSendChanges(zoneScope)) }
            try sendDatabaseChanges(database, zoneScope, deletions: false)
            try sendRecordChanges(database, zoneScope)
            try sendDatabaseChanges(database, zoneScope, deletions: true)
        }
    }

    private func sendDatabaseChanges(_ database: CloudDatabase, _ zoneScope: ZoneScope, deletions: Bool) throws {
        let pending = state.pendingDatabaseChanges.filter { change in
            guard zoneScope.contains(change.zoneID) else { return false }
            guard case .deleteZone(let zone) = change else { return !deletions }
            // A deletion naming its token waits for what is still to be sent of the zone (a rename's moves out, one
            // refused and merged): sent first, they would find the zone gone; sent after, they leave it unchanged.
            return deletions && !(zoneDeletionsNameTheirTokens && hasPendingRecordChanges(in: .zones([zone])))
        }
        guard !pending.isEmpty else { return }
        var saves: [ZoneID] = [], deletes: [ZoneID] = []
        for change in pending {
            switch change {
            case .saveZone(let id): saves.append(id)
            case .deleteZone(let id): deletes.append(id)
            }
        }
        let tokens = zoneDeletionsNameTheirTokens ? state.withLock { state in deletes.reduce(into: [:]) { $0[$1] = state.zoneTokens[$1] } } : [:]
        let result = try request("modifyZones", "save=\(saves) delete=\(deletes)") {
            try database.modifyZones(saving: saves, deleting: deletes, deletionTokens: tokens)
        }
        noteOwn(result.commit)
        var sent = SentDatabaseChanges()
        for id in saves {
            switch result.saveResults[id]! {
            case .success(let zone): sent.savedZones.append(zone)
            case .failure(let error): sent.failedZoneSaves.append((id, error))
            }
        }
        for id in deletes {
            switch result.deleteResults[id]! {
            case .success: sent.deletedZones.append(id)
            case .failure(.zoneNotFound): sent.deletedZones.append(id)  // already gone: what was asked
            case .failure(.zoneChanged(let zone)):
                // What changed there comes back whole, for the app to show its person again.
                sent.failedZoneDeletes[id] = .zoneChanged(zone)
                state.withLock { state in
                    state.zoneTokens[id] = nil
                    state.fetchOnce([id])
                }
            case .failure(let error): sent.failedZoneDeletes[id] = error
            }
        }
        state.removeSent(pending)
        do {
            try deliver(.sentDatabaseChanges(sent))
        } catch {
            state.add(pendingDatabaseChanges: pending)  // the app did not take the results: they stay pending
            throw error
        }
        state.withLock { $0.fetchOnce(sent.savedZones) }
        postStateUpdate()
    }

    /// Each pending change is attempted at most once per send: what the app
    /// adds again while handling the results (a merge, a zone re-created)
    /// goes out with the next send, so a change that keeps failing cannot spin.
    ///
    /// The state is posted once when the send ends, not after each batch:
    /// its serialization holds every pending change, so per batch it grew
    /// with the square of a large send. A crash before it is saved only
    /// means the saved changes are offered again; they carry the change
    /// tags the app stored with each batch's results.
    private func sendRecordChanges(_ database: CloudDatabase, _ zoneScope: ZoneScope) throws {
        let context = SendChangesContext(scope: zoneScope)
        var attempted = Set<PendingRecordZoneChange>()
        var stateChanged = false
        defer { if stateChanged { postStateUpdate() } }
        while hasPendingRecordChanges(in: zoneScope), var batch = try batch(context) {
            batch.recordsToSave.removeAll { attempted.contains(.saveRecord($0.id)) }
            batch.recordIDsToDelete.removeAll { attempted.contains(.deleteRecord($0)) }
            guard !batch.isEmpty else { break }
            if !batch.recordIDsWithoutRecords.isEmpty {
                let gone = batch.recordIDsWithoutRecords.map { PendingRecordZoneChange.saveRecord($0) }
                attempted.formUnion(gone)
                state.removeSent(gone.map { ($0, state.recordVersion($0)) })
                stateChanged = true
                if batch.recordsToSave.isEmpty && batch.recordIDsToDelete.isEmpty { continue }
            }
            let changes = batch.recordsToSave.map { PendingRecordZoneChange.saveRecord($0.id) }
                + batch.recordIDsToDelete.map { PendingRecordZoneChange.deleteRecord($0) }
            attempted.formUnion(changes)
            let versions = changes.map { ($0, state.recordVersion($0)) }
            var result = ModifyResult()
            var failure: (any Error)?
            do {
                try modify(database, batch.recordsToSave, batch.recordIDsToDelete, tags: batch.deletionTags, atomically: batch.atomicByZone,
                           into: &result)
            } catch {
                failure = error  // report what did go through, then stop
            }
            let (sent, settled) = report(batch, result)
            state.removeSent(versions.filter { settled.contains($0.0) })
            if !settled.isEmpty {
                stateChanged = true
                do {
                    try deliver(.sentRecordZoneChanges(sent))
                } catch {
                    // The app did not take the results in: the changes stay pending (sent again, a save
                    // meets its own newer version and merges), and the cloud's tags are not its own yet.
                    state.add(pendingRecordZoneChanges: changes.filter(settled.contains))
                    throw error
                }
                noteOwnSaves(sent)
            }
            if let failure { throw failure }
        }
    }

    private func noteOwnSaves(_ sent: SentRecordZoneChanges) {
        for record in sent.savedRecords {
            if let tag = record.changeTag { ownSaves[record.id.zone, default: [:]][record.id.name] = tag }
        }
        for id in sent.deletedRecordIDs { ownSaves[id.zone]?[id.name] = nil }
    }

    private func hasPendingRecordChanges(in zoneScope: ZoneScope) -> Bool {
        !state.pendingRecordZoneChanges(in: zoneScope, limit: 1).isEmpty
    }

    /// Sends one batch; a request over the cloud's limits is split in halves
    /// and each half sent, down to single items.
    private func modify(_ database: CloudDatabase, _ saves: [Record], _ deletes: [RecordID], tags: [RecordID: String], atomically: Bool,
                        into result: inout ModifyResult) throws {
        do {
            let part = try request("modifyRecords", "save=\(saves.map { "\($0.id)#\($0.changeTag ?? "new")" }) delete=\(deletes)") {
                try database.modifyRecords(saving: saves, deleting: deletes, deletionTags: tags, policy: .ifServerRecordUnchanged,
                                           atomically: atomically)
            }
            noteOwn(part.commit)
            result.merge(part)
        } catch CloudError.limitExceeded(let why) {
            let count = saves.count + deletes.count
            guard count > 1 else {
                // One item alone is too big: that item fails, the send goes on.
                for record in saves { result.saveResults[record.id] = .failure(.limitExceeded(why)) }
                for id in deletes { result.deleteResults[id] = .failure(.limitExceeded(why)) }
                return
            }
            let half = count / 2
            let firstSaves = Array(saves.prefix(half))
            let firstDeletes = Array(deletes.prefix(max(0, half - saves.count)))
            try modify(database, firstSaves, firstDeletes, tags: tags, atomically: atomically, into: &result)
            try modify(database, Array(saves.dropFirst(firstSaves.count)), Array(deletes.dropFirst(firstDeletes.count)), tags: tags,
                       atomically: atomically, into: &result)
        }
    }

    /// Sorts a batch's results into the event, and returns the changes that
    /// are settled (no longer pending): saved, deleted, or failed for a
    /// reason the app must decide. Items rolled back with their zone, or
    /// never sent, stay pending.
    private func report(_ batch: RecordZoneChangeBatch, _ result: ModifyResult)
        -> (SentRecordZoneChanges, Set<PendingRecordZoneChange>) {
        var sent = SentRecordZoneChanges()
        var settled = Set<PendingRecordZoneChange>()
        for record in batch.recordsToSave {
            switch result.saveResults[record.id] {
            case .success(let saved)?:
                sent.savedRecords.append(saved)
                settled.insert(.saveRecord(record.id))
            case .failure(let error)? where error != .batchRequestFailed && !error.isTransient:
                sent.failedRecordSaves.append((record, error))
                settled.insert(.saveRecord(record.id))
            default:
                break
            }
        }
        for id in batch.recordIDsToDelete {
            switch result.deleteResults[id] {
            case .success?, .failure(.unknownItem)?:
                sent.deletedRecordIDs.append(id)  // already gone is what was asked
                settled.insert(.deleteRecord(id))
            case .failure(let error)? where error != .batchRequestFailed && !error.isTransient:
                sent.failedRecordDeletes[id] = error
                settled.insert(.deleteRecord(id))
            default:
                break
            }
        }
        return (sent, settled)
    }
}
