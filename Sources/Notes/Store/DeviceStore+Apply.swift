import Cloud
import Foundation
import GRDB
import SQLiteDirect
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Sync

extension DeviceStore {
    /// Applies fetched changes. A post with a local edit waiting is merged
    /// three ways (against the record both started from), so neither the
    /// cloud's edit nor the local one is lost; its pending save stays.
    /// Returns what arrived, the comments waiting here on posts deleted elsewhere that are kept as posts of
    /// this account's own (`keepWaitingComments`), and the moves this device undid (`mergeIntoMovingCopy`).
    @discardableResult
    func applyFetched(_ scope: DatabaseScope, modifications: [Record], deletions: [RecordDeletion]) throws
        -> (arrivals: [Arrival], rescued: [RecordID], undone: UndoneMoves) {
        try write(scope) { db in
            var arrivals: [Arrival] = [], undone = UndoneMoves()
            // Already known by its change tag (this device's own saves coming back): nothing new to apply.
            let knownTags = try Self.knownChangeTags(db, scope, modifications.map(\.id))
            let news = modifications.filter { $0.changeTag == nil || knownTags[$0.id] != $0.changeTag }
            let ids = news.map(\.id)
            let pendingKinds = try Self.pendingKinds(db, scope, ids), localPosts = try Self.localPosts(db, scope, ids)
            // Each record is remembered, shares and other types too (for reference): in its post's row where
            // the row holds it whole, else as a copy, written after the merges read the last ones.
            var rows: [PostRow] = [], copies: [Record] = [], changedHere: [RecordID] = []
            for record in news {
                if pendingKinds[record.id] == .deleteRecord {
                    if record.type == Post.recordType, scope == .private, let copy = try Self.movingCopy(db, of: record.id) {
                        // An original this device is moving, changed elsewhere: the change goes with the post (the
                        // copy then names this version, and the cloud would move it without the change).
                        if let back = try mergeIntoMovingCopy(db, copy, record) { undone.append(back) } else { copies.append(record) }
                    }
                    // Else deleted here, changed elsewhere: the version its person deleted stays the one known, so
                    // the cloud refuses the deletion (named by that version) and the record comes back, told.
                    continue
                }
                guard record.type == Post.recordType else {
                    copies.append(record)
                    continue
                }
                var row = PostRow(record: record, scope: scope)
                let known = localPosts[record.id]
                if known?.modifiedAt != row.post.modifiedAt || known?.modifiedBy != row.post.modifiedBy {
                    // A post new to this device is new however it is timed: only changes of known ones need the hour.
                    if known != nil { changedHere.append(record.id) }
                    arrivals.append(Arrival(kind: known == nil ? .added : .edited, postID: row.post.id, title: row.post.title,
                                            by: row.post.modifiedBy))
                }
                if pendingKinds[record.id] == .saveRecord, let local = known {
                    // The edit waiting here stays this device's, now holding the cloud's newer text too.
                    let (merged, sealed) = try mergeWaitingEdit(db, scope, local: local, server: record)
                    row.post.fields = merged.fields
                    row.post.sealedLocation = sealed
                    row.post.conflicted = merged.conflicted
                    (row.post.modifiedAt, row.post.modifiedBy, row.post.modifiedOn) = (local.modifiedAt, local.modifiedBy, local.modifiedOn)
                    row.changeTag = nil
                }
                rows.append(row)
                if row.changeTag == nil { copies.append(record) }
            }
            try Self.upsert(db, scope, rows)
            // When someone's change reached this device, by its own clock (what is new since you looked goes by it).
            let arrivedAt = now().timeIntervalSince1970
            for id in changedHere {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO \(Self.schema(scope)).arrived(zone_name, zone_owner, id, arrived_at) VALUES (?, ?, ?, ?)")
                    .execute(arguments: [id.zone.name, id.zone.owner, id.name, arrivedAt])
            }
            // Comments after the posts, so a comment on a post of the same batch finds it.
            for record in news where record.type == Comment.recordType && pendingKinds[record.id] != .deleteRecord {
                let comment = Comment(record: record, scope: scope)
                if let post = try Self.localPost(db, scope, RecordID(name: comment.postID, zone: comment.zone)) {
                    arrivals.append(Arrival(kind: .commented, postID: post.id, title: post.title, by: comment.createdBy))
                }
                try Self.upsert(db, comment)
            }
            try Self.remember(db, scope, copies)
            try Self.retireKeysWrittenOver(db, scope, by: [], deleted: deletions.map(\.id))
            let rescued = try keepWaitingComments(db, scope, deleted: deletions.map(\.id))
            let waiting = try Self.pendingKinds(db, scope, deletions.map(\.id))
            for deletion in deletions {
                if waiting[deletion.id] == .saveRecord, try Self.localPost(db, scope, deletion.id) != nil {
                    // Deleted elsewhere while an edit here waits: the edit brings it back, as new (see applySent).
                    try bringBack(db, scope, deletion.id)
                    continue
                }
                if let gone = try Self.localPost(db, scope, deletion.id) {
                    arrivals.append(Arrival(kind: .deleted, postID: gone.id, title: gone.title, by: nil))
                }
                for table in ["posts", "comments"] {
                    try db.execute(sql: "DELETE FROM \(Self.schema(scope)).\(table) WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                                   arguments: [deletion.id.zone.name, deletion.id.zone.owner, deletion.id.name])
                }
                try Self.forget(db, scope, deletion.id)
                try Self.clearPending(db, scope, zone: deletion.id.zone, name: deletion.id.name)
            }
            return (arrivals, rescued, undone)
        }
    }

    /// Comments typed here and not sent yet, on posts shared with this account that were deleted elsewhere (or
    /// deleted themselves, with their post): kept as posts of this account's own, so their words are not lost
    /// (returned, to be told). (In the account's own notebooks a deletion heard here cannot be told from a move,
    /// where a comment follows its post when sent; those stay as they are.) Returns the comments kept.
    private func keepWaitingComments(_ db: Database, _ scope: DatabaseScope, deleted: [RecordID]) throws -> [RecordID] {
        guard scope == .shared else { return [] }
        var waiting: [Comment] = []
        for zone in Set(deleted.map(\.zone)) {
            let names = deleted.filter { $0.zone == zone }.map(\.name)
            try inSQLLists(names, size: 200, each: "?") { names, list in
                waiting += try Self.waitingComments(db, scope, zone: zone, where: "(c.id IN (\(list)) OR c.post_id IN (\(list)))",
                                                    arguments: StatementArguments(Array(names) + Array(names)))
            }
        }
        let ids = waiting.map { RecordID(name: $0.id, zone: $0.zone) }
        guard !ids.isEmpty else { return [] }
        let rescued = try rescueComments(db, ids)
        for id in ids { try Self.dropHere(db, scope, id) }
        return rescued
    }

    /// The comments of `zone` matching `condition` (on `comments c`) that wait to be sent.
    static func waitingComments(_ db: Database, _ scope: DatabaseScope, zone: ZoneID, where condition: String,
                                arguments: StatementArguments) throws -> [Comment] {
        let ids = try String.fetchAll(db, sql: """
            SELECT c.id FROM \(schema(scope)).comments c JOIN \(schema(scope)).pending q
            ON q.zone_name = c.zone_name AND q.zone_owner = c.zone_owner AND q.name = c.id AND q.kind = '\(PendingKind.saveRecord.rawValue)'
            WHERE c.zone_name = ? AND c.zone_owner = ? AND \(condition)
            """, arguments: [zone.name, zone.owner] + arguments)
        return try ids.compactMap { try localComment(db, scope, RecordID(name: $0, zone: zone)) }
    }

    /// Applies what a send did and returns the changes to send again.
    func applySent(_ scope: DatabaseScope, _ sent: SentRecordZoneChanges) throws
        -> (records: [PendingRecordZoneChange], zones: [PendingDatabaseChange], refusals: [Refusal], undone: UndoneMoves) {
        try write(.private, scope) { db in
            var again: [PendingRecordZoneChange] = [], zones: [PendingDatabaseChange] = [], refusals: [Refusal] = []
            var undone = UndoneMoves(), told = Set<RecordID>(), unshared = Set<ZoneID>()
            var done: [RecordID] = [], copies: [Record] = []
            for record in sent.savedRecords {
                // Done, unless the post was edited again meanwhile (by another process): then it goes out again,
                // and the record sent is the base of its merge. A post row still holding it holds it whole.
                let held = Post.rowCanHold(record)
                if record.type == Comment.recordType {
                    done.append(record.id)
                    copies.append(record)
                    try Self.stampComment(db, scope, record)
                } else if try Self.stamp(db, scope, record, holdingWhole: held, ifStillHolding: Post.fields(of: record))
                            || stampIfUnchanged(db, scope, record, holdingWhole: held) {
                    done.append(record.id)
                    if !held { copies.append(record) }
                } else {
                    // A location held back beside one this device cannot open waits for a key, not another round.
                    if try Self.unopenedLocation(db, scope, record.id) == nil { again.append(.saveRecord(record.id)) }
                    copies.append(record)
                }
            }
            try Self.remember(db, scope, copies)
            try Self.clearPending(db, scope, done)
            for (record, error) in sent.failedRecordSaves {
                let id = record.id
                switch error {
                case .serverRecordChanged(let server):
                    // The cloud's record in another notebook: its owner moved it meanwhile (on another device), unless
                    // this device is moving it (the original's deletion waits here) and the original changed since.
                    let movedAway = try server.id.zone != id.zone && Self.pendingKinds(db, scope, [server.id])[server.id] != .deleteRecord
                    if movedAway, server.type == Post.recordType, let local = try Self.localPost(db, scope, id) {
                        try follow(db, scope, local, to: server)  // the edit follows it there
                        again.append(.saveRecord(server.id))
                    } else if movedAway, server.type == Post.recordType, let comment = try Self.localComment(db, scope, id),
                              comment.postID == server.id.name {
                        // A comment on a post moved meanwhile: it follows the post. The cloud's post is not this
                        // comment's last known record, nor (merged with nothing here) the post's.
                        try follow(db, scope, comment, to: server)
                        again.append(.saveRecord(RecordID(name: id.name, zone: server.id.zone)))
                        continue
                    } else if server.id.zone != id.zone, server.type == Post.recordType, let copy = try Self.localPost(db, scope, id) {
                        // This device's move, of a version changed since: the change goes with the post, or the move
                        // is undone (its original's deletion, held back with it, stays pending: dropped there).
                        if let back = try mergeIntoMovingCopy(db, copy, server) {
                            undone.append(back)
                            continue
                        }
                        again.append(.saveRecord(id))
                    } else if var local = try Self.localPost(db, scope, id) {
                        let (merged, sealed) = try mergeWaitingEdit(db, scope, local: local, server: server)
                        local.fields = merged.fields
                        local.sealedLocation = sealed
                        local.conflicted = merged.conflicted
                        try Self.upsert(db, local)
                        again.append(.saveRecord(id))
                    } else if server.id.zone != id.zone, server.type == Comment.recordType, var comment = try Self.localComment(db, scope, id) {
                        if movedAway {
                            try follow(db, scope, comment, to: server)  // an edit of it follows it there
                            again.append(.saveRecord(server.id))
                        } else {
                            // Moved from a version its author has changed since: it moves again as they left it.
                            comment.text = Comment(record: server, scope: scope).text
                            try Self.upsert(db, comment)
                            again.append(.saveRecord(id))
                        }
                    } else if server.id != id {
                        // Another record than the one refused (a comment's post, moved meanwhile), which nothing here
                        // merged: remembered as known, a later merge of the post from it would take its words for
                        // seen here, and drop them (app seed 100936).
                        continue
                    }
                    try Self.remember(db, scope, server)
                case .zoneNotFound(let zone) where scope == .private && record.movedFrom?.zone == zone:
                    // The notebook it was moved out of was deleted meanwhile (on another device), and took its trash: the
                    // move is what its person asked, so the post arrives where they moved it, as new, and they hear so.
                    try movedOriginalDeleted(db, scope, record, keepingCopy: true)
                    again.append(.saveRecord(id))
                    if record.type == Post.recordType {
                        refusals.append(Refusal(id, error, outcome: "notebook \(zone.name) was deleted elsewhere (or lost by the cloud) while this "
                                                + "move waited here: the post is kept where you moved it", kind: .keptAnotherWay))
                    }
                case .zoneNotFound(let zone) where scope == .private:
                    // (A record sent with nothing of its own waiting, a commented post brought back below, is said
                    // through its comment's line.)
                    // (Known shared before the first of its changes forgot what the cloud held: said of each.)
                    if try Self.heldShares(db, zone) { unshared.insert(zone) }
                    if try Self.pendingKinds(db, scope, [id])[id] != nil {
                        let note = Self.notebookBackNote(zone, wasShared: unshared.contains(zone))
                        refusals.append(Refusal(id, error, outcome: note, kind: .keptAnotherWay))
                    }
                    try forgetCloudCopy(db, zone)
                    zones.append(.saveZone(id.zone))
                    again.append(.saveRecord(id))
                    if let post = try commentedPost(id, db) {
                        // (Sent again, not marked waiting: a fetch finding the notebook gone would tell it as a change of its own.)
                        try bringBack(db, scope, post)
                        again.append(.saveRecord(post))
                    }
                case .zoneNotFound(let zone) where scope == .shared:
                    // Access to the zone ended while the edit waited: it is no longer ours to show, but the
                    // words typed into it stay, as a post of this account's own.
                    // Every post of the zone kept so is told, not only this one (another process's edit, say).
                    // Each is told once: a change of a zone dropped already in this round was told with it.
                    guard !told.contains(id) else { continue }
                    let rescued = try dropZones(db, scope, [zone]).rescued
                    told.formUnion(rescued)
                    refusals.append(Refusal(id, error, outcome: rescued.contains(id) ? Self.keptNote : nil))
                    refusals += rescued.filter { $0 != id }.map { Refusal($0, error, outcome: Self.keptNote) }
                case .unknownItem where record.movedFrom != nil:
                    // What this device moved was deleted meanwhile (on another device; a comment, by its author): the
                    // original's deletion waits no more, and the copy stays only where it was changed here since. A post
                    // that goes so is told of: it left the list, moved, and never arrived.
                    if try movedOriginalDeleted(db, scope, record) {
                        again.append(.saveRecord(id))
                    } else if record.type == Post.recordType {
                        // (Alone, it is in its notebook's trash; with its notebook, in none: not said which.)
                        refusals.append(Refusal(id, error, outcome: "not moved: \"\(Post.fields(of: record).title)\" was deleted elsewhere "
                                                + "meanwhile (or its notebook was), and stays deleted"))
                    }
                case .unknownItem(let parent) where record.type == Comment.recordType && parent != id && scope == .private:
                    if try Self.pendingKinds(db, scope, [parent])[parent] == .saveRecord {
                        again.append(.saveRecord(id))  // its post goes out again (an edit brings it back): this follows it
                        continue
                    }
                    // Its post was deleted meanwhile (on another device): the comment is kept as a post of its own.
                    // (Not the post brought back with it: the copy here may be one the cloud was put back from.)
                    let rescued = try rescueComments(db, [id], from: scope)
                    refusals.append(Refusal(id, error, outcome: rescued.isEmpty ? "its post was deleted; your comment was not kept" : Self.keptCommentNote))
                    try Self.dropHere(db, scope, id)
                case .unknownItem where scope == .private && record.type == Post.recordType:
                    // Deleted on another device meanwhile: this edit brings the post back, as new.
                    try bringBack(db, scope, id)
                    again.append(.saveRecord(id))
                case .unknownItem:
                    // Deleted elsewhere meanwhile, or no longer shared with this account: the edit cannot land
                    // there, but its words stay here, as a post of this account's own.
                    let isComment = record.type == Comment.recordType
                    let rescued = scope != .shared ? [] : isComment ? try rescueComments(db, [id]) : try rescue(db, [id], deleted: true)
                    refusals.append(Refusal(id, error, outcome: rescued.isEmpty ? "it was deleted, or is no longer shared with you; your edit was not kept"
                                                                               : isComment ? Self.keptCommentNote : Self.deletedOrUnsharedNote))
                    try Self.dropHere(db, scope, id)
                case .quotaExceeded, .limitExceeded, .invalidArguments:
                    // Refused for what it is (too large, say): kept here as typed and marked with the reason, not sent
                    // again until an edit changes it, never counted as sent. An edit made meanwhile goes out as it is.
                    guard try stillHolds(db, scope, record) else {
                        again.append(.saveRecord(id))
                        continue
                    }
                    let reason = Self.refusalReason(record, error)
                    refusals.append(Refusal(id, error, outcome: "not sent: \(reason); it is kept on this device (edit it to fit, or discard it)"))
                    try Self.markRefused(db, scope, id, reason: reason, at: now())
                case _ where record.type == Post.recordType && scope == .private:
                    // Refused for another reason the app does not expect of its own notebook: kept and marked too.
                    let reason = Self.refusalReason(record, error)
                    refusals.append(Refusal(id, error, outcome: "not sent: \(reason); it is kept on this device"))
                    try Self.markRefused(db, scope, id, reason: reason, at: now())
                default:
                    // Refused (read-only now, out of reach): the post goes back to the cloud's version, and the
                    // words typed into it are kept as a post of this account's own.
                    let rescued = record.type == Post.recordType ? try rescue(db, [id])
                        : record.type == Comment.recordType && scope == .shared ? try rescueComments(db, [id]) : []
                    let what = record.type == Comment.recordType ? "comment" : "edit"
                    refusals.append(Refusal(id, error, outcome: rescued.isEmpty ? nil : "\(error); your \(what) is kept as a post of your own"))
                    try restore(db, scope, id)
                }
            }
            for id in sent.deletedRecordIDs {
                try Self.forget(db, scope, id)
                try Self.clearPending(db, scope, zone: id.zone, name: id.name)
            }
            // A comment's original whose move went out while its post's was undone above moves back: its deletion,
            // refused as moved (by this device), is taken back, not told.
            let movingBack = Set(undone.added.compactMap { change -> RecordID? in if case .saveRecord(let id) = change { id } else { nil } })
            for (id, error) in sent.failedRecordDeletes where !movingBack.contains(id) {
                // A comment going with its post is told of with the post, not again on its own.
                let withPost = { (comment: Record) in sent.failedRecordDeletes[RecordID(name: Comment(record: comment, scope: scope).postID, zone: id.zone)] != nil }
                switch error {
                case .zoneNotFound where scope == .private:
                    // Gone with its notebook (deleted on another device meanwhile): what was asked.
                    try Self.forget(db, scope, id)
                    try Self.clearPending(db, scope, zone: id.zone, name: id.name)
                case .serverRecordChanged(let server) where server.id != id:
                    // Moved to another notebook meanwhile: where it was, nothing is left to delete. Moved by this
                    // device (the original of its own move), done; by another, the post is where it went, said.
                    try Self.forget(db, scope, id)
                    try Self.clearPending(db, scope, zone: id.zone, name: id.name)
                    let isPost = server.type == Post.recordType
                    let heldThere = isPost ? try Self.localPost(db, scope, server.id) != nil : try Self.localComment(db, scope, server.id) != nil
                    guard !heldThere, isPost || server.type == Comment.recordType else { continue }
                    try Self.remember(db, scope, server)
                    if isPost {
                        try Self.upsert(db, scope, [PostRow(record: server, scope: scope)])
                    } else {
                        try Self.upsert(db, Comment(record: server, scope: scope))
                        if withPost(server) { continue }
                    }
                    let what = isPost ? "it was moved" : "its post was moved"
                    refusals.append(Refusal(server.id, error, outcome: "not deleted: \(what) to notebook \(server.id.zone.name) meanwhile, "
                                            + "and is there now; delete it there to delete it"))
                case .serverRecordChanged(let server):
                    let unchanged = try Self.knownChangeTags(db, scope, [id])[id] == server.changeTag
                    if !unchanged, server.type == Post.recordType, let copy = try Self.movedCopyHeld(db, scope, of: id) {
                        // The original of a move this device sent again (rebuilding a cloud put back), there again from
                        // another device's rebuild: what it holds goes into the moved copy, and its deletion names it now.
                        try Self.upsert(db, merging(db, scope, Post(record: server, scope: scope), into: copy))
                        try Self.remember(db, scope, server)
                        try Self.markPending(db, scope, zone: copy.zone, name: copy.id, kind: .saveRecord)
                        try Self.markPending(db, scope, zone: id.zone, name: id.name, kind: .deleteRecord)
                        again += [.saveRecord(copy.recordID), .deleteRecord(id)]
                        continue
                    }
                    // Changed after this device saw it (on another device, or by someone it is shared with): the
                    // deletion would take what its person never saw, so it comes back as it is now, and they are told.
                    // Unchanged itself, a post is refused for its comments: one added or changed since would go with it.
                    try Self.remember(db, scope, server)
                    try restore(db, scope, id)
                    if server.type == Comment.recordType {
                        if !withPost(server) {
                            refusals.append(Refusal(id, error, outcome: "not deleted: the comment changed after you saw it, and is back as it is now; "
                                                    + "delete it again to delete it"))
                        }
                    } else if unchanged {
                        refusals.append(Refusal(id, error, outcome: "not deleted: its comments changed after you saw them (one was added, or "
                                                + "edited); it is back with them; delete it again to delete it"))
                    } else {
                        refusals.append(Refusal(id, error, outcome: "not deleted: the post changed after you saw it, and is back as it is now; "
                                                + "delete it again to delete it"))
                    }
                case .zoneNotFound(let zone) where scope == .shared:
                    refusals.append(Refusal(id, error))
                    try dropZones(db, scope, [zone])
                default:
                    refusals.append(Refusal(id, error))
                    try restore(db, scope, id)
                }
            }
            return (again, zones, refusals, undone)
        }
    }

    /// The post this device moved `original` to (`moves`), where it holds it still.
    static func movedCopyHeld(_ db: Database, _ scope: DatabaseScope, of original: RecordID) throws -> Post? {
        guard scope == .private, let row = try Row.fetchOne(db, sql: """
            SELECT to_zone, to_owner FROM main.moves WHERE name = ? AND from_zone = ? AND from_owner = ?
            """, arguments: [original.name, original.zone.name, original.zone.owner]) else { return nil }
        return try localPost(db, scope, RecordID(name: original.name, zone: ZoneID(name: row[0], owner: row[1])))
    }

    /// Gives a sent comment the cloud's stamps, as every other device reads them (the time this device typed it
    /// differs by its clock and the send), where it still holds what was sent.
    private static func stampComment(_ db: Database, _ scope: DatabaseScope, _ record: Record) throws {
        guard let system = record.system else { return }
        try db.execute(sql: """
            UPDATE \(schema(scope)).comments SET created_at = ?, created_by = ?, modified_at = ?, modified_by = ?
            WHERE zone_name = ? AND zone_owner = ? AND id = ? AND text = ?
            """, arguments: [system.createdAt.timeIntervalSince1970, system.createdBy, system.modifiedAt.timeIntervalSince1970, system.modifiedBy,
                              record.id.zone.name, record.id.zone.owner, record.id.name, Comment(record: record, scope: scope).text])
    }

    /// Gives a sent post the cloud's stamps and sealed location, as fetching it back would, and with
    /// `holdingWhole` the record's change tag (the row then holds the record). With `sent`, only where the
    /// post still holds those fields and has no location, compared by the UPDATE itself without reading the
    /// post (most posts). Returns whether it was stamped.
    private static func stamp(_ db: Database, _ scope: DatabaseScope, _ record: Record, holdingWhole: Bool,
                              ifStillHolding sent: PostFields?) throws -> Bool {
        let unchanged = sent == nil ? "" : " AND title = ? AND content = ? AND tags = ? AND location IS NULL"
        try db.cachedStatement(sql: """
            UPDATE \(schema(scope)).posts SET created_at = coalesce(?, created_at), created_by = coalesce(?, created_by),
                modified_at = coalesce(?, modified_at), modified_by = coalesce(?, modified_by),
                saved_at = ?, saved_by = ?, location_sealed = ?, change_tag = ?
            WHERE zone_name = ? AND zone_owner = ? AND id = ?
            """ + unchanged).run(binding: { row in
                let edit = Post.lastEdit(of: record)
                row.add(record.system?.createdAt.timeIntervalSince1970)
                row.add(record.system?.createdBy)
                row.add((edit?.at ?? record.system?.modifiedAt)?.timeIntervalSince1970)
                row.add(edit?.by ?? record.system?.modifiedBy)
                row.add(record.system?.modifiedAt.timeIntervalSince1970)
                row.add(record.system?.modifiedBy)
                row.add(record.encrypted(Post.Key.location))
                row.add(holdingWhole ? record.changeTag : nil)
                row.add(record.id.zone.name)
                row.add(record.id.zone.owner)
                row.add(record.id.name)
                if let sent {
                    row.add(sent.title)
                    row.add(sent.content)
                    row.add(TagsColumn.text(sent.tags))
                }
            })
        return db.changesCount > 0
    }

    /// The same for a post that may have a location: read and compared whole (its sealed location too);
    /// false when it changed meanwhile (in another process) or is gone.
    private func stampIfUnchanged(_ db: Database, _ scope: DatabaseScope, _ record: Record, holdingWhole: Bool) throws -> Bool {
        guard let post = try Self.localPost(db, scope, record.id), post.fields.sameSynced(as: Post.fields(of: record)),
              post.location == nil || locationSynced(db, post, in: record) else { return false }
        return try Self.stamp(db, scope, record, holdingWhole: holdingWhole, ifStillHolding: nil)
    }

    /// Merges the edit waiting on this device with the cloud's newer record, against the record the edit
    /// started from. Without a known base (a lost response: the save committed, its tag never came back),
    /// everything either side holds survives. Returns the merge and the sealed location the merged post
    /// keeps: the cloud's where the merge took its location, none where this device's typed one replaces it.
    /// A key this device lacks never erases someone's location: one it cannot open stays as the cloud has it
    /// while this device left its own alone, and waits beside a location typed here (see
    /// `mergeUnopenedLocations`) when both changed, or the one typed here was typed without seeing any.
    /// Merges the edit waiting in `local` with the cloud's `server`, from the last known version of `baseID` (the
    /// server's record by default).
    func mergeWaitingEdit(_ db: Database, _ scope: DatabaseScope, local: Post, server: Record,
                          base baseID: RecordID? = nil) throws -> (merged: PostMerge.Result, sealedLocation: Data?) {
        let base = try Self.lastKnown(db, scope, baseID ?? server.id).map { try opened(db, Post(record: $0, scope: scope)) }
        let theirs = try opened(db, Post(record: server, scope: scope))
        let (mine, waiting) = try mergingUnopened(db, try opened(db, local))
        // Typed without seeing the location there was (one this device could not open).
        let typedUnseen = waiting || base?.locationLocked == true && mine.location != nil
        func fields(_ post: Post) -> PostFields {
            var fields = post.fields
            if post.locationLocked { fields.location = base?.location }
            return fields
        }
        var baseFields = base.map(fields)
        if typedUnseen { baseFields?.location = nil }
        var merged = PostMerge.merge(base: baseFields, mine: .init(fields(mine), by: author(of: mine)),
                                     theirs: .init(fields(theirs), by: author(of: theirs)))
        let cloudSealed = server.encrypted(Post.Key.location)
        if theirs.locationLocked, let cloudSealed {
            // Without a base (a cloud this device rebuilds), a location here may be one the cloud never had.
            let mineChanged = typedUnseen || (base == nil ? mine.location != nil : fields(mine).location != base?.location)
            if !mineChanged {
                merged.fields.location = nil  // unreadable here, and left alone here: the cloud's, as it is
                return (merged, cloudSealed)
            }
            if typedUnseen || cloudSealed != base?.sealedLocation {
                // Changed on both sides, and the cloud's cannot be read here: the typed one waits beside it.
                merged.fields.location = mine.location
                merged.conflicted = ConflictBlock.isConflicted(merged.fields)  // the location is no block (yet)
                try Self.keepUnopened(db, scope, server.id, sealed: cloudSealed)
                return (merged, nil)
            }
        } else if waiting {
            try Self.forgetUnopened(db, scope, server.id)  // the cloud's newest opens, and is in the merge
        }
        return (merged, merged.fields.location == fields(theirs).location ? cloudSealed : nil)
    }

    /// Moves the edit waiting in `local` to where its owner moved the post (`server`, as it is there), merged from
    /// the version it was typed over, and forgets it where it was.
    private func follow(_ db: Database, _ scope: DatabaseScope, _ local: Post, to server: Record) throws {
        var edit = local, base = local.recordID
        if let here = try Self.localPost(db, scope, server.id) {
            // This device already holds the post at its new place (a cloud put back from an older copy, which a
            // rebuild sent the post in both notebooks): the edit merges into that copy first, so what waits in it
            // stays, and the two meet the cloud's record from that copy's last known version.
            edit = try merging(db, scope, local, into: here)
            base = server.id
        }
        let (merged, sealed) = try mergeWaitingEdit(db, scope, local: edit, server: server, base: base)
        var moved = edit
        moved.zone = server.id.zone
        moved.fields = merged.fields
        moved.sealedLocation = sealed
        moved.conflicted = merged.conflicted
        try Self.dropHere(db, scope, local.recordID)
        try Self.upsert(db, moved)
        try Self.markPending(db, scope, zone: moved.zone, name: moved.id, kind: .saveRecord)
    }

    /// `here` with what `local` holds merged in: two copies of one post in two notebooks, from no common version:
    /// whatever either holds stays. The version `local`'s notebook last acknowledged may be one `here` never saw (a
    /// cloud rebuilt from another device: app seeds 97028 and 98836, where the cloud's times did not tell either way),
    /// and taken as their common version it dropped what only `local` held. A conflict may grow the post past the
    /// record limit; then the save is refused whole, saying so (app seed 98304).
    func merging(_ db: Database, _ scope: DatabaseScope, _ local: Post, into here: Post) throws -> Post {
        let (mine, theirs) = (try opened(db, local), try opened(db, here))
        let merged = PostMerge.merge(base: nil, mine: .init(mine.fields, by: author(of: mine)),
                                     theirs: .init(theirs.fields, by: author(of: theirs)))
        var out = theirs
        out.fields = merged.fields
        if mine.locationLocked || theirs.locationLocked {
            out.location = theirs.location  // a location this device cannot open stays as it is there
        } else if merged.fields.location != theirs.location {
            out.sealedLocation = nil
        }
        return out
    }

    /// Moves a comment edit waiting in `local` to where its post's owner moved it (`server`): the author's text
    /// as typed here.
    private func follow(_ db: Database, _ scope: DatabaseScope, _ local: Comment, to server: Record) throws {
        var moved = local
        moved.zone = server.id.zone
        try Self.dropHere(db, scope, RecordID(name: local.id, zone: local.zone))
        try Self.upsert(db, moved)
        try Self.markPending(db, scope, zone: moved.zone, name: moved.id, kind: .saveRecord)
    }

    /// Forgets a post or comment here whole: its row, its last known record, and what waits to be sent of it.
    static func dropHere(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        try deleteRow(db, scope, id)
        try forget(db, scope, id)
        try clearPending(db, scope, zone: id.zone, name: id.name)
    }

    /// After the cloud refused a move's copy because its original was deleted meanwhile: the original is forgotten
    /// and its deletion no longer waits. A copy changed here since the version it moves is brought back (as new:
    /// no word typed here is lost); one unchanged goes, as a deletion fetched from the cloud would take it (the
    /// deleted version stays in the cloud's trash); `keepingCopy`, it is brought back whatever (no trash holds the
    /// deleted version). Returns whether the copy is to be sent again.
    @discardableResult
    private func movedOriginalDeleted(_ db: Database, _ scope: DatabaseScope, _ copy: Record, keepingCopy: Bool = false) throws -> Bool {
        let source = copy.movedFrom!
        let known = try Self.lastKnown(db, scope, source)
        try Self.clearPending(db, scope, [source])
        try Self.forget(db, scope, source)
        let changed: Bool
        if let post = try Self.localPost(db, scope, copy.id) {
            changed = keepingCopy || known.map { !post.fields.sameSynced(as: Post.fields(of: $0)) } ?? true
            if changed { try bringBack(db, scope, copy.id) }
        } else if let comment = try Self.localComment(db, scope, copy.id) {
            changed = keepingCopy || known.map { Comment(record: $0, scope: scope).text != comment.text } ?? true
        } else {
            return false  // gone here too
        }
        if !changed { try Self.dropHere(db, scope, copy.id) }
        return changed
    }

    /// Puts a post or comment the cloud refused back as the cloud has it (gone, if it never had it).
    func restore(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        try Self.clearPending(db, scope, zone: id.zone, name: id.name)
        switch try Self.lastKnown(db, scope, id) {
        case let known? where known.type == Post.recordType:
            try Self.upsert(db, scope, [PostRow(record: known, scope: scope)])
        case let known? where known.type == Comment.recordType:
            try Self.upsert(db, Comment(record: known, scope: scope))
        case let known?:
            try Self.remember(db, scope, known)
        case nil:
            try Self.deleteRow(db, scope, id)
        }
    }

    /// Whether the post or comment still holds what `sent` carried (not edited again since, in another process).
    private func stillHolds(_ db: Database, _ scope: DatabaseScope, _ sent: Record) throws -> Bool {
        if sent.type == Comment.recordType {
            return try Self.localComment(db, scope, sent.id)?.text == Comment(record: sent, scope: scope).text
        }
        return try Self.localPost(db, scope, sent.id)?.fields.sameSynced(as: Post.fields(of: sent)) ?? false
    }

    /// Deletes the post's or comment's row with this ID.
    static func deleteRow(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        for table in ["posts", "comments"] {
            try db.execute(sql: "DELETE FROM \(schema(scope)).\(table) WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                           arguments: [id.zone.name, id.zone.owner, id.name])
        }
    }

    func zonesSent(_ scope: DatabaseScope, _ sent: SentDatabaseChanges) throws {
        let now = self.now()
        try write(scope) { db in
            for zone in sent.savedZones + sent.deletedZones { try Self.clearPending(db, scope, zone: zone, name: "") }
            for zone in sent.deletedZones where scope == .private {
                try db.execute(sql: "INSERT OR REPLACE INTO main.deleted_notebooks(zone_name, zone_owner, deleted_at) VALUES (?, ?, ?)",
                               arguments: [zone.name, zone.owner, now.timeIntervalSince1970])
            }
            for (zone, _) in sent.failedZoneSaves { try Self.clearPending(db, scope, zone: zone, name: "") }
            for (zone, error) in sent.failedZoneDeletes {
                // Refused because it changed since this device saw it: the notebook is back, and its records come with
                // the engine's fetch of it from scratch. (Refused otherwise, its deletion stays waiting here.)
                guard case .zoneChanged = error else { continue }
                try Self.clearPending(db, scope, zone: zone, name: "")
                try Self.noteNotebook(db, scope, zone)
            }
        }
    }

    /// Forgets every row of zones the account no longer reaches; edits of shared posts still waiting to be
    /// sent are kept as posts of this account's own first (returned by their original IDs).
    @discardableResult
    func dropZones(_ scope: DatabaseScope, _ zones: [ZoneID]) throws -> DroppedZones {
        guard !zones.isEmpty else { return DroppedZones() }
        return try write(.private, scope) { db in try dropZones(db, scope, zones) }
    }

    @discardableResult
    func dropZones(_ db: Database, _ scope: DatabaseScope, _ zones: [ZoneID]) throws -> DroppedZones {
        var dropped = DroppedZones(rescued: scope == .shared ? try rescueWaitingEdits(db, inSharedZones: zones) : [])
        for zone in zones {
            if scope == .private {
                // The posts the cloud held there, as this device knows: a rename moved them all to one place. (Those
                // known in the cloud, and those waiting for nothing: a commented post sent again, its record forgotten.)
                let held = try String.fetchAll(db, sql: """
                    SELECT p.id FROM main.posts p WHERE p.zone_name = ?1 AND p.zone_owner = ?2
                    AND (EXISTS (SELECT 1 FROM main.server_records r WHERE r.zone_name = ?1 AND r.zone_owner = ?2 AND r.name = p.id)
                         OR NOT EXISTS (SELECT 1 FROM main.pending q WHERE q.zone_name = ?1 AND q.zone_owner = ?2 AND q.name = p.id))
                    """, arguments: [zone.name, zone.owner])
                let (waiting, wasShared) = try keepWithWaitingEdits(db, zone)
                dropped.broughtBack += waiting
                if wasShared { dropped.unshared.insert(zone) }
                if !waiting.isEmpty {
                    dropped.held[zone] = Set(held)
                    continue
                }
            }
            for table in ["posts", "comments", "server_records", "pending", "notebooks"] {
                try db.execute(sql: "DELETE FROM \(Self.schema(scope)).\(table) WHERE zone_name = ? AND zone_owner = ?",
                               arguments: [zone.name, zone.owner])
            }
        }
        return dropped
    }

    /// A notebook of this account deleted elsewhere while posts or comments here wait to be sent comes back
    /// with them, as new (their words are not lost); what waits for nothing goes. Returns what waits in it (none:
    /// it goes).
    private func keepWithWaitingEdits(_ db: Database, _ zone: ZoneID) throws -> (waiting: [RecordID], wasShared: Bool) {
        let arguments: StatementArguments = [zone.name, zone.owner, PendingKind.saveRecord.rawValue]
        let waiting = try String.fetchAll(db, sql: "SELECT name FROM main.pending WHERE zone_name = ? AND zone_owner = ? AND kind = ? ORDER BY name",
                                          arguments: arguments).map { RecordID(name: $0, zone: zone) }
        guard !waiting.isEmpty else { return ([], false) }
        for post in try waiting.compactMap({ try commentedPost($0, db) }) {
            try Self.markPending(db, .private, zone: post.zone, name: post.name, kind: .saveRecord)
        }
        for table in ["posts", "comments"] {
            try db.execute(sql: """
                DELETE FROM main.\(table) WHERE zone_name = ?1 AND zone_owner = ?2 AND NOT EXISTS (SELECT 1 FROM main.pending q
                    WHERE q.zone_name = ?1 AND q.zone_owner = ?2 AND q.name = \(table).id AND q.kind = ?3)
                """, arguments: arguments)
        }
        let wasShared = try Self.heldShares(db, zone)
        try forgetCloudCopy(db, zone)
        try Self.markPending(db, .private, zone: zone, name: "", kind: .saveZone)
        return (waiting, wasShared)
    }

    /// Whether this device knew the notebook shared, whole or by any of its posts (from the share records it holds).
    static func heldShares(_ db: Database, _ zone: ZoneID) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS(SELECT 1 FROM main.server_records WHERE zone_name = ? AND zone_owner = ? AND (name = ? OR name LIKE 'share-%'))
            """, arguments: [zone.name, zone.owner, Share.zoneWideRecordName]) == true
    }

    /// A notebook of this account's the cloud no longer holds, to be made again: what this device knew of its records
    /// is forgotten, its key records too (sealed with a key whose record went with it, a location would open on no
    /// other device), and its locations are opened while the key is known, to be sealed again with a new one.
    private func forgetCloudCopy(_ db: Database, _ zone: ZoneID) throws {
        try openLocations(db, .private, where: "zone_name = ? AND zone_owner = ?", arguments: [zone.name, zone.owner])
        try db.execute(sql: "DELETE FROM main.server_records WHERE zone_name = ? AND zone_owner = ?", arguments: [zone.name, zone.owner])
        try db.execute(sql: "UPDATE main.posts SET change_tag = NULL WHERE zone_name = ? AND zone_owner = ?", arguments: [zone.name, zone.owner])
    }

    /// The post a comment waiting here is on, when this device holds it and nothing of its own waits: in a notebook the
    /// cloud no longer holds, it comes back with the comment (a comment with no post shows nowhere).
    private func commentedPost(_ id: RecordID, _ db: Database) throws -> RecordID? {
        guard let comment = try Self.localComment(db, .private, id) else { return nil }
        let post = RecordID(name: comment.postID, zone: id.zone)
        guard try Self.localPost(db, .private, post) != nil, try Self.pendingKinds(db, .private, [post])[post] == nil else { return nil }
        return post
    }

    /// A post the cloud deleted comes back with the edit waiting here: its location opened while its key is
    /// known, what the device knew of its record forgotten, so it goes out as new.
    private func bringBack(_ db: Database, _ scope: DatabaseScope, _ id: RecordID) throws {
        try openLocations(db, scope, where: "zone_name = ? AND zone_owner = ? AND id = ?", arguments: [id.zone.name, id.zone.owner, id.name])
        try Self.forget(db, scope, id)
    }

    /// After a from-scratch fetch: records that did not arrive (and wait for nothing) are gone: posts and
    /// comments, and the shares and key records kept beside them (a share that ended while its deletion went
    /// unheard would otherwise be granted keys here for good), key records retired first.
    func prune(_ scope: DatabaseScope, zone: ZoneID, keeping arrived: Set<String>) throws {
        try write(scope) { db in
            let schema = Self.schema(scope)
            let names = try String.fetchAll(db, sql: """
                SELECT id FROM (SELECT id, zone_name, zone_owner FROM \(schema).posts
                                UNION ALL SELECT id, zone_name, zone_owner FROM \(schema).comments
                                UNION ALL SELECT name, zone_name, zone_owner FROM \(schema).server_records) p
                WHERE zone_name = ? AND zone_owner = ?
                AND NOT EXISTS (SELECT 1 FROM \(schema).pending q
                                WHERE q.zone_name = p.zone_name AND q.zone_owner = p.zone_owner AND q.name = p.id)
                """, arguments: [zone.name, zone.owner])
            let gone = Set(names).subtracting(arrived).sorted().map { RecordID(name: $0, zone: zone) }
            try Self.retireKeysWrittenOver(db, scope, by: [], deleted: gone)
            for id in gone {
                for table in ["posts", "comments"] {
                    try db.execute(sql: "DELETE FROM \(Self.schema(scope)).\(table) WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                                   arguments: [zone.name, zone.owner, id.name])
                }
                try Self.forget(db, scope, id)
            }
        }
    }

    /// A new account on this device: the previous one's data is no longer shown.
    func reset() throws {
        try write(.private, .shared) { db in
            for schema in ["main", "shared"] {
                for table in ["posts", "comments", "server_records", "pending", "notebooks", "sync_state", "retired_keys", "unopened_locations", "moves"] {
                    try db.execute(sql: "DELETE FROM \(schema).\(table)")
                }
            }
        }
    }
}

extension PostFields {
    /// Equal in what travels to the cloud (the location stays on the device for now).
    func sameSynced(as other: PostFields) -> Bool {
        title == other.title && content == other.content && tags == other.tags
    }
}

/// What dropping notebooks gone from the cloud did with what waited in them.
struct DroppedZones {
    /// Waiting edits of shared notebooks, kept as posts of this account's own.
    var rescued: [RecordID] = []
    /// Changes waiting in notebooks of this account's, which are brought back for them.
    var broughtBack: [RecordID] = []
    /// The posts of those notebooks the cloud held, as this device knew: found together in another notebook after the
    /// fetch, they say the notebook was renamed (`DeviceStore.followRename`).
    var held: [ZoneID: Set<String>] = [:]
    /// Those of them that were shared: they come back shared with nobody.
    var unshared: Set<ZoneID> = []
}
