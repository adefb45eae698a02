/// How a requested change to a share's settings is applied: who may make
/// it, and what happens to invitations when a share turns public or private.
///
/// Pure: the stored share and the client's desired share in, the share to
/// store out. Statuses are the cloud's to set: a client's are ignored, but
/// for *removed*, which means "not wanted" (a fetched share lists its removed
/// participants, and saving it back must not invite them again).
enum ShareRules {
    /// Identifies a participant across versions of a share.
    static func key(_ participant: ShareParticipant) -> String? {
        participant.userRecordID ?? participant.oneTimeID.map { "one-time:" + $0 }
    }

    static func apply(desired: Share, to stored: Share, callerRole: ShareRole, maxParticipants: Int) throws(CloudError) -> Share {
        guard callerRole == .owner || callerRole == .administrator else {
            throw .permissionFailure("only the owner or an administrator changes a share")
        }
        var result = stored
        if desired.title != stored.title || desired.type != stored.type || desired.publicPermission != stored.publicPermission {
            guard callerRole == .owner else {
                throw .permissionFailure("only the owner changes a share's title, type or public permission")
            }
            result.title = desired.title
            result.type = desired.type
            result.publicPermission = desired.publicPermission
        }

        let wantedParticipants = desired.currentParticipants
        let wanted = Set(wantedParticipants.compactMap(key))
        for i in result.participants.indices {
            let p = result.participants[i]
            guard p.role != .owner, p.status != .removed, let k = key(p), !wanted.contains(k) else { continue }
            if callerRole == .administrator && p.role == .administrator {
                throw .permissionFailure("an administrator cannot remove another administrator")
            }
            result.participants[i].status = .removed
        }

        for d in wantedParticipants where d.role != .owner {
            guard let k = key(d) else { throw .invalidArguments("a participant must be looked up before it is added") }
            let existing = result.participants.firstIndex { key($0) == k }
            let wasAdministrator = existing.map { result.participants[$0].role == .administrator && result.participants[$0].status != .removed }
            if d.role == .administrator && wasAdministrator != true && callerRole != .owner {
                throw .permissionFailure("only the owner makes administrators")
            }
            if let i = existing {
                guard result.participants[i].role != .owner else { continue }
                if result.participants[i].status == .removed { try requirePrivate(result) }
                try update(&result.participants[i], to: d, callerRole: callerRole)
            } else {
                guard d.userRecordID != nil else {
                    throw .invalidArguments("one-time invitations are made with makeOneTimeInvitation")
                }
                try requirePrivate(result)
                result.participants.append(ShareParticipant(
                    userRecordID: d.userRecordID, name: d.name, email: d.email,
                    role: d.role == .administrator ? .administrator : .privateUser,
                    permission: d.permission, status: .pending))
            }
        }

        if stored.publicPermission == .none && result.publicPermission != .none {
            // Turning public drops invitations nobody has accepted yet.
            for i in result.participants.indices where result.participants[i].status == .pending {
                result.participants[i].status = .removed
            }
        } else if stored.publicPermission != .none && result.publicPermission == .none {
            // Turning private removes everyone who came in through the public link.
            for i in result.participants.indices where result.participants[i].role == .publicUser {
                result.participants[i].status = .removed
            }
        }

        if stored.publicPermission != .none && result.publicPermission != .none && stored.publicPermission != result.publicPermission {
            // Public users follow the public permission: those who hold it come along, and nobody keeps more
            // than it allows (a public user the owner set lower stays lower).
            for i in result.participants.indices where result.participants[i].role == .publicUser {
                let held = result.participants[i].permission
                if held == stored.publicPermission || held > result.publicPermission {
                    result.participants[i].permission = result.publicPermission
                }
            }
        }

        let active = result.invitees.count
        guard active <= maxParticipants else { throw .tooManyParticipants(limit: maxParticipants) }
        return result
    }

    private static func update(_ p: inout ShareParticipant, to d: ShareParticipant, callerRole: ShareRole) throws(CloudError) {
        if p.status == .removed {
            guard p.userRecordID != nil else { return }  // a revoked one-time invitation stays revoked
            p.status = .pending
            p.role = d.role == .administrator ? .administrator : .privateUser
            p.permission = d.permission
            return
        }
        let newRole = d.role == .publicUser ? p.role : d.role
        guard newRole != p.role || d.permission != p.permission else { return }
        if callerRole == .administrator && p.role == .administrator {
            throw .permissionFailure("an administrator cannot change another administrator")
        }
        p.role = p.role == .publicUser ? .publicUser : newRole
        p.permission = d.permission
    }

    private static func requirePrivate(_ share: Share) throws(CloudError) {
        guard share.publicPermission == .none else {
            throw .invalidArguments("a public share takes no invitations: anyone with its link may join")
        }
    }
}
