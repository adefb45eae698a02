import Foundation

extension LocalCloud {
    /// Where a link leads: a share, and the one-time invitation if it is one.
    struct Invitation {
        let share: ShareRow
        let access: ZoneAccess
        let slot: ParticipantRow?
    }

    /// The caller's part in a share: as it is, or as it would be on accepting.
    struct Standing {
        let role: ShareRole
        let permission: SharePermission
        let status: AcceptanceStatus
    }

    /// What the holder of `url` learns before accepting: title, owner, what
    /// is shared and their own part. A caller who may not join learns nothing
    /// but that (*not invited*).
    public func fetchShareMetadata(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata {
        try performRead { db in
            let invitation = try resolve(db, url)
            return try metadata(db, invitation, standing: try standing(db, invitation, caller: caller))
        }
    }

    /// Accepts the share behind `url`: its zone appears in the caller's shared database.
    ///
    /// Invited participants accept their invitation; anyone may join a share
    /// with a public permission, as a public user; a one-time link admits the
    /// first account that uses it, and nobody after.
    @discardableResult
    public func acceptShare(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata {
        try perform { request in
            try accept(try resolve(request.db, url), as: caller, &request)
            let now = try resolve(request.db, url)  // the one-time slot may have just been claimed
            return try metadata(request.db, now, standing: try self.standing(request.db, now, caller: caller))
        }
    }

    /// Makes the caller a participant as their standing allows (nothing for the owner or one already in), and
    /// saves the share's record again so its owner's devices hear of it.
    func accept(_ invitation: Invitation, as caller: Account, _ request: inout Request) throws {
        let standing = try standing(request.db, invitation, caller: caller)
        guard standing.role != .owner && standing.status != .accepted else { return }
        try join(invitation, standing: standing, caller: caller, &request)
        request.topics.insert(.database(.shared, of: caller.id))
        let current = try ShareStore.load(request.db, invitation.share, zoneID: invitation.access.zoneID)
        _ = try ShareStore.writeRecord(title: current.title, type: current.type, row: invitation.share,
                                       access: invitation.access, actor: caller.id, &request)
    }

    /// Asks the owner of a private share to let the caller in.
    public func requestAccess(_ url: ShareURL, as caller: Account) throws(CloudError) {
        try perform { request in
            let invitation = try resolve(request.db, url)
            guard invitation.slot == nil else {
                throw CloudError.invalidArguments("a one-time link admits its holder directly: accept it")
            }
            let share = invitation.share
            if invitation.access.ownerID == caller.id {
                throw CloudError.invalidArguments("you own this share")
            }
            if let participant = try ShareTable.participant(request.db, share: share.id, account: caller.id),
               participant.status != .removed {
                throw CloudError.invalidArguments("you already take part in this share: accept it")
            }
            guard try ShareTable.accessRequestStatus(request.db, share: share.id, account: caller.id) != .blocked else {
                throw CloudError.participantNotInvited("you may not join this share")
            }
            guard share.publicPermission == .none else {
                throw CloudError.invalidArguments("anyone with this link may join: accept it")
            }
            try ShareTable.setAccessRequest(request.db, share: share.id, account: caller.id, status: .pending, now: request.now)
            request.topics.insert(.database(.private, of: invitation.access.ownerID))
        }
    }

    // MARK: Resolving links

    func resolve(_ db: any SQLTransaction, _ url: ShareURL) throws -> Invitation {
        guard url.container == container else { throw CloudError.unknownShare }
        let hash = url.tokenHash
        var slot: ParticipantRow?
        var share = try ShareTable.find(db, tokenHash: hash)
        if share == nil, let oneTime = try ShareTable.participant(db, oneTimeHash: hash) {
            slot = oneTime
            share = try ShareTable.find(db, id: oneTime.share)
        }
        guard let share else { throw CloudError.unknownShare }
        return try invitation(db, share, slot: slot)
    }

    /// A share as an invitation to it, with its owner's access to its zone (for writing its record).
    func invitation(_ db: any SQLTransaction, _ share: ShareRow, slot: ParticipantRow? = nil) throws -> Invitation {
        guard let zone = try ZoneTable.find(db, id: share.zone), zone.isLive,
              let owner = try db.string("SELECT owner FROM databases WHERE id = ?", [zone.database])
        else { throw CloudError.unknownShare }
        let access = ZoneAccess(zone: zone, zoneID: ZoneID(name: zone.name, owner: owner), ownerID: owner,
                                callerID: owner, grant: .owner)
        return Invitation(share: share, access: access, slot: slot)
    }

    func standing(_ db: any SQLTransaction, _ invitation: Invitation, caller: Account) throws -> Standing {
        let share = invitation.share
        if invitation.access.ownerID == caller.id { return Standing(role: .owner, permission: .readWrite, status: .accepted) }
        if let slot = invitation.slot, slot.account != caller.id {
            guard slot.account == nil, slot.status == .pending else {
                throw CloudError.participantNotInvited("this one-time link was already used")
            }
            return Standing(role: slot.role, permission: slot.permission, status: .pending)
        }
        if let p = try ShareTable.participant(db, share: share.id, account: caller.id), p.status != .removed {
            return Standing(role: p.role, permission: p.permission, status: p.status)
        }
        let blocked = try ShareTable.accessRequestStatus(db, share: share.id, account: caller.id) == .blocked
        guard share.publicPermission != .none, !blocked else {
            throw CloudError.participantNotInvited(blocked
                ? "you may not join this share"
                : "you are not invited to this share; ask its owner, or request access")
        }
        return Standing(role: .publicUser, permission: share.publicPermission, status: .unknown)
    }

    func metadata(_ db: any SQLTransaction, _ invitation: Invitation, standing: Standing) throws -> ShareMetadata {
        let zoneID = invitation.access.zoneID
        let share = try ShareStore.load(db, invitation.share, zoneID: zoneID)
        let owner = try Self.fetchAccount(db, column: "id", value: invitation.access.ownerID)
        return ShareMetadata(
            share: share.id, title: share.title, type: share.type, ownerName: owner?.name ?? "",
            ownerEmail: owner?.email ?? "", rootRecord: share.rootRecord.map { RecordID(name: $0, zone: zoneID) },
            zone: zoneID, publicPermission: share.publicPermission,
            role: standing.role, permission: standing.permission, status: standing.status)
    }

    /// Makes the caller an accepted participant, as their standing allows.
    private func join(_ invitation: Invitation, standing: Standing, caller: Account, _ request: inout Request) throws {
        let db = request.db
        let share = invitation.share
        let seq = request.nextSequence()
        let existing = try ShareTable.participant(db, share: share.id, account: caller.id)
        if var slot = invitation.slot {
            if let existing, existing.status != .removed {
                throw CloudError.invalidArguments("you already take part in this share; the one-time link stays unused")
            }
            if var existing {
                // Coming back: the old row takes the slot's place, and the slot is spent.
                existing.role = .privateUser
                existing.permission = slot.permission
                existing.status = .accepted
                try ShareTable.update(db, existing, seq: seq, by: caller.id)
                slot.status = .removed
            } else {
                slot.account = caller.id
                slot.status = .accepted
            }
            try ShareTable.update(db, slot, seq: seq, by: caller.id)
        } else if var existing {
            if existing.status == .removed {
                existing.role = .publicUser
                existing.permission = share.publicPermission
            }
            existing.status = .accepted
            try ShareTable.update(db, existing, seq: seq, by: caller.id)
        } else {
            try ShareTable.insertParticipant(db, share: share.id, account: caller.id, role: .publicUser,
                                             permission: standing.permission, status: .accepted, seq: seq)
        }
        try ShareTable.setAccessRequest(db, share: share.id, account: caller.id, status: nil, now: request.now)
    }
}
