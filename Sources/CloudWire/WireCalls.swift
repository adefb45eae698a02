import Cloud
import Foundation

/// CloudNotes' own operations, by path: each reads the `CallRequest` keys it needs and fills its `CallResponse` keys.
enum WireCalls {
    typealias Call = @Sendable (LocalCloud, CallRequest, CloudDatabase) throws -> CallResponse

    static let operations: [String: Call] = [
        "cloud/identity": { cloud, _, _ in try answer { $0.identity = try cloud.identity() } },
        "users/restore": { cloud, _, db in try answer { $0.users = [WireUser(try cloud.restoreAccount(db.caller))] } },
        "users/lookup/name": { cloud, r, _ in
            try answer { $0.users = [WireUser(try cloud.account(named: try r.require(r.accountName, "accountName")))] }
        },
        "users/lookup/id": { cloud, r, _ in
            try answer { $0.users = try cloud.account(id: try r.require(r.userRecordName, "userRecordName")).map { [WireUser($0)] } ?? [] }
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
        "records/emptyTrash": { _, r, db in try answer { $0.count = try db.emptyTrash(in: try r.zone()) } },
        "shares/ended": { _, r, db in try answer { $0.ended = try db.endedShares(in: try r.zone()) } },
        "shares/lookupParticipant": { _, r, db in
            try answer {
                $0.participant = try r.emailAddress.map { try db.lookUpParticipant(email: $0) }
                    ?? db.lookUpParticipant(accountName: try r.require(r.accountName, "emailAddress or accountName"))
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
