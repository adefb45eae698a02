import Foundation

/// Reads and writes shares inside a request. A share's participants live in
/// their own rows (the cloud's access checks read those); its settings and a
/// copy of its participants live in its record, so participants' devices
/// receive the share with their zone changes like any other record.
enum ShareStore {
    /// The share as stored now.
    static func load(_ db: any SQLTransaction, _ row: ShareRow, zoneID: ZoneID) throws -> Share {
        let record = try RecordTable.find(db, zone: row.zone, name: row.name, zoneID: zoneID)?.record
        // (A record that does not read costs only its title and type: access comes from the share's rows.)
        let saved = record.flatMap { try? Share(record: $0) }
        return try view(db, row, zoneID: zoneID, title: saved?.title ?? "", type: saved?.type, changeTag: record?.changeTag)
    }

    /// The share built from its rows, with the given settings.
    static func view(_ db: any SQLTransaction, _ row: ShareRow, zoneID: ZoneID, title: String, type: String?, changeTag: String?) throws -> Share {
        var share = row.root.map { Share(rootRecord: RecordID(name: $0, zone: zoneID), title: title, type: type) }
            ?? Share(zoneWide: zoneID, title: title, type: type)
        share.id = RecordID(name: row.name, zone: zoneID)
        share.publicPermission = row.publicPermission
        share.changeTag = changeTag
        share.participants = try ShareTable.participants(db, share: row.id).map { p in
            let account = try p.account.flatMap { try LocalCloud.fetchAccount(db, column: "id", value: $0) }
            return ShareParticipant(userRecordID: p.account, name: account?.name, email: account?.email,
                                    role: p.role, permission: p.permission, status: p.status, oneTimeID: p.oneTimeID)
        }
        return share
    }

    /// Stores `share`'s participants and settings over the stored ones, then
    /// its record; everyone whose part changed hears of it.
    static func store(_ share: Share, row: ShareRow, access: ZoneAccess, actor: String, _ request: inout Request) throws -> Share {
        let db = request.db
        let seq = request.nextSequence()
        let rows = try ShareTable.participants(db, share: row.id)
        for participant in share.participants where participant.role != .owner {
            let key = ShareRules.key(participant)
            if var existing = rows.first(where: { key == ($0.account ?? $0.oneTimeID.map { "one-time:" + $0 }) }) {
                guard existing.role != participant.role || existing.permission != participant.permission
                    || existing.status != participant.status else { continue }
                existing.role = participant.role
                existing.permission = participant.permission
                existing.status = participant.status
                try ShareTable.update(db, existing, seq: seq, by: actor)
                if let account = existing.account { request.topics.insert(.database(.shared, of: account)) }
            } else {
                guard let id = participant.userRecordID, try LocalCloud.fetchAccount(db, column: "id", value: id) != nil else {
                    throw CloudError.participantNeedsVerification(participant.email ?? participant.displayName)
                }
                guard id != access.ownerID else { continue }
                try ShareTable.insertParticipant(db, share: row.id, account: id, role: participant.role,
                                                 permission: participant.permission, status: participant.status, seq: seq)
                request.topics.insert(.database(.shared, of: id))  // an invitation in their inbox: their devices look
            }
        }
        if share.publicPermission != row.publicPermission {
            try ShareTable.setPublicPermission(db, share: row.id, share.publicPermission)
        }
        return try writeRecord(title: share.title, type: share.type, row: row, access: access, actor: actor, &request)
    }

    /// Rewrites the share's record from its rows, with a new change tag.
    static func writeRecord(title: String, type: String?, row: ShareRow, access: ZoneAccess, actor: String,
                            _ request: inout Request) throws -> Share {
        let db = request.db
        let fresh = try db.first("SELECT * FROM shares WHERE id = ?", [row.id]) { ShareRow($0) }!
        let existing = try RecordTable.find(db, zone: row.zone, name: row.name, zoneID: access.zoneID)?.record
        let seq = request.nextSequence()
        let system = SystemFields(
            changeTag: String(seq, radix: 36),
            createdAt: existing?.system?.createdAt ?? request.now, createdBy: existing?.system?.createdBy ?? actor,
            modifiedAt: request.now, modifiedBy: actor)
        var share = try view(db, fresh, zoneID: access.zoneID, title: title, type: type, changeTag: system.changeTag)
        let record = share.record().stamped(system)
        try RecordTable.write(db, zone: row.zone, record: record, body: RecordArchive.encodeBody(record), seq: seq,
                              replacing: existing != nil)
        try ZoneTable.touch(db, zone: row.zone, seq: seq)
        try request.notify(access)
        share.changeTag = system.changeTag
        return share
    }

    /// Ends a share: its participants lose it, its record becomes a tombstone.
    static func end(_ row: ShareRow, access: ZoneAccess, actor: String, _ request: inout Request) throws {
        let db = request.db
        try request.notify(access)  // the audience before it ends
        for participant in try ShareTable.participants(db, share: row.id) {
            if let account = participant.account { request.topics.insert(.database(.shared, of: account)) }
        }
        try ShareTable.delete(db, share: row.id, seq: request.nextSequence())
        // Records that reference the share record stay: ending a share (a participant leaving, too) deletes nothing else.
        _ = try RecordTable.delete(db, zone: row.zone, name: row.name, by: actor, now: request.now,
                                   mayCascade: { _ in false }, beforeTombstone: { _ in }) { request.nextSequence() }
        try ZoneTable.touch(db, zone: row.zone, seq: request.sequence)
    }
}

