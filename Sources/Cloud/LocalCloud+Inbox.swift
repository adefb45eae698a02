import Foundation

extension LocalCloud {
    /// The invitations waiting for `caller`, oldest first.
    public func invitations(for caller: Account) throws(CloudError) -> [InboxInvitation] {
        try performRead { db in
            try pendingShares(db, caller).compactMap { share in
                let invitation: Invitation
                do {
                    invitation = try self.invitation(db, share)
                } catch CloudError.unknownShare {
                    return nil  // its zone went
                }
                let metadata = try metadata(db, invitation, standing: try standing(db, invitation, caller: caller))
                return InboxInvitation(id: Self.invitationID(share), metadata: metadata)
            }
        }
    }

    /// Accepts an invitation from the inbox, as `acceptShare` does with its URL.
    @discardableResult
    public func acceptInvitation(_ id: String, as caller: Account) throws(CloudError) -> ShareMetadata {
        try perform { request in
            let invitation = try invitation(request.db, try pendingShare(request.db, id, caller))
            try accept(invitation, as: caller, &request)
            return try metadata(request.db, invitation, standing: try standing(request.db, invitation, caller: caller))
        }
    }

    /// Declines an invitation: the caller leaves the share before joining it, and its owner sees so.
    public func declineInvitation(_ id: String, as caller: Account) throws(CloudError) {
        try perform { request in
            let share = try pendingShare(request.db, id, caller)
            guard var participant = try ShareTable.participant(request.db, share: share.id, account: caller.id) else {
                throw CloudError.participantNotInvited("no invitation \(id) waits for you")
            }
            participant.status = .removed
            try ShareTable.update(request.db, participant, seq: request.nextSequence(), by: caller.id)
            let invitation = try invitation(request.db, share)
            let current = try ShareStore.load(request.db, share, zoneID: invitation.access.zoneID)
            _ = try ShareStore.writeRecord(title: current.title, type: current.type, row: share,
                                           access: invitation.access, actor: caller.id, &request)
        }
    }

    private static func invitationID(_ share: ShareRow) -> String { "inv-\(share.id)" }

    /// Live shares on which the caller is invited and has not answered.
    private func pendingShares(_ db: any SQLTransaction, _ caller: Account) throws -> [ShareRow] {
        try db.all("""
            SELECT s.* FROM shares s JOIN participants p ON p.share = s.id
            WHERE p.account = ? AND p.status = 'pending' AND s.deleted = 0 ORDER BY p.seq, s.id
            """, [caller.id]) { ShareRow($0) }
    }

    /// The share of invitation `id`, if it waits for the caller; otherwise they are told only that it does not.
    private func pendingShare(_ db: any SQLTransaction, _ id: String, _ caller: Account) throws -> ShareRow {
        guard let share = try pendingShares(db, caller).first(where: { Self.invitationID($0) == id }) else {
            throw CloudError.participantNotInvited("no invitation \(id) waits for you (cloudnotes invitations lists them)")
        }
        return share
    }
}


extension LocalCloud {
    /// Every request to join a share `owner` owns, in one read (the inbox counts them after each sync).
    public func accessRequests(ownedBy owner: Account) throws(CloudError) -> [OwnedShareRequest] {
        try performRead { db in
            try db.all("""
                SELECT s.name AS share_name, z.name AS zone_name, r.account, r.status, r.requested_at, a.name, a.email
                FROM access_requests r JOIN shares s ON s.id = r.share JOIN zones z ON z.id = s.zone
                JOIN databases d ON d.id = z.database JOIN accounts a ON a.id = r.account
                WHERE d.owner = ? AND s.deleted = 0 AND z.deleted_at IS NULL
                ORDER BY r.requested_at, lower(a.name)
                """, [owner.id]) { row in
                OwnedShareRequest(
                    shareID: RecordID(name: row.text("share_name"), zone: ZoneID(name: row.text("zone_name"), owner: owner.id)),
                    request: AccessRequest(userRecordID: row.text("account"), name: row.text("name"), email: row.text("email"),
                                           requestedAt: row.date("requested_at") ?? .distantPast,
                                           status: AccessRequest.Status(rawValue: row.text("status")) ?? .pending))
            }
        }
    }
}
