import Foundation

/// One account's view of one database of a cloud (CloudKit's `CKDatabase`):
/// every request names its caller, and the cloud checks each against the
/// caller's rights.
///
/// - Private: only its owner reads or writes it.
/// - Public: everyone reads, any account creates, only a record's creator
///   changes or deletes it. It has only the default zone.
/// - Shared: the zones other accounts shared with the caller, named with
///   their owner's user record ID; what the caller sees and may change
///   there follows the shares they accepted.
public struct CloudDatabase: Sendable {
    public let cloud: any Cloud
    public let scope: DatabaseScope
    public let caller: Account

    public init(cloud: any Cloud, scope: DatabaseScope, caller: Account) {
        self.cloud = cloud
        self.scope = scope
        self.caller = caller
    }

    /// The topic this database's changes are posted to.
    public var pushTopic: PushTopic { .database(scope, of: caller.id) }

    /// Calls `handler` shortly after any change to this database.
    public func subscribe(_ handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        cloud.subscribe(to: [pushTopic], handler: handler)
    }

    // MARK: Records

    /// Saves and deletes records in one request.
    ///
    /// The request is checked against the limits first (items, bytes per
    /// record and per request) and refused whole with *limit exceeded*.
    /// Each item then succeeds or fails on its own, unless `atomically`:
    /// then one failure in a zone rolls back that zone's other items, which
    /// fail with *batch request failed*.
    ///
    /// A deletion named in `deletionTags` carries the change tag of the version its caller saw (as CloudKit Web
    /// Services' `delete` with a `recordChangeTag`): it is made only while the record is still that version, else it
    /// fails with *server record changed* and the record as it is now. Any other deletion is made whatever changed.
    public func modifyRecords(saving: [Record], deleting: [RecordID] = [], deletionTags: [RecordID: String] = [:],
                              policy: SavePolicy = .ifServerRecordUnchanged, atomically: Bool = false) throws(CloudError) -> ModifyResult {
        try cloud.modifyRecords(saving: saving, deleting: deleting, deletionTags: deletionTags, policy: policy, atomically: atomically, in: self)
    }

    /// Saves one record and returns it as the server now has it.
    @discardableResult
    public func save(_ record: Record, policy: SavePolicy = .ifServerRecordUnchanged) throws(CloudError) -> Record {
        try modifyRecords(saving: [record], policy: policy).saveResults[record.id]!.get()
    }

    /// Deletes one record, leaving a tombstone for change fetches.
    public func delete(_ id: RecordID) throws(CloudError) {
        try modifyRecords(saving: [], deleting: [id]).deleteResults[id]!.get()
    }

    /// Fetches records by ID; each is there, or *unknown item*, or refused.
    /// A record the caller may not see is unknown to them.
    public func records(_ ids: [RecordID]) throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try cloud.records(ids, in: self)
    }

    public func record(_ id: RecordID) throws(CloudError) -> Record {
        try records([id])[id]!.get()
    }

    // MARK: Zones

    /// Creates zones (saving an existing one changes nothing) and deletes
    /// others, leaving a tombstone with the reason and deleting their records. A deletion named in `deletionTokens`
    /// (ours) carries the change token its caller last fetched the zone to: it is made only where nothing in the
    /// zone changed since, else it fails with *zone changed*.
    public func modifyZones(saving: [ZoneID], deleting: [ZoneID], reason: ZoneDeletionReason = .deleted,
                            deletionTokens: [ZoneID: ChangeToken] = [:]) throws(CloudError) -> ZoneModifyResult {
        try cloud.modifyZones(saving: saving, deleting: deleting, reason: reason, deletionTokens: deletionTokens, in: self)
    }

    /// Creates a zone; idempotent.
    @discardableResult
    public func save(zone: ZoneID) throws(CloudError) -> ZoneID {
        try modifyZones(saving: [zone], deleting: []).saveResults[zone]!.get()
    }

    public func delete(zone: ZoneID, reason: ZoneDeletionReason = .deleted) throws(CloudError) {
        _ = try modifyZones(saving: [], deleting: [zone], reason: reason).deleteResults[zone]!.get()
    }

    /// The zone, if it exists and the caller may see it.
    public func fetchZone(_ zone: ZoneID) throws(CloudError) -> ZoneID { try cloud.fetchZone(zone, in: self) }

    /// Every live zone the caller sees in this database, by name.
    public func allZones() throws(CloudError) -> [ZoneID] { try cloud.allZones(in: self) }

    // MARK: Changes

    /// The zones changed or deleted since `token`, oldest first, at most
    /// `limit` of them (the cloud's batch size by default). No token means
    /// every live zone. The default zone is not reported, as in CloudKit.
    public func databaseChanges(since token: ChangeToken?, limit: Int? = nil) throws(CloudError) -> DatabaseChanges {
        try cloud.databaseChanges(since: token, limit: limit, in: self)
    }

    /// The records saved or deleted in a zone since `token`, in the order
    /// they changed, at most `limit` of them. `known` names, by record name,
    /// the change tags of versions the caller already holds: those are left
    /// out, and the token moves past them as if they had been sent.
    public func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int? = nil,
                            known: [String: String] = [:]) throws(CloudError) -> ZoneChanges {
        try cloud.zoneChanges(in: zone, since: token, limit: limit, known: known, in: self)
    }

    // MARK: History and trash

    /// Earlier versions of a record, oldest first, readable by whoever reads the record.
    public func history(of id: RecordID) throws(CloudError) -> [RecordVersion] { try cloud.history(of: id, in: self) }

    /// Records of `type` deleted from a zone within the trash time that the caller could read.
    public func trash(in zone: ZoneID, type: String) throws(CloudError) -> [DeletedRecord] {
        try cloud.trash(in: zone, type: type, in: self)
    }

    /// Brings records of a zone back from its trash as they last were, in order (a post before its comments),
    /// keeping their creation and history; returns them as the cloud now has them.
    public func restoreDeleted(_ names: [String], in zone: ZoneID) throws(CloudError) -> [Record] {
        try cloud.restoreDeleted(names, in: zone, in: self)
    }

    /// Forgets a zone's deleted records for good (its owner only); returns how many, or how many of type `counting`.
    @discardableResult
    public func emptyTrash(in zone: ZoneID, counting type: String? = nil) throws(CloudError) -> Int {
        try cloud.emptyTrash(in: zone, counting: type, in: self)
    }

    /// How the caller's shares in a zone ended (removed, stopped) and by whom.
    public func endedShares(in zone: ZoneID) throws(CloudError) -> [EndedShare] { try cloud.endedShares(in: zone, in: self) }

    // MARK: Shares

    public func lookUpParticipant(email: String) throws(CloudError) -> ShareParticipant {
        try cloud.lookUpParticipant(email: email, in: self)
    }

    public func lookUpParticipant(accountName: String) throws(CloudError) -> ShareParticipant {
        try cloud.lookUpParticipant(accountName: accountName, in: self)
    }

    public func saveShare(_ share: Share, rootRecord: Record? = nil,
                          policy: SavePolicy = .ifServerRecordUnchanged) throws(CloudError) -> SavedShare {
        try cloud.saveShare(share, rootRecord: rootRecord, policy: policy, in: self)
    }

    public func fetchShare(_ id: RecordID) throws(CloudError) -> Share { try cloud.fetchShare(id, in: self) }

    public func shares(in zone: ZoneID) throws(CloudError) -> [Share] { try cloud.shares(in: zone, in: self) }

    public func deleteShare(_ id: RecordID) throws(CloudError) { try cloud.deleteShare(id, in: self) }

    @discardableResult
    public func addParticipant(_ participant: ShareParticipant, permission: SharePermission,
                               to share: RecordID) throws(CloudError) -> Share {
        try cloud.addParticipant(participant, permission: permission, to: share, in: self)
    }

    @discardableResult
    public func removeParticipant(_ userRecordID: String, from share: RecordID) throws(CloudError) -> Share {
        try cloud.removeParticipant(userRecordID, from: share, in: self)
    }

    @discardableResult
    public func setPermission(_ permission: SharePermission, for userRecordID: String,
                              on share: RecordID) throws(CloudError) -> Share {
        try cloud.setPermission(permission, for: userRecordID, on: share, in: self)
    }

    @discardableResult
    public func setPublicPermission(_ permission: SharePermission, on share: RecordID) throws(CloudError) -> Share {
        try cloud.setPublicPermission(permission, on: share, in: self)
    }

    public func makeOneTimeInvitation(for shareID: RecordID,
                                      permission: SharePermission) throws(CloudError) -> (share: Share, url: ShareURL) {
        try cloud.makeOneTimeInvitation(for: shareID, permission: permission, in: self)
    }

    public func accessRequests(for shareID: RecordID) throws(CloudError) -> [AccessRequest] {
        try cloud.accessRequests(for: shareID, in: self)
    }

    @discardableResult
    public func respond(to userRecordID: String, requestingAccessTo shareID: RecordID,
                        with response: AccessResponse) throws(CloudError) -> Share {
        try cloud.respond(to: userRecordID, requestingAccessTo: shareID, with: response, in: self)
    }
}
