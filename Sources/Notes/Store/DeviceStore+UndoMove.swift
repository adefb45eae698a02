import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Sync

/// Moves this device undid before they went out: the posts put back where they were, the changes no longer to
/// send, and those to send now (for the sync engine's pending state, which the store's table feeds).
public struct UndoneMoves: Sendable {
    public var back: [Post] = []
    public var dropped: [PendingRecordZoneChange] = []
    public var added: [PendingRecordZoneChange] = []

    public var isEmpty: Bool { back.isEmpty && dropped.isEmpty && added.isEmpty }

    mutating func append(_ other: UndoneMoves) {
        back += other.back
        dropped += other.dropped
        added += other.added
    }
}

extension DeviceStore {
    /// Moves this device made, not sent yet, of posts its account shared meanwhile on another device (`roots`, the
    /// shares' root posts): moved, the share would end, so each post goes back where it was, its comments with
    /// it, keeping what was typed into them since.
    func undoMoves(ofSharedRoots roots: [RecordID]) throws -> UndoneMoves {
        guard !roots.isEmpty else { return UndoneMoves() }
        return try write(.private) { db in
            var undone = UndoneMoves()
            let waiting = try Self.pendingKinds(db, .private, roots)
            for root in roots where waiting[root] == .deleteRecord {
                guard let copy = try Self.movingCopy(db, of: root) else { continue }
                undone.append(try undoMove(db, root, copy: copy, server: nil))
            }
            return undone
        }
    }

    /// Merges a newer version of a post this device is moving (`original`, fetched, or told by the cloud refusing
    /// the move) into the copy it moves, from the version the copy was made from; the copy's save stays waiting.
    /// Where that version's location cannot be opened here (sealed with a key this device lacks), it cannot go with
    /// the copy: sealed for the old notebook, no key opens it in the new one, and what was typed there would be lost
    /// (app seed 100048). The move is undone instead, and returned.
    func mergeIntoMovingCopy(_ db: Database, _ copy: Post, _ original: Record) throws -> UndoneMoves? {
        if try opened(db, Post(record: original, scope: .private)).locationLocked {
            return try undoMove(db, original.id, copy: copy, server: original)
        }
        let (merged, _) = try mergeWaitingEdit(db, .private, local: copy, server: original)
        var moving = copy
        moving.fields = merged.fields
        moving.sealedLocation = nil  // sealed again with the new notebook's key when sent
        moving.conflicted = merged.conflicted
        try Self.upsert(db, moving)
        return nil
    }

    /// Puts back where it was a post this device is moving (`root`, moved to `copy`), before the move went out: as
    /// the cloud holds it there (`server`, or as last known), with what was typed into the copy since merged in; its
    /// comments go back with it.
    private func undoMove(_ db: Database, _ root: RecordID, copy: Post, server: Record?) throws -> UndoneMoves {
        var undone = UndoneMoves()
        let comments = try Self.comments(db, on: copy)
        if let server = try server ?? Self.lastKnown(db, .private, root) {
            // Merged from the version the copy was made from (still the last known), before the cloud's is remembered.
            let (merged, sealed) = try mergeWaitingEdit(db, .private, local: copy, server: server)
            try Self.remember(db, .private, server)
            try restore(db, .private, root)  // as the cloud has it, then what was typed since
            if var post = try Self.localPost(db, .private, root),
               !merged.fields.sameSynced(as: Post.fields(of: server)) || sealed != server.encrypted(Post.Key.location) {
                (post.fields, post.sealedLocation, post.conflicted) = (merged.fields, sealed, merged.conflicted)
                try Self.upsert(db, post)
                try Self.markPending(db, .private, zone: root.zone, name: root.name, kind: .saveRecord)
                undone.added.append(.saveRecord(root))
            }
        } else {
            // Never acknowledged where it was: it goes back there as it is, to be sent as new.
            var back = copy
            back.zone = root.zone
            if back.location != nil { back.sealedLocation = nil }
            try Self.upsert(db, back)
            try Self.markPending(db, .private, zone: root.zone, name: root.name, kind: .saveRecord)
            undone.added.append(.saveRecord(root))
        }
        for comment in comments {
            let original = RecordID(name: comment.id, zone: root.zone), moved = RecordID(name: comment.id, zone: copy.zone)
            if try Self.pendingKinds(db, .private, [moved])[moved] != .saveRecord {
                // Its move went out already (its post's waited, changed since): it moves back the same way.
                var home = comment
                home.zone = root.zone
                try Self.upsert(db, home)
                try db.execute(sql: "DELETE FROM main.comments WHERE zone_name = ? AND zone_owner = ? AND id = ?",
                               arguments: [moved.zone.name, moved.zone.owner, moved.name])
                try Self.forget(db, .private, original)  // a copy of the one there now, not a save of the tombstone
                try Self.markPending(db, .private, zone: root.zone, name: comment.id, kind: .saveRecord)
                try Self.markPending(db, .private, zone: moved.zone, name: moved.name, kind: .deleteRecord)
                undone.added += [.saveRecord(original), .deleteRecord(moved)]
                continue
            }
            try restore(db, .private, original)
            if var there = try Self.localComment(db, .private, original), there.text != comment.text {
                there.text = comment.text
                try Self.upsert(db, there)
                try Self.markPending(db, .private, zone: root.zone, name: comment.id, kind: .saveRecord)
                undone.added.append(.saveRecord(original))
            }
            try Self.dropHere(db, .private, moved)
            undone.dropped += [.saveRecord(moved), .deleteRecord(original)]
        }
        try Self.dropHere(db, .private, copy.recordID)
        try db.execute(sql: "DELETE FROM main.moves WHERE name = ?", arguments: [root.name])
        undone.dropped += [.saveRecord(copy.recordID), .deleteRecord(root)]
        if let post = try Self.localPost(db, .private, root) { undone.back.append(post) }
        return undone
    }
}
