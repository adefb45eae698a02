import Cloud
import Foundation
import GRDB

extension DeviceStore {
    static let rescuedNote = "it is no longer shared with you; your edit is kept as a post of your own"
    /// Told of an edit refused as of a record the cloud does not have: its owner deleted it, or it left what is shared.
    static let deletedOrUnsharedNote = "it was deleted, or is no longer shared with you; your edit is kept as a post of your own"
    /// Told of what a shared notebook that went away took with it, post or comment.
    static let keptNote = "it is no longer shared with you; what you wrote is kept as a post of your own"
    /// Told of each change that brought back a notebook of this account's the cloud no longer holds.
    /// `wasShared`: it was shared (whole, or posts of it), and is back shared with nobody.
    static func notebookBackNote(_ zone: ZoneID, wasShared: Bool = false) -> String {
        "notebook \(zone.name) is no longer in the cloud (deleted on another device, or lost by the cloud) while this change waited "
            + "here: the notebook is back, with what waited in it; delete the notebook again to delete them"
            + (wasShared ? "; it is shared with nobody now: share it again to let others back in" : "")
    }
    /// Told of a comment that could not go where it was written because its post is gone.
    static let keptCommentNote = "its post was deleted, or is no longer shared with you; your comment is kept as a post of your own"

    /// Before a shared zone's rows go (its share ended, or the cloud lost it), posts there with an edit
    /// still waiting to be sent, and comments not sent yet, are kept as posts of this account's own, in its
    /// Notes notebook, so the words typed into them survive. Returns the rescued records' original IDs.
    func rescueWaitingEdits(_ db: Database, inSharedZones zones: [ZoneID]) throws -> [RecordID] {
        func waiting(in table: String) throws -> [RecordID] {
            try zones.flatMap { zone in
                try String.fetchAll(db, sql: """
                    SELECT p.id FROM shared.\(table) p JOIN shared.pending q
                    ON q.zone_name = p.zone_name AND q.zone_owner = p.zone_owner AND q.name = p.id AND q.kind = ?
                    WHERE p.zone_name = ? AND p.zone_owner = ?
                    """, arguments: [PendingKind.saveRecord.rawValue, zone.name, zone.owner]).map { RecordID(name: $0, zone: zone) }
            }
        }
        return try rescue(db, try waiting(in: "posts")) + rescueComments(db, try waiting(in: "comments"))
    }

    /// Keeps comments that can no longer go where they were written (read-only now, no longer shared, the post
    /// gone) as posts of this account's own, one each, titled after the post they were on, so the words typed
    /// survive. Returns the IDs of those it kept.
    func rescueComments(_ db: Database, _ ids: [RecordID], from scope: DatabaseScope = .shared) throws -> [RecordID] {
        guard !ids.isEmpty, let home = try notesNotebook(db) else { return [] }
        let now = now()
        var rescued: [RecordID] = []
        for id in ids.sorted(by: { $0.description < $1.description }) {
            guard let comment = try Self.localComment(db, scope, id) else { continue }
            let on = try Self.localPost(db, scope, RecordID(name: comment.postID, zone: id.zone))?.title
            var name = "r" + id.name
            var n = 1
            while try Self.localPost(db, .private, RecordID(name: name, zone: home)) != nil {
                n += 1
                name = "r\(id.name)-\(n)"
            }
            var copy = Post(id: name, zone: home, scope: .private, title: "Comment on \"\(on ?? "a post")\"",
                            content: comment.text + "\n(kept here: it could not be sent to \(names(id.zone.owner))'s post)")
            (copy.modifiedAt, copy.modifiedBy) = (now, comment.createdBy)
            (copy.createdAt, copy.createdBy) = (now, comment.createdBy)
            try Self.upsert(db, copy)
            try Self.markPending(db, .private, zone: home, name: copy.id, kind: .saveRecord)
            rescued.append(id)
        }
        return rescued
    }

    /// The account's Notes notebook, made again (to be created in the cloud) if it is gone; nil without a keyring,
    /// which is what tells this store whose it is.
    private func notesNotebook(_ db: Database) throws -> ZoneID? {
        if let notes = try Row.fetchOne(db, sql: "SELECT zone_name, zone_owner FROM main.notebooks WHERE title = 'Notes'") {
            return ZoneID(name: notes["zone_name"], owner: notes["zone_owner"])
        }
        guard let owner = keyring?.account.id else { return nil }
        let zone = ZoneID(name: "Notes", owner: owner)
        try db.execute(sql: "INSERT OR IGNORE INTO main.notebooks(zone_name, zone_owner, title) VALUES (?, ?, 'Notes')",
                       arguments: [zone.name, zone.owner])
        try Self.markPending(db, .private, zone: zone, name: "", kind: .saveZone)
        return zone
    }

    /// Keeps shared posts as posts of this account's own; returns the IDs of those it kept.
    func rescue(_ db: Database, _ ids: [RecordID], deleted: Bool = false) throws -> [RecordID] {
        guard !ids.isEmpty, let home = try notesNotebook(db) else { return [] }
        let now = now()  // (this device's clock, injected where a run must replay)
        var rescued: [RecordID] = []
        for zone in Set(ids.map(\.zone)).sorted(by: { $0.description < $1.description }) {
            for (id, post) in try Self.localPosts(db, .shared, ids.filter { $0.zone == zone }).sorted(by: { $0.key.name < $1.key.name }) {
                // A copy kept before (the share ended once already) keeps what was typed into it since: a new one beside it.
                var name = "r" + id.name
                var n = 1
                while try Self.localPost(db, .private, RecordID(name: name, zone: home)) != nil {
                    n += 1
                    name = "r\(id.name)-\(n)"
                }
                var copy = Post(id: name, zone: home, scope: .private, title: post.title,
                                content: post.content + "\n(kept here: " + (deleted ? "deleted, or no longer shared with you, by" : "no longer shared with you by")
                                    + " \(names(zone.owner)))",
                                tags: post.tags, location: try opened(db, post).location)
                (copy.modifiedAt, copy.modifiedBy, copy.modifiedOn) = (now, post.modifiedBy, post.modifiedOn)
                (copy.createdAt, copy.createdBy) = (now, post.modifiedBy)
                try Self.upsert(db, copy)
                try Self.markPending(db, .private, zone: home, name: copy.id, kind: .saveRecord)
                rescued.append(id)
            }
        }
        return rescued
    }
}
