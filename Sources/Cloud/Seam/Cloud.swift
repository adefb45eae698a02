import Foundation

/// The cloud, wherever it is: a directory on this machine (`LocalCloud`) or
/// a server. The sync core, the stores, the command line and the front end
/// talk to it only through this interface and the `CloudDatabase` handles
/// it gives, so none of them knows which.
///
/// Every request names its caller; the cloud checks each against the
/// caller's rights itself (a server takes the caller from the request's
/// signature, never from its words).
///
/// The per-database requirements take the database they address; callers
/// use them through a `CloudDatabase` (`cloud.database(.private, as: me)`),
/// as CloudKit's `CKDatabase` is a handle on its container.
public protocol Cloud: PushSource {
    // MARK: Which cloud, which people

    /// The cloud's identity and how far its history goes (devices refuse one that changed).
    func identity() throws(CloudError) -> CloudIdentity
    /// Registers `account` again under its own user record ID in a cloud that lost it (a device rebuilding it).
    func restoreAccount(_ account: Account) throws(CloudError) -> Account
    func account(named name: String) throws(CloudError) -> Account
    func account(email: String) throws(CloudError) -> Account?
    func account(id: String) throws(CloudError) -> Account?
    func accounts() throws(CloudError) -> [Account]

    // MARK: Shares by URL, the inbox

    func fetchShareMetadata(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata
    func acceptShare(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata
    func requestAccess(_ url: ShareURL, as caller: Account) throws(CloudError)
    func invitations(for caller: Account) throws(CloudError) -> [InboxInvitation]
    func acceptInvitation(_ id: String, as caller: Account) throws(CloudError) -> ShareMetadata
    func declineInvitation(_ id: String, as caller: Account) throws(CloudError)
    func accessRequests(ownedBy owner: Account) throws(CloudError) -> [OwnedShareRequest]

    // MARK: Records and zones of one database

    func modifyRecords(saving: [Record], deleting: [RecordID], deletionTags: [RecordID: String], policy: SavePolicy, atomically: Bool,
                       in database: CloudDatabase) throws(CloudError) -> ModifyResult
    func records(_ ids: [RecordID], in database: CloudDatabase) throws(CloudError) -> [RecordID: Result<Record, CloudError>]
    func modifyZones(saving: [ZoneID], deleting: [ZoneID], reason: ZoneDeletionReason, deletionTokens: [ZoneID: ChangeToken],
                     in database: CloudDatabase) throws(CloudError) -> ZoneModifyResult
    func fetchZone(_ zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> ZoneID
    func allZones(in database: CloudDatabase) throws(CloudError) -> [ZoneID]

    // MARK: Changes

    func databaseChanges(since token: ChangeToken?, limit: Int?, in database: CloudDatabase) throws(CloudError) -> DatabaseChanges
    func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int?, known: [String: String],
                     in database: CloudDatabase) throws(CloudError) -> ZoneChanges

    // MARK: History and trash

    func history(of id: RecordID, in database: CloudDatabase) throws(CloudError) -> [RecordVersion]
    func trash(in zone: ZoneID, type: String, in database: CloudDatabase) throws(CloudError) -> [DeletedRecord]
    func restoreDeleted(_ names: [String], in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Record]
    /// Forgets every deleted record of the zone; counts those of `counting` (every type when nil).
    func emptyTrash(in zone: ZoneID, counting type: String?, in database: CloudDatabase) throws(CloudError) -> Int
    func endedShares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [EndedShare]

    // MARK: Shares

    func lookUpParticipant(email: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant
    func lookUpParticipant(accountName: String, in database: CloudDatabase) throws(CloudError) -> ShareParticipant
    func saveShare(_ share: Share, rootRecord: Record?, policy: SavePolicy, in database: CloudDatabase) throws(CloudError) -> SavedShare
    func fetchShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError) -> Share
    func shares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Share]
    func deleteShare(_ id: RecordID, in database: CloudDatabase) throws(CloudError)
    func addParticipant(_ participant: ShareParticipant, permission: SharePermission, to share: RecordID,
                        in database: CloudDatabase) throws(CloudError) -> Share
    func removeParticipant(_ userRecordID: String, from share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share
    func setPermission(_ permission: SharePermission, for userRecordID: String, on share: RecordID,
                       in database: CloudDatabase) throws(CloudError) -> Share
    func setPublicPermission(_ permission: SharePermission, on share: RecordID, in database: CloudDatabase) throws(CloudError) -> Share
    func makeOneTimeInvitation(for shareID: RecordID, permission: SharePermission,
                               in database: CloudDatabase) throws(CloudError) -> (share: Share, url: ShareURL)
    func accessRequests(for shareID: RecordID, in database: CloudDatabase) throws(CloudError) -> [AccessRequest]
    func respond(to userRecordID: String, requestingAccessTo shareID: RecordID, with response: AccessResponse,
                 in database: CloudDatabase) throws(CloudError) -> Share
}

extension Cloud {
    /// One account's view of one database, through which every request is made and checked.
    public func database(_ scope: DatabaseScope, as caller: Account) -> CloudDatabase {
        CloudDatabase(cloud: self, scope: scope, caller: caller)
    }
}
