import Cloud

/// How the device's account changed (CKSyncEngine.Event.AccountChange).
public enum AccountChange: Equatable, Sendable {
    case signIn(current: Account)
    case signOut(previous: String)
    case switchAccounts(previous: String, current: Account)
}

/// What a send of zone changes did.
public struct SentDatabaseChanges: Sendable {
    public var savedZones: [ZoneID] = []
    public var failedZoneSaves: [(zone: ZoneID, error: CloudError)] = []
    public var deletedZones: [ZoneID] = []
    public var failedZoneDeletes: [ZoneID: CloudError] = [:]
}

/// What a send of record changes did. Every pending change the engine sent
/// lands in exactly one of these lists; a failed one is no longer pending,
/// and the app decides whether to add it again.
public struct SentRecordZoneChanges: Sendable {
    public var savedRecords: [Record] = []
    /// The record as the app provided it, and why the cloud refused it.
    public var failedRecordSaves: [(record: Record, error: CloudError)] = []
    public var deletedRecordIDs: [RecordID] = []
    public var failedRecordDeletes: [RecordID: CloudError] = [:]
}

/// Everything the engine tells its delegate, one at a time, in order
/// (CKSyncEngine.Event).
public enum SyncEvent: Sendable {
    /// Persist this; hand it back to the next engine.
    case stateUpdate(SyncState.Serialization)
    case accountChange(AccountChange)
    case fetchedDatabaseChanges(modifications: [ZoneID], deletions: [ZoneDeletion])
    case fetchedRecordZoneChanges(modifications: [Record], deletions: [RecordDeletion])
    case sentDatabaseChanges(SentDatabaseChanges)
    case sentRecordZoneChanges(SentRecordZoneChanges)
    case willFetchChanges
    /// `fromScratch`: the zone is fetched without a token (first time, or the
    /// token expired), so what does not arrive before `didFetchRecordZoneChanges`
    /// is no longer in it for this account.
    case willFetchRecordZoneChanges(ZoneID, fromScratch: Bool)
    /// `error`: the cloud's refusal, or the app's own failure to apply a batch (`SyncError.delegateFailed`);
    /// after either, what arrived is not the zone whole.
    case didFetchRecordZoneChanges(ZoneID, error: (any Error)?)
    case didFetchChanges
    case willSendChanges(ZoneScope)
    case didSendChanges(ZoneScope)

    /// The event's name, for logs.
    public var name: String {
        switch self {
        case .stateUpdate: "stateUpdate"
        case .accountChange: "accountChange"
        case .fetchedDatabaseChanges: "fetchedDatabaseChanges"
        case .fetchedRecordZoneChanges: "fetchedRecordZoneChanges"
        case .sentDatabaseChanges: "sentDatabaseChanges"
        case .sentRecordZoneChanges: "sentRecordZoneChanges"
        case .willFetchChanges: "willFetchChanges"
        case .willFetchRecordZoneChanges: "willFetchRecordZoneChanges"
        case .didFetchRecordZoneChanges: "didFetchRecordZoneChanges"
        case .didFetchChanges: "didFetchChanges"
        case .willSendChanges: "willSendChanges"
        case .didSendChanges: "didSendChanges"
        }
    }
}

/// Why the engine asks for a batch.
public struct SendChangesContext: Sendable {
    public var scope: ZoneScope
}

/// The records to save and delete in one request, built from pending
/// changes (CKSyncEngine.RecordZoneChangeBatch).
public struct RecordZoneChangeBatch: Sendable {
    public var recordsToSave: [Record]
    public var recordIDsToDelete: [RecordID]
    /// For deletions of records the app knew a version of, that version's change tag: each is made only while the
    /// record is still that version (`CloudDatabase.modifyRecords`), so no deletion takes a change its device never saw.
    public var deletionTags: [RecordID: String] = [:]
    public var atomicByZone: Bool
    /// Saves the record provider had no record for: the record is gone, so
    /// the engine drops those pending changes.
    public var recordIDsWithoutRecords: [RecordID] = []

    public init(recordsToSave: [Record], recordIDsToDelete: [RecordID], atomicByZone: Bool = false) {
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
        self.atomicByZone = atomicByZone
    }

    /// Takes pending changes in order, up to `maxItems`, asking `recordProvider`
    /// for each record to save only then. A save whose record no longer
    /// exists (the provider returns nil) is left out, and the engine drops it.
    /// Nil when nothing is pending.
    /// How many changes a batch holds unless told otherwise (the cloud's per-request limit).
    public static let defaultMaxItems = 400

    public init?(pendingChanges: [PendingRecordZoneChange], maxItems: Int = defaultMaxItems, atomicByZone: Bool = false,
                 recordProvider: (RecordID) -> Record?) {
        var saves: [Record] = []
        var deletes: [RecordID] = []
        var missing: [RecordID] = []
        for change in pendingChanges where saves.count + deletes.count < maxItems {
            switch change {
            case .saveRecord(let id):
                if let record = recordProvider(id) { saves.append(record) } else { missing.append(id) }
            case .deleteRecord(let id):
                deletes.append(id)
            }
        }
        guard !saves.isEmpty || !deletes.isEmpty || !missing.isEmpty else { return nil }
        self.init(recordsToSave: saves, recordIDsToDelete: deletes, atomicByZone: atomicByZone)
        recordIDsWithoutRecords = missing
    }

    var isEmpty: Bool { recordsToSave.isEmpty && recordIDsToDelete.isEmpty && recordIDsWithoutRecords.isEmpty }
}

/// The app's side of the engine (CKSyncEngineDelegate). Both methods are
/// called on the engine's thread; events arrive one at a time, in order.
public protocol SyncEngineDelegate: AnyObject, Sendable {
    /// Handles one event. Throwing says the app could not take it in: for
    /// fetched changes the engine stops before the token moves past them
    /// (the next fetch brings them again); for sent changes they stay
    /// pending; either way the fetch or send throws `SyncError.delegateFailed`.
    func handleEvent(_ event: SyncEvent, engine: SyncEngine) throws
    /// The next records to send, or nil when nothing (in scope) is left. Throwing (the app cannot read them)
    /// ends the send with `SyncError.delegateFailed`, the changes still pending: a record left out of a batch
    /// would read as one deleted meanwhile, and its change would be dropped.
    func nextRecordZoneChangeBatch(_ context: SendChangesContext, engine: SyncEngine) throws -> RecordZoneChangeBatch?
}
