import Foundation

extension LocalDatabase {
    // MARK: Participants

    /// The participant for an email address, ready to add to a share.
    public func lookUpParticipant(email: String) throws(CloudError) -> ShareParticipant {
        guard let account = try cloud.account(email: email) else { throw .participantNeedsVerification(email) }
        return ShareParticipant(account: account, role: .privateUser, permission: .readOnly, status: .unknown)
    }

    /// The participant for an account name, ready to add to a share.
    public func lookUpParticipant(accountName: String) throws(CloudError) -> ShareParticipant {
        ShareParticipant(account: try cloud.account(named: accountName), role: .privateUser, permission: .readOnly, status: .unknown)
    }

    // MARK: Shares

    /// Creates or changes a share.
    ///
    /// A new hierarchical share is saved together with its root record, in
    /// one request, or not at all; a new share comes back with its URL, the
    /// only time the cloud can tell it. Changing an existing share names its
    /// current change tag (else *server record changed*) and follows
    /// `ShareRules`: only the owner or an administrator changes a share.
    public func saveShare(_ share: Share, rootRecord: Record? = nil,
                          policy: SavePolicy = .ifServerRecordUnchanged) throws(CloudError) -> SavedShare {
        let zoneID = try normalize(share.id.zone)
        guard !zoneID.isDefault else { throw .invalidArguments("the default zone cannot be shared") }
        let rootBody = try rootRecord.map { root throws(CloudError) in try checkLimits(saving: [root], deleting: [])[0] }
        return try cloud.perform { request in
            let access = try access(zoneID, for: &request)
            if let row = try ShareTable.find(request.db, zone: access.zone.id, name: share.id.name) {
                guard share.changeTag != nil else {  // a new share for what is shared already
                    throw CloudError.alreadyShared(RecordID(name: row.root ?? row.name, zone: access.zoneID))
                }
                let savedRoot = try rootRecord.map { try save($0, body: rootBody!, policy: policy, access: access, &request) }
                return SavedShare(share: try update(share, row: row, access: access, &request), rootRecord: savedRoot, url: nil)
            }
            return try create(share, root: rootRecord, rootBody: rootBody, policy: policy, access: access, &request)
        }
    }

    /// The share with this record ID, for its owner and its participants.
    public func fetchShare(_ id: RecordID) throws(CloudError) -> Share {
        let zoneID = try normalize(id.zone)
        return try cloud.performRead { db in
            guard let access = try access(db, zoneID), let row = try ShareTable.find(db, zone: access.zone.id, name: id.name),
                  access.isOwner || access.grant(forShareNamed: id.name) != nil
            else { throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID)) }
            return try ShareStore.load(db, row, zoneID: zoneID)
        }
    }

    /// Every live share in a zone of the caller's private database.
    public func shares(in zone: ZoneID) throws(CloudError) -> [Share] {
        let zoneID = try normalize(zone)
        return try cloud.performRead { db in
            guard let access = try access(db, zoneID) else { return [] }
            return try ShareTable.live(db, zone: access.zone.id)
                .filter { access.isOwner || access.grant(forShareNamed: $0.name) != nil }
                .map { try ShareStore.load(db, $0, zoneID: zoneID) }
        }
    }

    /// The owner stops sharing (every participant loses the records); in the
    /// shared database, a participant leaves (only they lose them).
    public func deleteShare(_ id: RecordID) throws(CloudError) {
        try modifyRecords(saving: [], deleting: [id]).deleteResults[id]!.get()
    }

    /// Adds or re-invites a looked-up participant, or changes their permission.
    @discardableResult
    public func addParticipant(_ participant: ShareParticipant, permission: SharePermission,
                               to share: RecordID) throws(CloudError) -> Share {
        try modifyShare(share) { $0.addParticipant(participant, permission: permission) }
    }

    /// Takes a participant off a share; they lose it on their next request.
    @discardableResult
    public func removeParticipant(_ userRecordID: String, from share: RecordID) throws(CloudError) -> Share {
        try modifyShare(share) { share throws(CloudError) in
            guard share.participant(userRecordID).map({ $0.status != .removed && $0.role != .owner }) == true else {
                throw .invalidArguments("that account does not take part in this share")
            }
            share.removeParticipant(userRecordID)
        }
    }

    /// Changes what one participant may do, effective on their next request.
    @discardableResult
    public func setPermission(_ permission: SharePermission, for userRecordID: String,
                              on share: RecordID) throws(CloudError) -> Share {
        try modifyShare(share) { share throws(CloudError) in
            guard let i = share.participants.firstIndex(where: { $0.userRecordID == userRecordID && $0.status != .removed }),
                  share.participants[i].role != .owner
            else { throw .invalidArguments("that account does not take part in this share") }
            share.participants[i].permission = permission
        }
    }

    /// Changes what anyone holding the link gets.
    @discardableResult
    public func setPublicPermission(_ permission: SharePermission, on share: RecordID) throws(CloudError) -> Share {
        try modifyShare(share) { $0.publicPermission = permission }
    }

    /// Reads a share, applies `change` as the caller would, and stores it,
    /// all in one request, so concurrent changes cannot interleave.
    private func modifyShare(_ id: RecordID, _ change: (inout Share) throws(CloudError) -> Void) throws(CloudError) -> Share {
        let zoneID = try normalize(id.zone)
        return try cloud.perform { request in
            let access = try access(zoneID, for: &request)
            guard let row = try ShareTable.find(request.db, zone: access.zone.id, name: id.name),
                  access.isOwner || access.grant(forShareNamed: id.name) != nil
            else { throw CloudError.unknownItem(RecordID(name: id.name, zone: zoneID)) }
            var desired = try ShareStore.load(request.db, row, zoneID: zoneID)
            try change(&desired)
            return try update(desired, row: row, access: access, &request)
        }
    }

    // MARK: Saving

    private func create(_ share: Share, root: Record?, rootBody: Data?, policy: SavePolicy, access: ZoneAccess,
                        _ request: inout Request) throws -> SavedShare {
        guard access.isOwner else { throw CloudError.permissionFailure("only the owner shares records") }
        let db = request.db
        var savedRoot: Record?
        if let rootName = share.rootRecord {
            guard share.id.name != Share.zoneWideRecordName, let root, root.id.name == rootName,
                  try normalize(root.id.zone) == access.zoneID
            else { throw CloudError.invalidArguments("a new share must be saved together with its root record in one request") }
            let saved = try save(root, body: rootBody!, policy: policy, access: access, &request)
            try SharedHierarchy.checkNewRoot(db, zone: access.zone.id, root: rootName, parent: saved.parent, rootID: saved.id)
            savedRoot = saved
        } else {
            guard share.id.name == Share.zoneWideRecordName, root == nil else {
                throw CloudError.invalidArguments("a zone-wide share is named \(Share.zoneWideRecordName) and has no root record")
            }
            guard try ShareTable.live(db, zone: access.zone.id).isEmpty else {
                throw CloudError.invalidArguments(
                    "zone \(access.zoneID.name) already has shares of single records; it cannot also be shared as a whole")
            }
        }
        let url = ShareURL.generate(container: cloud.container, random: cloud.random)
        let row = try ShareTable.insert(db, zone: access.zone.id, name: share.id.name, root: share.rootRecord,
                                        tokenHash: url.tokenHash, publicPermission: .none)
        try ShareTable.insertParticipant(db, share: row.id, account: caller.id, role: .owner, permission: .readWrite,
                                         status: .accepted, seq: request.nextSequence())
        let bare = try ShareStore.view(db, row, zoneID: access.zoneID, title: share.title, type: share.type, changeTag: nil)
        let desired = try ShareRules.apply(desired: share, to: bare, callerRole: .owner, maxParticipants: cloud.limits.maxParticipants)
        let stored = try ShareStore.store(desired, row: row, access: access, actor: caller.id, &request)
        return SavedShare(share: stored, rootRecord: savedRoot, url: url)
    }

    private func update(_ share: Share, row: ShareRow, access: ZoneAccess, _ request: inout Request) throws -> Share {
        let stored = try ShareStore.load(request.db, row, zoneID: access.zoneID)
        guard share.changeTag == stored.changeTag else {
            let record = try RecordTable.find(request.db, zone: row.zone, name: row.name, zoneID: access.zoneID)?.record
            throw CloudError.serverRecordChanged(server: record ?? stored.record())
        }
        guard share.rootRecord == stored.rootRecord else { throw CloudError.invalidArguments("a share's root record cannot change") }
        let role = access.isOwner ? .owner : access.grant(forShareNamed: row.name)?.participant.role ?? .privateUser
        let desired = try ShareRules.apply(desired: share, to: stored, callerRole: role, maxParticipants: cloud.limits.maxParticipants)
        return try ShareStore.store(desired, row: row, access: access, actor: caller.id, &request)
    }

    // MARK: Ending

    /// Ends a share as its owner.
    func endShare(_ row: ShareRow, access: ZoneAccess, _ request: inout Request) throws {
        try ShareStore.end(row, access: access, actor: caller.id, &request)
    }

    /// Leaves a share as a participant; the owner's data stays.
    func leave(_ row: ShareRow, access: ZoneAccess, _ request: inout Request) throws {
        guard var participant = try ShareTable.participant(request.db, share: row.id, account: caller.id),
              participant.status != .removed, participant.role != .owner
        else { throw CloudError.permissionFailure("only a participant leaves a share") }
        participant.status = .removed
        try ShareTable.update(request.db, participant, seq: request.nextSequence(), by: caller.id)
        request.topics.insert(.database(.shared, of: caller.id))
        let current = try ShareStore.load(request.db, row, zoneID: access.zoneID)
        _ = try ShareStore.writeRecord(title: current.title, type: current.type, row: row, access: access, actor: caller.id, &request)
    }
}
