import Foundation

extension LocalDatabase {
    /// A link that admits exactly one account, the first to accept it, with
    /// `permission`; after that it admits nobody. Private shares only.
    public func makeOneTimeInvitation(for shareID: RecordID,
                                      permission: SharePermission) throws(CloudError) -> (share: Share, url: ShareURL) {
        guard permission != .none else { throw .invalidArguments("an invitation grants read-only or read-write") }
        return try managing(shareID) { row, access, request in
            guard row.publicPermission == .none else {
                throw CloudError.invalidArguments("a public share needs no invitations: anyone with its link may join")
            }
            let active = try ShareTable.participants(request.db, share: row.id).filter { $0.status != .removed && $0.role != .owner }
            guard active.count < cloud.limits.maxParticipants else {
                throw CloudError.tooManyParticipants(limit: cloud.limits.maxParticipants)
            }
            let url = ShareURL.generate(container: cloud.container, random: cloud.random)
            try ShareTable.insertParticipant(request.db, share: row.id, account: nil, role: .privateUser, permission: permission,
                                             status: .pending, seq: request.nextSequence(),
                                             oneTime: (cloud.random.hex(bytes: 4), url.tokenHash))
            return (try rewrite(row, access, &request), url)
        }
    }

    /// The accounts that asked to join a share, and those blocked from asking.
    public func accessRequests(for shareID: RecordID) throws(CloudError) -> [AccessRequest] {
        let zoneID = try normalize(shareID.zone)
        return try cloud.performRead { db in
            guard let access = try access(db, zoneID), let row = try ShareTable.find(db, zone: access.zone.id, name: shareID.name),
                  try Self.canManage(access, row)
            else { throw CloudError.permissionFailure("only the owner or an administrator sees access requests") }
            return try ShareTable.accessRequests(db, share: row.id)
        }
    }

    /// Approves, denies or blocks someone who asked to join a share.
    @discardableResult
    public func respond(to userRecordID: String, requestingAccessTo shareID: RecordID,
                        with response: AccessResponse) throws(CloudError) -> Share {
        try managing(shareID) { row, access, request in
            let db = request.db
            guard try ShareTable.accessRequestStatus(db, share: row.id, account: userRecordID) == .pending else {
                throw CloudError.invalidArguments("that account has no pending request to join this share")
            }
            switch response {
            case .deny:
                try ShareTable.setAccessRequest(db, share: row.id, account: userRecordID, status: nil, now: request.now)
            case .block:
                try ShareTable.setAccessRequest(db, share: row.id, account: userRecordID, status: .blocked, now: request.now)
            case .approve(let permission):
                guard permission != .none else { throw CloudError.invalidArguments("approve with read-only or read-write") }
                let seq = request.nextSequence()
                if var existing = try ShareTable.participant(db, share: row.id, account: userRecordID) {
                    existing.role = .privateUser
                    existing.permission = permission
                    existing.status = .accepted
                    try ShareTable.update(db, existing, seq: seq, by: caller.id)
                } else {
                    try ShareTable.insertParticipant(db, share: row.id, account: userRecordID, role: .privateUser,
                                                     permission: permission, status: .accepted, seq: seq)
                }
                try ShareTable.setAccessRequest(db, share: row.id, account: userRecordID, status: nil, now: request.now)
                request.topics.insert(.database(.shared, of: userRecordID))
            }
            return try rewrite(row, access, &request)
        }
    }

    // MARK: Helpers

    /// Runs `body` on a share the caller owns or administers, in one request.
    private func managing<T>(_ shareID: RecordID,
                             _ body: (ShareRow, ZoneAccess, inout Request) throws -> T) throws(CloudError) -> T {
        let zoneID = try normalize(shareID.zone)
        return try cloud.perform { request in
            let access = try access(zoneID, for: &request)
            guard let row = try ShareTable.find(request.db, zone: access.zone.id, name: shareID.name) else {
                throw CloudError.unknownItem(RecordID(name: shareID.name, zone: zoneID))
            }
            guard try Self.canManage(access, row) else {
                throw CloudError.permissionFailure("only the owner or an administrator manages a share")
            }
            return try body(row, access, &request)
        }
    }

    private static func canManage(_ access: ZoneAccess, _ row: ShareRow) throws -> Bool {
        access.isOwner || access.grant(forShareNamed: row.name)?.participant.role == .administrator
    }

    private func rewrite(_ row: ShareRow, _ access: ZoneAccess, _ request: inout Request) throws -> Share {
        let current = try ShareStore.load(request.db, row, zoneID: access.zoneID)
        return try ShareStore.writeRecord(title: current.title, type: current.type, row: row, access: access,
                                          actor: caller.id, &request)
    }
}
