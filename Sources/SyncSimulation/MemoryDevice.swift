import Cloud
import Foundation
import Sync

/// An app's data on one device, kept in memory: items of string fields,
/// each with the last record the cloud confirmed. It drives a private and a
/// shared engine the way Apple's sample app drives CKSyncEngine, and
/// "persists" a snapshot of itself with every state update, so a crash can
/// throw away everything after the last one.
public final class MemoryDevice: SyncEngineDelegate, @unchecked Sendable {
    public struct Item: Equatable, Sendable {
        public var id: RecordID
        public var type: String
        public var fields: [String: String]
        public var parent: String?
        /// The cloud's copy as last seen; nil until first saved.
        public var lastKnown: Record?
        /// Deleted here, not yet confirmed by the cloud: hidden, but kept so a
        /// refused deletion can bring it back.
        public var isDeleted = false
    }

    /// What the device would find on disk after a crash.
    struct Snapshot {
        var items: [DatabaseScope: [RecordID: Item]]
        var states: [DatabaseScope: SyncState.Serialization]
    }

    public let name: String
    public let cloud: any Cloud
    public let account: SwitchableAccount
    private let lock = NSLock()
    private var items: [DatabaseScope: [RecordID: Item]] = [.private: [:], .shared: [:]]
    private var states: [DatabaseScope: SyncState.Serialization] = [:]
    private var saved: Snapshot
    private var engines: [DatabaseScope: SyncEngine] = [:]
    private var seen: [ZoneID: Set<RecordID>] = [:]
    private let log: SyncLog?
    /// Writes the cloud acknowledged: (record, change tag), for checks.
    public private(set) var acknowledged: [(RecordID, String)] = []
    /// Refusals reported by the engine, for checks and tests.
    public private(set) var refusals: [(RecordID, CloudError)] = []
    /// While set, events are ignored: the process is "dead".
    private var crashed = false
    /// Set by the simulation: the next batch of fetched changes cannot be applied (a store write fails).
    public var failNextApply = false
    public struct ApplyFailed: Error, CustomStringConvertible {
        public var description: String { "the device could not store the fetched records (planted)" }
    }

    public init(name: String, cloud: any Cloud, account: Account, log: SyncLog? = nil) throws {
        self.name = name
        self.cloud = cloud
        self.account = SwitchableAccount(account)
        self.log = log
        saved = Snapshot(items: [.private: [:], .shared: [:]], states: [:])
        try startEngines()
    }

    // MARK: Engines

    public func engine(_ scope: DatabaseScope) -> SyncEngine { lock.withLock { engines[scope]! } }

    private func startEngines() throws {
        for scope in [DatabaseScope.private, .shared] {
            let config = SyncEngine.Configuration(
                cloud: cloud, scope: scope, account: account, stateSerialization: saved.states[scope], delegate: self,
                automaticallySync: false, deviceName: name, log: log)
            let engine = try SyncEngine(config)
            lock.withLock { engines[scope] = engine }
        }
    }

    /// The process dies: everything since the last persisted state is lost,
    /// and new engines start from that state.
    public func crashAndRestart() throws {
        lock.withLock {
            items = saved.items
            states = saved.states
            crashed = false
            seen = [:]
        }
        try startEngines()
    }

    /// From now until `crashAndRestart`, the device hears nothing: it died mid-request.
    public func die() { lock.withLock { crashed = true } }

    /// The cloud is not the one this device synced with (emptied, or an older
    /// copy put back): the device takes it as it is now and sends everything
    /// it holds again, as new; where the cloud kept a version, this device's
    /// fields go over it.
    public func reupload() throws {
        let identity = try cloud.identity()
        if let account = account.currentAccount() { _ = try cloud.restoreAccount(account) }
        var saves: [DatabaseScope: [PendingRecordZoneChange]] = [:]
        lock.withLock {
            for scope in [DatabaseScope.private, .shared] {
                for (id, item) in items[scope]! {
                    items[scope]![id]?.lastKnown = nil
                    if !item.isDeleted { saves[scope, default: []].append(.saveRecord(id)) }
                }
            }
        }
        for scope in [DatabaseScope.private, .shared] {
            engine(scope).adopt(identity)
            if scope == .private {
                let zones = Set(items(.private).keys.map(\.zone)).map { PendingDatabaseChange.saveZone($0) }
                engine(scope).state.add(pendingDatabaseChanges: zones.sorted { $0.zoneID.description < $1.zoneID.description })
            }
            engine(scope).state.add(pendingRecordZoneChanges: (saves[scope] ?? []).sorted { $0.recordID.description < $1.recordID.description })
        }
    }

    // MARK: The app's own changes

    /// The items the user sees (not those deleted and awaiting confirmation).
    public func items(_ scope: DatabaseScope) -> [RecordID: Item] { lock.withLock { items[scope]!.filter { !$0.value.isDeleted } } }

    public func item(_ id: RecordID, in scope: DatabaseScope) -> Item? {
        lock.withLock { items[scope]![id].flatMap { $0.isDeleted ? nil : $0 } }
    }

    /// Creates or edits an item and marks it for sending, as a user edit would.
    public func write(_ id: RecordID, type: String = "Item", fields: [String: String], parent: String? = nil, in scope: DatabaseScope) {
        lock.withLock {
            var item = items[scope]![id] ?? Item(id: id, type: type, fields: [:], parent: parent, lastKnown: nil)
            item.isDeleted = false
            for (key, value) in fields { item.fields[key] = value }
            if parent != nil { item.parent = parent }
            items[scope]![id] = item
        }
        engine(scope).state.add(pendingRecordZoneChanges: [.saveRecord(id)])
    }

    public func delete(_ id: RecordID, in scope: DatabaseScope) {
        lock.withLock {
            if items[scope]![id]?.lastKnown == nil {
                items[scope]![id] = nil  // never reached the cloud: nothing to confirm
            } else {
                items[scope]![id]?.isDeleted = true
            }
        }
        engine(scope).state.add(pendingRecordZoneChanges: [.deleteRecord(id)])
    }

    /// Asks for a zone. One whose deletion is still to be sent waits: a save
    /// would replace that intent, and the records dropped with it would stay
    /// in the cloud, unseen here.
    public func createZone(_ zone: ZoneID) {
        let state = engine(.private).state
        guard !state.pendingDatabaseChanges.contains(.deleteZone(zone)) else { return }
        state.add(pendingDatabaseChanges: [.saveZone(zone)])
    }

    public func deleteZone(_ zone: ZoneID) {
        lock.withLock { items[.private] = items[.private]!.filter { $0.key.zone != zone } }
        let state = engine(.private).state
        state.remove(pendingRecordZoneChanges: state.pendingRecordZoneChanges.filter { $0.recordID.zone == zone })
        state.add(pendingDatabaseChanges: [.deleteZone(zone)])
    }

    /// The record to send for an item: its last known record with the local fields over it.
    private func record(for id: RecordID, in scope: DatabaseScope) -> Record? {
        guard let item = lock.withLock({ items[scope]![id] }), !item.isDeleted else { return nil }
        var record = item.lastKnown ?? Record(type: item.type, id: id)
        for (key, value) in item.fields where record[key] != .string(value) { record[key] = .string(value) }
        if item.parent != record.parent { record.setParent(item.parent) }
        return record
    }

    // MARK: SyncEngineDelegate

    public func nextRecordZoneChangeBatch(_ context: SendChangesContext, engine: SyncEngine) -> RecordZoneChangeBatch? {
        let pending = engine.state.pendingRecordZoneChanges.filter { context.scope.contains($0.recordID.zone) }
        return RecordZoneChangeBatch(pendingChanges: pending) { record(for: $0, in: engine.scope) }
    }

    public func handleEvent(_ event: SyncEvent, engine: SyncEngine) throws {
        if lock.withLock({ crashed }) { return }
        let scope = engine.scope
        switch event {
        case .stateUpdate(let serialization):
            lock.withLock {
                states[scope] = serialization
                saved = Snapshot(items: items, states: states)
            }
        case .accountChange(let change):
            if case .signIn = change { return }
            lock.withLock { items[scope] = [:] }  // the previous account's data is no longer shown
        case .fetchedDatabaseChanges(_, let deletions):
            let gone = Set(deletions.map(\.zone))
            let waiting = Set(engine.state.pendingRecordZoneChanges.map(\.recordID))
            let kept = lock.withLock {
                if scope == .shared { return gone.sorted { $0.description < $1.description }.flatMap { keepWaiting(in: $0, waiting: waiting) } }
                items[scope] = items[scope]!.filter { !gone.contains($0.key.zone) }
                return []
            }
            adoptKept(kept)
            engine.state.remove(pendingRecordZoneChanges: engine.state.pendingRecordZoneChanges.filter { gone.contains($0.recordID.zone) })
            engine.state.remove(pendingDatabaseChanges: engine.state.pendingDatabaseChanges.filter { gone.contains($0.zoneID) && scope == .shared })
        case .fetchedRecordZoneChanges(let modifications, let deletions):
            if lock.withLock({ defer { failNextApply = false }; return failNextApply }) { throw ApplyFailed() }
            applyFetched(modifications, deletions, scope: scope, engine: engine)
        case .willFetchRecordZoneChanges(let zone, let fromScratch):
            lock.withLock { seen[zone] = fromScratch ? [] : nil }
        case .didFetchRecordZoneChanges(let zone, let error):
            finishZoneFetch(zone, error: error, scope: scope, engine: engine)
        case .sentDatabaseChanges(let sent):
            // A zone that cannot be created here is not ours to keep; one deleted took what it held (written here after
            // its deletion was asked, too: sync seed 100825 held a record of it the cloud no longer had).
            let gone = Set(sent.failedZoneSaves.map(\.0) + sent.deletedZones)
            if !gone.isEmpty { lock.withLock { items[scope] = items[scope]!.filter { !gone.contains($0.key.zone) } } }
        case .sentRecordZoneChanges(let sent):
            applySent(sent, scope: scope, engine: engine)
        case .willFetchChanges, .didFetchChanges, .willSendChanges, .didSendChanges:
            break
        }
    }

    private func applyFetched(_ modifications: [Record], _ deletions: [RecordDeletion], scope: DatabaseScope, engine: SyncEngine) {
        let pending = Set(engine.state.pendingRecordZoneChanges)
        lock.withLock {
            for record in modifications where record.type != Share.recordType {
                seen[record.id.zone]?.insert(record.id)
                var item = items[scope]![record.id]
                    ?? Item(id: record.id, type: record.type, fields: [:], parent: record.parent, lastKnown: nil)
                if pending.contains(.deleteRecord(record.id)) {  // deleted here, not yet sent
                    // Held, marked deleted, even where nothing of it is left here: a refused deletion puts the cloud's
                    // back (sync seed 101038 lost a record so, its deletion refused read-only).
                    item.lastKnown = record
                    item.isDeleted = true
                    items[scope]![record.id] = item
                    continue
                }
                if !pending.contains(.saveRecord(record.id)) {
                    item.fields = Self.strings(record)  // no local edit waiting: take the cloud's
                    item.parent = record.parent
                }
                item.lastKnown = record
                items[scope]![record.id] = item
            }
            for deletion in deletions { items[scope]![deletion.id] = nil }
        }
        let dropped = deletions.map { PendingRecordZoneChange.saveRecord($0.id) }.filter(pending.contains)
        if !dropped.isEmpty { engine.state.remove(pendingRecordZoneChanges: dropped) }
    }

    /// After a from-scratch fetch, what did not arrive is no longer there.
    private func finishZoneFetch(_ zone: ZoneID, error: (any Error)?, scope: DatabaseScope, engine: SyncEngine) {
        let pending = Set(engine.state.pendingRecordZoneChanges.map(\.recordID))
        let kept = lock.withLock { () -> [PendingRecordZoneChange] in
            defer { seen[zone] = nil }
            if let error {
                guard let error = error as? CloudError, error == .zoneNotFound(zone) || error.code == "permissionFailure" else { return [] }
                // Access to the zone ended: what waits to be sent there is kept as this account's own. (Private: it was
                // deleted, and what waits to be sent stays and re-creates it.)
                if scope == .shared { return keepWaiting(in: zone, waiting: pending) }
                items[scope] = items[scope]!.filter { $0.key.zone != zone || pending.contains($0.key) }
                return []
            }
            guard let arrived = seen[zone] else { return [] }
            items[scope] = items[scope]!.filter { $0.key.zone != zone || arrived.contains($0.key) || pending.contains($0.key) }
            return []
        }
        adoptKept(kept)
    }

    /// Where a device keeps, as its account's own, what it wrote into a zone shared with it that the cloud no
    /// longer has (the share ended, or the cloud was emptied or put back): a zone of its own, each record "r" and the
    /// name it had.
    public static let keptZoneName = "Kept"

    private func applySent(_ sent: SentRecordZoneChanges, scope: DatabaseScope, engine: SyncEngine) {
        var resend: [PendingRecordZoneChange] = []
        var zonesToCreate: [PendingDatabaseChange] = []
        var kept: [PendingRecordZoneChange] = []
        let waiting = Set(engine.state.pendingRecordZoneChanges.map(\.recordID)).union(sent.failedRecordSaves.map(\.0.id))
        lock.withLock {
            for record in sent.savedRecords {
                acknowledged.append((record.id, record.changeTag ?? ""))
                // The cloud's record as saved: a field this device never held (someone else's) stays in it.
                items[scope]![record.id]?.lastKnown = record
                items[scope]![record.id]?.fields = Self.strings(record)
            }
            for id in sent.deletedRecordIDs where items[scope]![id]?.isDeleted == true { items[scope]![id] = nil }
            for (id, error) in sent.failedRecordDeletes {
                if scope == .private, case .zoneNotFound = error {
                    items[scope]![id] = nil  // its zone is gone, and it with it: deleted all the same
                    continue
                }
                refusals.append((id, error))
                // Refused (read-only, out of reach): it is still there, as the cloud has it, not with
                // the edit this device made before deleting it.
                items[scope]![id]?.isDeleted = false
                if let known = items[scope]![id]?.lastKnown {
                    items[scope]![id]?.fields = Self.strings(known)
                    items[scope]![id]?.parent = known.parent
                }
            }
            for (record, error) in sent.failedRecordSaves {
                refusals.append((record.id, error))
                switch error {
                case .serverRecordChanged(let server):
                    // Keep the local edit over the cloud's newer record, and send it again.
                    items[scope]![record.id]?.lastKnown = server
                    if items[scope]![record.id] != nil { resend.append(.saveRecord(record.id)) }
                case .zoneNotFound where scope == .private:
                    zonesToCreate.append(.saveZone(record.id.zone))
                    items[scope]![record.id]?.lastKnown = nil
                    resend.append(.saveRecord(record.id))
                case .unknownItem:
                    items[scope]![record.id] = nil  // deleted elsewhere meanwhile: the deletion wins
                case .zoneNotFound(let zone) where scope == .shared:
                    kept += keepWaiting(in: zone, waiting: waiting)
                default:
                    // Refused (read-only, out of reach): go back to the cloud's version.
                    if let known = items[scope]![record.id]?.lastKnown {
                        items[scope]![record.id]?.fields = Self.strings(known)
                        items[scope]![record.id]?.parent = known.parent
                    } else {
                        items[scope]![record.id] = nil
                    }
                }
            }
        }
        if !zonesToCreate.isEmpty { engine.state.add(pendingDatabaseChanges: zonesToCreate) }
        if !resend.isEmpty { engine.state.add(pendingRecordZoneChanges: resend) }
        adoptKept(kept)
    }

    /// Access to a shared zone ended, or the cloud lost it: what waits to be sent there is kept as this account's
    /// own (nothing typed is lost, as the app keeps it: `DeviceStore.dropZones`), then the zone goes. Called under
    /// the lock; returns the copies to send.
    private func keepWaiting(in zone: ZoneID, waiting: Set<RecordID>) -> [PendingRecordZoneChange] {
        var kept: [PendingRecordZoneChange] = []
        if let me = account.currentAccount()?.id {
            let home = ZoneID(name: Self.keptZoneName, owner: me)
            for (id, item) in items[.shared]! where id.zone == zone && waiting.contains(id) && !item.isDeleted {
                var name = "r" + id.name, n = 1
                while items[.private]![RecordID(name: name, zone: home)] != nil { n += 1; name = "r\(id.name)-\(n)" }
                let copy = RecordID(name: name, zone: home)
                items[.private]![copy] = Item(id: copy, type: item.type, fields: item.fields, parent: nil, lastKnown: nil)
                kept.append(.saveRecord(copy))
            }
        }
        items[.shared] = items[.shared]!.filter { $0.key.zone != zone }
        return kept
    }

    private func adoptKept(_ kept: [PendingRecordZoneChange]) {
        guard let first = kept.first else { return }
        let own = engine(.private)
        own.state.add(pendingDatabaseChanges: [.saveZone(first.recordID.zone)])
        own.state.add(pendingRecordZoneChanges: kept)
    }

    static func strings(_ record: Record) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in record.fields { if case .string(let s) = value { out[key] = s } }
        return out
    }
}
