import Cloud
import CloudWire
import Foundation

extension RemoteCloud {
    public func lookUpParticipant(email: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant {
        try participant { $0.emailAddress = email }
    }

    public func lookUpParticipant(accountName: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant {
        try participant { $0.accountName = accountName }
    }

    private func participant(_ fill: (inout CallRequest) -> Void) throws(CloudError) -> ShareParticipant {
        guard let participant = try ask(.private, "shares/lookupParticipant", fill).participant else {
            throw missing("participant", in: "shares/lookupParticipant")
        }
        return participant
    }

    public func saveShare(_ share: Share, rootRecord: Record?, policy: SavePolicy, in database: CloudDatabase) throws(CloudError) -> SavedShare {
        let answer = try ask(database.scope, "shares/save") {
            $0.share = share
            $0.rootRecord = rootRecord.map { WireRecord(saving: $0) }
            $0.policy = policy
        }
        guard let saved = answer.share else { throw missing("share", in: "shares/save") }
        return SavedShare(share: saved, rootRecord: try answer.rootRecord.map { record throws(CloudError) in try stored(record, in: share.id.zone) },
                          url: answer.url)
    }

    public func fetchShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError) -> Share {
        try share(database, "shares/lookup", id)
    }

    public func shares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Share] {
        try ask(database.scope, "shares/list") { $0.zoneID = WireZoneID(zone) }.shares ?? []
    }

    public func deleteShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError) {
        _ = try ask(database.scope, "shares/delete") { Self.name(id, in: &$0) }
    }

    public func addParticipant(_ participant: ShareParticipant, permission: SharePermission, to share: RecordID,
                               in database: CloudDatabase) throws(CloudError) -> Share {
        try self.share(database, "shares/participants/add", share) {
            $0.participant = participant
            $0.permission = permission
        }
    }

    public func removeParticipant(_ userRecordID: String, from share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share {
        try self.share(database, "shares/participants/remove", share) { $0.userRecordName = userRecordID }
    }

    public func setPermission(_ permission: SharePermission, for userRecordID: String, on share: RecordID,
                              in database: CloudDatabase) throws(CloudError) -> Share {
        try self.share(database, "shares/participants/permission", share) {
            $0.permission = permission
            $0.userRecordName = userRecordID
        }
    }

    public func setPublicPermission(_ permission: SharePermission, on share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share {
        try self.share(database, "shares/publicPermission", share) { $0.permission = permission }
    }

    public func makeOneTimeInvitation(for shareID: RecordID, permission: SharePermission,
                                      in database: CloudDatabase) throws(CloudError) -> (share: Share, url: ShareURL) {
        let answer = try ask(database.scope, "shares/oneTimeLink") {
            Self.name(shareID, in: &$0)
            $0.permission = permission
        }
        guard let share = answer.share, let url = answer.url else { throw missing("share and url", in: "shares/oneTimeLink") }
        return (share, url)
    }

    public func accessRequests(for shareID: RecordID, in database: CloudDatabase) throws(CloudError) -> [AccessRequest] {
        try ask(database.scope, "shares/requests") { Self.name(shareID, in: &$0) }.accessRequests ?? []
    }

    public func respond(to userRecordID: String, requestingAccessTo shareID: RecordID, with response: AccessResponse,
                        in database: CloudDatabase) throws(CloudError) -> Share {
        try share(database, "shares/respond", shareID) {
            $0.userRecordName = userRecordID
            $0.response = response
        }
    }

    /// An operation on one share that answers with the share.
    private func share(_ database: CloudDatabase, _ operation: String, _ id: RecordID,
                       _ fill: (inout CallRequest) -> Void = { _ in }) throws(CloudError) -> Share {
        let answer = try ask(database.scope, operation) {
            Self.name(id, in: &$0)
            fill(&$0)
        }
        guard let share = answer.share else { throw missing("share", in: operation) }
        return share
    }

    private static func name(_ id: RecordID, in request: inout CallRequest) {
        request.recordName = id.name
        request.zoneID = WireZoneID(id.zone)
    }
}
