import Foundation

/// What one caller may do in one zone, worked out once per request.
///
/// The owner and the public database follow their own rules; a participant
/// reaches a zone through the shares they accepted: a zone-wide share covers
/// every record, a hierarchical share its root and every record whose parent
/// chain reaches that root.
struct ZoneAccess {
    enum Grant {
        case owner
        case publicDatabase
        case zoneWide(ShareRow, ParticipantRow)
        case hierarchies([(share: ShareRow, participant: ParticipantRow)])
    }

    let zone: ZoneRow
    /// The zone ID as the caller names it.
    let zoneID: ZoneID
    /// The owning account's user record ID; empty for the public database.
    let ownerID: String
    let callerID: String
    let grant: Grant

    var isOwner: Bool { if case .owner = grant { true } else { false } }

    /// The caller's grant on the share with this record name, if they have one.
    func grant(forShareNamed name: String) -> (share: ShareRow, participant: ParticipantRow)? {
        switch grant {
        case .zoneWide(let share, let participant): share.name == name ? (share, participant) : nil
        case .hierarchies(let grants): grants.first { $0.share.name == name }
        case .owner, .publicDatabase: nil
        }
    }

    /// The grant covering a record whose ancestry (itself first) is `chain`.
    private func covering(_ chain: [String], in grants: [(share: ShareRow, participant: ParticipantRow)])
        -> (share: ShareRow, participant: ParticipantRow)? {
        for name in chain {
            if let grant = grants.first(where: { $0.share.root == name }) { return grant }
        }
        return nil
    }

    /// Whether the caller sees the record (or share record) with this name.
    func canRead(_ db: any SQLTransaction, name: String) throws -> Bool {
        guard case .hierarchies(let grants) = grant else { return true }
        if grants.contains(where: { $0.share.name == name }) { return true }
        return covering(try RecordTable.chain(db, zone: zone.id, from: name), in: grants) != nil
    }

    /// Whether the caller could read record `name` when its parent was `parent` (a version of it): a hierarchical
    /// participant only where that parent's chain (as it stands) reached a root of theirs, or the record is one.
    func couldRead(_ db: any SQLTransaction, name: String, parent: String?) throws -> Bool {
        guard case .hierarchies(let grants) = grant else { return true }
        if grants.contains(where: { $0.share.name == name || $0.share.root == name }) { return true }
        guard let parent else { return false }
        return covering([name] + (try RecordTable.chain(db, zone: zone.id, from: parent)), in: grants) != nil
    }

    /// When the caller joined the share through which they read the record `name` (its earliest grant, if
    /// several cover it): what the cloud kept from before, they never saw, and its history does not show them.
    /// Nil where no limit holds (the owner, the public database, participants from before the cloud kept it).
    func joined(_ db: any SQLTransaction, name: String) throws -> Int64? {
        switch grant {
        case .owner, .publicDatabase: return nil
        case .zoneWide(_, let participant): return participant.joinedSeq
        case .hierarchies(let grants):
            let chain = try RecordTable.chain(db, zone: zone.id, from: name)
            let covering = grants.filter { grant in grant.share.name == name || chain.contains { $0 == grant.share.root } }
            return covering.map { $0.participant.joinedSeq ?? 0 }.min()
        }
    }

    /// The names a hierarchical participant sees, tombstones included; nil means everything.
    func visibleNames(_ db: any SQLTransaction) throws -> Set<String>? {
        guard case .hierarchies(let grants) = grant else { return nil }
        let roots = grants.compactMap(\.share.root)
        return try RecordTable.descendants(db, zone: zone.id, of: roots).union(grants.map(\.share.name))
    }

    /// Refuses a save the caller may not make.
    ///
    /// - Parameters:
    ///   - parent: the record's parent after the save.
    ///   - existing: the record's row before the save; nil when new.
    func checkSave(_ db: any SQLTransaction, name: String, parent: String?, existing: StoredRecord?) throws {
        switch grant {
        case .owner:
            return
        case .publicDatabase:
            if let existing, existing.createdBy != callerID {
                throw CloudError.permissionFailure("only its creator changes a record in the public database")
            }
            // As CloudKit's user records: the public record named by a user record ID is that account's
            // alone, so nobody can write (squat) it before the account first does, nor while a cloud that
            // lost the account waits for it to come back.
            if name != callerID, Account.isUserRecordID(name) {
                throw CloudError.permissionFailure("record \(name) is another account's user record")
            }
        case .zoneWide(_, let participant):
            try requireWritable(db, participant)
        case .hierarchies(let grants):
            let isNew = existing?.isDeleted != false
            // Where the record sits now (if it exists) and where it will sit: both must be shared, writably.
            var chains: [(chain: [String], refusal: String)] = []
            if !isNew {
                chains.append((try RecordTable.chain(db, zone: zone.id, from: name), "record \(name) is outside what is shared with you"))
            }
            chains.append(([name] + (try parent.map { try RecordTable.chain(db, zone: zone.id, from: $0) } ?? []),
                           isNew ? "a new record must sit inside the shared hierarchy"
                                 : "record \(name) cannot move outside what is shared with you"))
            for (chain, refusal) in chains {
                guard let covering = covering(chain, in: grants) else { throw CloudError.permissionFailure(refusal) }
                try requireWritable(db, covering.participant)
            }
            // The root of a share would carry the whole hierarchy with it: only the owner moves it.
            if !isNew, existing?.parent != parent, grants.contains(where: { $0.share.root == name }) {
                throw CloudError.permissionFailure("only the owner moves the root of a share")
            }
        }
    }

    /// Refuses a reference a hierarchical participant adds (one `previous`
    /// did not hold) to a record outside what they may write: a delete-self
    /// reference would let an owner's private deletion reach shared records,
    /// and any reference would tell whether a private name exists. A name
    /// that does not exist is refused alike.
    func checkReferences(_ db: any SQLTransaction, in record: Record, previous: Record?) throws {
        guard case .hierarchies(let grants) = grant else { return }
        for target in record.referencedNames.subtracting(previous?.referencedNames ?? []).sorted() {
            guard let covering = covering(try RecordTable.chain(db, zone: zone.id, from: target), in: grants) else {
                throw CloudError.permissionFailure("a reference must point inside what is shared with you")
            }
            try requireWritable(db, covering.participant)
        }
    }

    /// Refuses a deletion the caller may not make.
    func checkDelete(_ db: any SQLTransaction, _ existing: StoredRecord) throws {
        if case .owner = grant { return }
        if try ShareTable.rooted(db, zone: zone.id, at: existing.name) != nil {
            throw CloudError.permissionFailure("only the owner deletes the root of a share")
        }
        try checkSave(db, name: existing.name, parent: existing.record?.parent, existing: existing)
    }

    /// Whether a deletion may take this record with it (a delete-self
    /// reference): only what the caller could delete by name, and never a
    /// share's root, which ends only when deleted by name, by its owner.
    func mayCascade(_ db: any SQLTransaction, to name: String) throws -> Bool {
        guard try ShareTable.rooted(db, zone: zone.id, at: name) == nil,
              let stored = try RecordTable.find(db, zone: zone.id, name: name, zoneID: zoneID), !stored.isDeleted,
              try canRead(db, name: name) else { return false }
        do {
            try checkDelete(db, stored)
            return true
        } catch is CloudError {
            return false
        }
    }

    private func requireWritable(_ db: any SQLTransaction, _ participant: ParticipantRow) throws {
        guard participant.permission == .readWrite else {
            let owner = try LocalCloud.fetchAccount(db, column: "id", value: ownerID)?.name ?? "its owner"
            throw CloudError.permissionFailure("read-only: shared by \(owner)")
        }
    }
}

extension Request {
    /// Tells the zone's owner and every account that sees it that it changed.
    mutating func notify(_ access: ZoneAccess) throws {
        if access.ownerID.isEmpty {
            topics.insert(.publicDatabase)
            return
        }
        topics.insert(.database(.private, of: access.ownerID))
        // A zone read without a live share has no audience: the writers' lock is spared a round trip.
        guard access.zone.hasLiveShares != false else { return }
        for account in try ShareTable.audience(db, zone: access.zone.id) {
            topics.insert(.database(.shared, of: account))
        }
    }
}
