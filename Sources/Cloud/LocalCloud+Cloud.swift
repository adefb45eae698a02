import Foundation

/// The cloud in a directory serves each database's requests through a `LocalDatabase`, which makes and checks them.
extension LocalCloud: Cloud {
    public func modifyRecords(saving: [Record], deleting: [RecordID], deletionTags: [RecordID: String], policy: SavePolicy,
                              atomically: Bool, in database: CloudDatabase) throws(CloudError) -> ModifyResult {
        try local(database).modifyRecords(saving: saving, deleting: deleting, deletionTags: deletionTags, policy: policy, atomically: atomically)
    }

    /// As `modifyRecords`, with each save's own policy (the protocol's operations carry one each).
    public func modifyRecords(saving: [(record: Record, policy: SavePolicy)], deleting: [RecordID], deletionTags: [RecordID: String] = [:],
                              atomically: Bool, in database: CloudDatabase) throws(CloudError) -> ModifyResult {
        var policies: [RecordID: SavePolicy] = [:]
        for save in saving { policies[save.record.id] = save.policy }
        return try local(database).modifyRecords(saving: saving.map(\.record), deleting: deleting, deletionTags: deletionTags,
                                                 policies: policies, atomically: atomically)
    }

    public func records(_ ids: [RecordID], in database: CloudDatabase) throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try local(database).records(ids)
    }

    public func modifyZones(saving: [ZoneID], deleting: [ZoneID], reason: ZoneDeletionReason, deletionTokens: [ZoneID: ChangeToken],
                            in database: CloudDatabase) throws(CloudError) -> ZoneModifyResult {
        try local(database).modifyZones(saving: saving, deleting: deleting, reason: reason, deletionTokens: deletionTokens)
    }

    public func fetchZone(_ zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> ZoneID {
        try local(database).fetchZone(zone)
    }

    public func allZones(in database: CloudDatabase) throws(CloudError) -> [ZoneID] { try local(database).allZones() }

    public func databaseChanges(since token: ChangeToken?, limit: Int?, in database: CloudDatabase) throws(CloudError) -> DatabaseChanges {
        try local(database).databaseChanges(since: token, limit: limit)
    }

    public func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int?, known: [String: String],
                            in database: CloudDatabase) throws(CloudError) -> ZoneChanges {
        try local(database).zoneChanges(in: zone, since: token, limit: limit, known: known)
    }

    public func history(of id: RecordID, in database: CloudDatabase) throws(CloudError) -> [RecordVersion] {
        try local(database).history(of: id)
    }

    public func trash(in zone: ZoneID, type: String, in database: CloudDatabase) throws(CloudError) -> [DeletedRecord] {
        try local(database).trash(in: zone, type: type)
    }

    public func restoreDeleted(_ names: [String], in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Record] {
        try local(database).restoreDeleted(names, in: zone)
    }

    public func emptyTrash(in zone: ZoneID, counting type: String?, in database: CloudDatabase) throws(CloudError) -> Int {
        try local(database).emptyTrash(in: zone, counting: type)
    }

    public func endedShares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [EndedShare] {
        try local(database).endedShares(in: zone)
    }

    public func lookUpParticipant(email: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant {
        try local(database).lookUpParticipant(email: email)
    }

    public func lookUpParticipant(accountName: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant {
        try local(database).lookUpParticipant(accountName: accountName)
    }

    public func saveShare(_ share: Share, rootRecord: Record?, policy: SavePolicy, in database: CloudDatabase) throws(CloudError) -> SavedShare {
        try local(database).saveShare(share, rootRecord: rootRecord, policy: policy)
    }

    public func fetchShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError) -> Share { try local(database).fetchShare(id) }

    public func shares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Share] { try local(database).shares(in: zone) }

    public func deleteShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError) { try local(database).deleteShare(id) }

    public func addParticipant(_ participant: ShareParticipant, permission: SharePermission, to share: RecordID,
                               in database: CloudDatabase) throws(CloudError) -> Share {
        try local(database).addParticipant(participant, permission: permission, to: share)
    }

    public func removeParticipant(_ userRecordID: String, from share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share {
        try local(database).removeParticipant(userRecordID, from: share)
    }

    public func setPermission(_ permission: SharePermission, for userRecordID: String, on share: RecordID,
                              in database: CloudDatabase) throws(CloudError) -> Share {
        try local(database).setPermission(permission, for: userRecordID, on: share)
    }

    public func setPublicPermission(_ permission: SharePermission, on share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share {
        try local(database).setPublicPermission(permission, on: share)
    }

    public func makeOneTimeInvitation(for shareID: RecordID, permission: SharePermission,
                                      in database: CloudDatabase) throws(CloudError) -> (share: Share, url: ShareURL) {
        try local(database).makeOneTimeInvitation(for: shareID, permission: permission)
    }

    public func accessRequests(for shareID: RecordID, in database: CloudDatabase) throws(CloudError) -> [AccessRequest] {
        try local(database).accessRequests(for: shareID)
    }

    public func respond(to userRecordID: String, requestingAccessTo shareID: RecordID, with response: AccessResponse,
                        in database: CloudDatabase) throws(CloudError) -> Share {
        try local(database).respond(to: userRecordID, requestingAccessTo: shareID, with: response)
    }
}
