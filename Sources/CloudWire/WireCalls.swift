import Cloud
import Foundation

/// CloudNotes' own operations, by path: each reads the `CallRequest` keys it needs and fills its `CallResponse` keys.
enum WireCalls {
    /// The account named `name` that `caller` shares with, else `unknownAccount`: one it does not is unknown to it.
    private static func known(_ name: String, in cloud: LocalCloud, to caller: Account) throws -> Account {
        guard let account = try cloud.accounts(knownTo: caller).first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw CloudError.unknownAccount(name)
        }
        return account
    }

    typealias Call = @Sendable (LocalCloud, CallRequest, CloudDatabase) throws -> CallResponse

    static let operations: [String: Call] = [
        "cloud/identity": { cloud, _, _ in try answer { $0.identity = try cloud.identity() } },
        "users/restore": { cloud, _, db in try answer { $0.users = [WireUser(try cloud.restoreAccount(db.caller))] } },
        // Only the people the caller already shares with are found by name or ID: anyone's email and ID is not every
        // account's business (an exact email finds anyone, as inviting needs: users/lookup/email).
        "users/lookup/name": { cloud, r, db in
            let name = try r.require(r.accountName, "accountName")
            return try answer { $0.users = [WireUser(try known(name, in: cloud, to: db.caller))] }
        },
        "users/lookup/id": { cloud, r, db in
            let id = try r.require(r.userRecordName, "userRecordName")
            return try answer { $0.users = try cloud.accounts(knownTo: db.caller).filter { $0.id == id }.map(WireUser.init) }
        },
        "users/list": { cloud, _, db in try answer { $0.users = try cloud.accounts(knownTo: db.caller).map(WireUser.init) } },
        "shares/requestAccess": { cloud, r, db in
            try cloud.requestAccess(ShareURL(container: cloud.container, shortGUID: try r.require(r.shortGUID, "shortGUID")), as: db.caller)
            return CallResponse()
        },
        "invitations/list": { cloud, _, db in try answer { $0.invitations = try cloud.invitations(for: db.caller) } },
        "invitations/accept": { cloud, r, db in
            try answer { $0.metadata = try cloud.acceptInvitation(try r.require(r.invitationID, "invitationID"), as: db.caller) }
        },
        "invitations/decline": { cloud, r, db in
            try cloud.declineInvitation(try r.require(r.invitationID, "invitationID"), as: db.caller)
            return CallResponse()
        },
        "requests/list": { cloud, _, db in try answer { $0.ownedRequests = try cloud.accessRequests(ownedBy: db.caller) } },
        "records/history": { _, r, db in try answer { $0.versions = try db.history(of: try r.recordID()).map { WireVersion($0) } } },
        "records/trash": { _, r, db in
            try answer { $0.versions = try db.trash(in: try r.zone(), type: try r.require(r.recordType, "recordType")).map { WireVersion($0) } }
        },
        "records/restore": { _, r, db in
            try answer { $0.records = try db.restoreDeleted(try r.require(r.recordNames, "recordNames"), in: try r.zone()).map { WireRecord($0) } }
        },
        "records/emptyTrash": { _, r, db in try answer { $0.count = try db.emptyTrash(in: try r.zone(), counting: r.recordType) } },
        "shares/ended": { _, r, db in try answer { $0.ended = try db.endedShares(in: try r.zone()) } },
        "shares/lookupParticipant": { cloud, r, db in
            try answer {
                if let email = r.emailAddress { return $0.participant = try db.lookUpParticipant(email: email) }
                let name = try r.require(r.accountName, "emailAddress or accountName")
                _ = try known(name, in: cloud, to: db.caller)
                $0.participant = try db.lookUpParticipant(accountName: name)
            }
        },
        "shares/save": { _, r, db in
            let share = try r.require(r.share, "share")
            let saved = try db.saveShare(share, rootRecord: try r.rootRecord?.changes(in: share.id.zone), policy: r.policy ?? .ifServerRecordUnchanged)
            return try answer {
                $0.share = saved.share
                $0.rootRecord = saved.rootRecord.map { WireRecord($0) }
                $0.url = saved.url
            }
        },
        "shares/lookup": { _, r, db in try answer { $0.share = try db.fetchShare(try r.recordID()) } },
        "shares/list": { _, r, db in try answer { $0.shares = try db.shares(in: try r.zone()) } },
        "shares/delete": { _, r, db in
            try db.deleteShare(try r.recordID())
            return CallResponse()
        },
        "shares/participants/add": { _, r, db in
            try answer {
                $0.share = try db.addParticipant(try r.require(r.participant, "participant"), permission: try r.require(r.permission, "permission"),
                                                 to: try r.recordID())
            }
        },
        "shares/participants/remove": { _, r, db in
            try answer { $0.share = try db.removeParticipant(try r.require(r.userRecordName, "userRecordName"), from: try r.recordID()) }
        },
        "shares/participants/permission": { _, r, db in
            try answer {
                $0.share = try db.setPermission(try r.require(r.permission, "permission"), for: try r.require(r.userRecordName, "userRecordName"),
                                                on: try r.recordID())
            }
        },
        "shares/publicPermission": { _, r, db in
            try answer { $0.share = try db.setPublicPermission(try r.require(r.permission, "permission"), on: try r.recordID()) }
        },
        "shares/oneTimeLink": { _, r, db in
            let made = try db.makeOneTimeInvitation(for: try r.recordID(), permission: try r.require(r.permission, "permission"))
            return try answer {
                $0.share = made.share
                $0.url = made.url
            }
        },
        "shares/requests": { _, r, db in try answer { $0.accessRequests = try db.accessRequests(for: try r.recordID()) } },
        "shares/respond": { _, r, db in
            try answer {
                $0.share = try db.respond(to: try r.require(r.userRecordName, "userRecordName"), requestingAccessTo: try r.recordID(),
                                          with: try r.require(r.response, "response"))
            }
        },
    ]

    private static func answer(_ fill: (inout CallResponse) throws -> Void) rethrows -> CallResponse {
        var response = CallResponse()
        try fill(&response)
        return response
    }
}
