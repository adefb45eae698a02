import Cloud
import Foundation
import Sync

/// Drives a device's two engines (private and shared) over its store, the
/// way Core Data's cloud-mirroring container does: it loads the store's
/// pending changes into the engines, builds records from rows, applies what
/// they fetch, and handles every failure they report.
public final class NotesSync: SyncEngineDelegate, @unchecked Sendable {
    public let store: DeviceStore
    public let cloud: any Cloud
    public let account: any AccountSource
    private var engines: [DatabaseScope: SyncEngine] = [:]
    private let lock = NSLock()
    private var arrived: [ZoneID: Set<String>] = [:]
    /// What the cloud refused and the user should hear about.
    public private(set) var refusals: [Refusal] = []
    private var arrivals: [Arrival] = []
    /// Fetches and sends under way, by scope.
    private var operations: [DatabaseScope: Int] = [:]
    /// The cloud (its identity) this device's public key is known to be published in. A cloud emptied or put
    /// back may have lost it, and a publish that failed is tried again: without it the owners of the shares
    /// this account joined can grant it no notebook key, and their locations stay sealed to it.
    private var keyPublishedIn: String?
    /// Notebooks brought back this round for what waited in them, with the posts the cloud held in them (`DroppedZones.held`).
    private var broughtBackHeld: [ZoneID: Set<String>] = [:]
    /// Where the cloud said posts of this account's went from each notebook (a save refused naming the post elsewhere,
    /// which the edit followed) this round: a rename, where the notebook is gone too.
    private var followedFrom: [ZoneID: Set<ZoneID>] = [:]

    public init(store: DeviceStore, cloud: any Cloud, account: any AccountSource, automaticallySync: Bool = false,
                deviceName: String = "device", log: SyncLog? = nil) throws {
        self.store = store
        self.cloud = cloud
        self.account = account
        let names = try AccountDirectory(cloud: cloud)
        store.names = { names.name($0) }  // for conflict labels written while syncing
        for scope in [DatabaseScope.private, .shared] {
            func engine(_ saved: SyncState.Serialization?) throws -> SyncEngine {
                var configuration = SyncEngine.Configuration(cloud: cloud, scope: scope, account: account, stateSerialization: saved,
                                                             delegate: self, automaticallySync: automaticallySync, deviceName: deviceName, log: log)
                configuration.zoneDeletionsNameTheirTokens = true  // a notebook deleted here never takes what its person did not see
                return try SyncEngine(configuration)
            }
            // A damaged saved state is dropped: pending changes live in the store's own table and
            // are loaded below, and without tokens the engine fetches everything again. Nothing is lost.
            let saved = try? engine(try? store.savedState(scope))
            let made = try saved ?? engine(nil)
            lock.withLock { engines[scope] = made }
        }
        try loadPending()
    }

    public func engine(_ scope: DatabaseScope) -> SyncEngine { lock.withLock { engines[scope]! } }

    public func stop() { for scope in [DatabaseScope.private, .shared] { engine(scope).stop() } }

    /// Hands the store's pending changes (some written by other processes) to the engines.
    public func loadPending() throws {
        for scope in [DatabaseScope.private, .shared] {
            let (records, zones) = try store.pending(scope)
            if !zones.isEmpty { engine(scope).state.add(pendingDatabaseChanges: zones) }
            if !records.isEmpty { engine(scope).state.add(pendingRecordZoneChanges: records) }
        }
    }

    /// The databases a device mirrors.
    public static let scopes: Set<DatabaseScope> = [.private, .shared]

    /// Sends, then fetches, both databases, and sends again what a merge
    /// re-added (a few rounds at most); notes when and how it went.
    public func syncNow() throws { try sync(.everything(Self.scopes)) }

    /// One round of what `round` asks, database by database: sends, fetches, and sends again what a merge
    /// re-added (a few rounds at most); notes when and how it went.
    public func sync(_ round: SyncRound) throws {
        do {
            try loadPending()
        } catch {
            // A waiting change this version cannot read stops the sync: sending around it could lose it.
            try store.noteSync(synced: nil, error: "\(error)")
            throw error
        }
        var firstError: (any Error)?
        for scope in [DatabaseScope.private, .shared] where round.scopes.contains(scope) {
            do {
                if scope == .private { try store.prepareZoneKeys() }
                try store.mergeUnopenedLocations(scope)
                if round.send.contains(scope) { try engine(scope).sendChanges() }
                if round.fetch.contains(scope) {
                    try engine(scope).fetchChanges()
                    if scope == .private { try followRenames() }
                }
                for _ in 0..<3 where !engine(scope).state.pendingRecordZoneChanges.isEmpty {
                    if scope == .private { try store.prepareZoneKeys() }  // a zone the first send created has none yet
                    try store.mergeUnopenedLocations(scope)  // a key the fetch brought opens a location typed over
                    try engine(scope).sendChanges()
                }
                if scope == .private {
                    try store.repairKeyGrants()
                    try publishKeyIfNeeded()
                }
            } catch {
                firstError = firstError ?? error
                // The cloud did not answer: the next database would wait on it the same way, for nothing.
                if let error = error as? CloudError, error == .networkFailure || error == .networkUnavailable { break }
            }
        }
        // Not an error, but the reason something waits: a participant's device without the notebook's key yet.
        let waiting = firstError == nil ? try store.locationsWaitingForKeys() : []
        let note = waiting.isEmpty ? nil : "the location of a post in \(waiting.map { "\($0.name)" }.joined(separator: ", ")) waits for "
            + "the notebook's key: its owner's devices grant it to this device when they next sync"
        try store.noteSync(synced: firstError == nil ? store.now() : nil, error: firstError.map(explain) ?? note)
        if let firstError { throw firstError }
    }

    /// A sync's failure as a person reads it: what failed, in the app's words (a notebook by its name and
    /// owner), and what to do where the app offers a way.
    public func explain(_ error: any Error) -> String {
        guard let error = error as? SyncError else { return "\(error)" }
        switch error {
        case .zoneUnreadable(let zone, let cause):
            let whose = zone.owner == account.currentAccount()?.id ? "" : " (\(store.names(zone.owner))'s)"
            return "cannot read notebook \(zone.name)\(whose) from the cloud: \(cause); this device keeps what it had of it and "
                + "asks again at the next sync (if it lasts, the cloud's operator can look: cloudnotes cloud check)"
        default:
            return error.remedy.map { "\(error); \($0)" } ?? "\(error)"
        }
    }

    private func publishKeyIfNeeded() throws {
        guard let keyring = store.keyring, let cloudID = engine(.private).syncedWith.cloud,
              lock.withLock({ keyPublishedIn }) != cloudID else { return }
        try keyring.publish()
        lock.withLock { keyPublishedIn = cloudID }
    }

    /// Rebuilds a cloud that lost this device's data (emptied, replaced, or
    /// restored from an older copy; the engines refuse it with
    /// `SyncError.cloudChanged` until then): takes the cloud as it is now,
    /// registers the account again under its own user record ID if the cloud
    /// lost it, and sends every notebook, post and comment this device holds
    /// as new. Where the cloud still has a version, the two merge, keeping
    /// whatever either holds (nothing tells which is newer). Other devices of
    /// the account do the same, and everything converges.
    public func reupload() throws {
        guard let account = account.currentAccount() else { throw SyncError.signedOut }
        let identity = try cloud.identity()
        let known = [DatabaseScope.private, .shared].map { engine($0).syncedWith }
        if let owner = known.compactMap(\.account).first(where: { $0 != account.id }) {
            throw StoreError.invalid("this device holds the data of another account (user record \(owner)), not of \(account.name) "
                                     + "as the cloud knows it now (\(account.id)); nothing was sent")
        }
        // Either engine may still know the old cloud (a rebuild cut short after the other took the new one).
        if known.allSatisfy({ $0.cloud == identity.id }) {
            throw StoreError.invalid("the cloud is the one this device synced with: there is nothing to rebuild (cloudnotes sync sends what waits)")
        }
        _ = try cloud.restoreAccount(account)
        try store.prepareReupload()
        for scope in [DatabaseScope.private, .shared] { engine(scope).adopt(identity) }
        try syncNow()
    }

    /// How many invitations wait for this account and how many people ask to join its shares, asked of the
    /// cloud after a round (off the front end's thread: the cloud may be a server); nil if it cannot say now.
    public func inboxCount() -> InboxCount? {
        guard let me = account.currentAccount(),
              let invitations = try? cloud.invitations(for: me),
              let requests = try? cloud.accessRequests(ownedBy: me) else { return nil }
        return InboxCount(invitations: invitations.count, requests: requests.filter { $0.request.status == .pending }.count)
    }

    /// What arrived from the cloud since the last call, and the refusals to tell; both then start afresh.
    public func takeNews() -> (arrivals: [Arrival], refusals: [Refusal]) {
        lock.withLock {
            defer { arrivals = []; refusals = [] }
            return (arrivals, refusals)
        }
    }

    // MARK: SyncEngineDelegate

    public func nextRecordZoneChangeBatch(_ context: SendChangesContext, engine: SyncEngine) throws -> RecordZoneChangeBatch? {
        let limit = RecordZoneChangeBatch.defaultMaxItems
        let pending = Self.keepingMovesWhole(engine.state.pendingRecordZoneChanges(in: context.scope, limit: 2 * limit), limit: limit)
        // The records of the batch are read in one transaction, not one each.
        let saves = pending.compactMap { change -> RecordID? in
            if case .saveRecord(let id) = change { id } else { nil }
        }
        // A store that does not read fails the send, which says why: a record left out would read as one deleted
        // meanwhile, and its change would be dropped.
        let prepared = try store.records(for: saves, in: engine.scope)
        var batch = RecordZoneChangeBatch(pendingChanges: pending) { id in prepared[id] }
        if let deletes = batch?.recordIDsToDelete, !deletes.isEmpty {
            // Each deletion names the version its person saw; one of a record never seen here (a cloud rebuilt since,
            // a move sent again) names none, so whatever another device put there is not taken unseen (app seed 99310).
            let known = try store.knownChangeTags(deletes, in: engine.scope)
            batch?.deletionTags = Dictionary(uniqueKeysWithValues: deletes.map { ($0, known[$0] ?? "") })
        }
        return batch
    }

    /// The first `limit` of `pending`, cut short before a move that would otherwise be sent in two requests: a post
    /// (or comment) saved into one notebook and deleted from another goes in one, so its original is not deleted as
    /// any record would be before its copy moves it (`LocalDatabase+Moves` in the cloud). A move longer than a whole
    /// batch goes as it comes.
    static func keepingMovesWhole(_ pending: [PendingRecordZoneChange], limit: Int) -> [PendingRecordZoneChange] {
        guard pending.count > limit else { return pending }
        let later = Set(pending[limit...].map(\.recordID.name))
        let cut = pending.prefix(limit).firstIndex { change in
            later.contains(change.recordID.name) && pending[limit...].contains { $0.recordID.name == change.recordID.name && $0 != change }
        }
        guard let cut, cut > 0 else { return Array(pending.prefix(limit)) }
        return Array(pending.prefix(cut))
    }

    public func handleEvent(_ event: SyncEvent, engine: SyncEngine) throws {
        let scope = engine.scope
        switch event {
        case .stateUpdate(let state):
            // Within a fetch or send the state rides on the store's next write; otherwise it is saved now.
            if lock.withLock({ operations[scope, default: 0] }) > 0 {
                store.stageState(scope, state)
            } else {
                try store.saveState(scope, state)
            }
        case .accountChange(let change):
            if case .signIn = change { return }
            try store.reset()
        case .fetchedDatabaseChanges(let modifications, let deletions):
            if scope == .shared { try noteEndedShares(deletions.map(\.zone)) }
            try drop(scope, deletions.map(\.zone), because: { .zoneNotFound($0.zone) })
            try store.noteNotebooks(scope, modifications)
        case .fetchedRecordZoneChanges(let modifications, let deletions):
            lock.withLock { for r in modifications { arrived[r.id.zone]?.insert(r.id.name) } }
            let shares = modifications.filter { $0.type == Share.recordType }
            let before = try store.knownShares(scope, shares.map(\.id))
            let applied = try store.applyFetched(scope, modifications: modifications, deletions: deletions)
            lock.withLock { arrivals += applied.arrivals }
            tellRescued(applied.rescued, because: { .unknownItem($0) }, outcome: DeviceStore.keptCommentNote)
            take(applied.undone, engine: engine, because: Self.unreadableChange)
            try noteShareChanges(shares, before: before, scope: scope)
            if scope == .private { try undoMovesOfSharedPosts(shares, engine: engine) }
        case .willFetchRecordZoneChanges(let zone, let fromScratch):
            lock.withLock { arrived[zone] = fromScratch ? [] : nil }
        case .didFetchRecordZoneChanges(let zone, let error):
            let seen = lock.withLock { arrived.removeValue(forKey: zone) }
            if let error = error as? CloudError, error == .zoneNotFound(zone) || (scope == .shared && error.code == "permissionFailure") {
                // Access to the zone ended, or (private) it was deleted.
                if scope == .shared { try noteEndedShares([zone]) }
                try drop(scope, [zone], because: { _ in error })
            } else if error == nil, let seen {
                try store.prune(scope, zone: zone, keeping: seen)
            }
        case .sentDatabaseChanges(let sent):
            try store.zonesSent(scope, sent)
            let changed = sent.failedZoneDeletes.compactMap { zone, error -> ZoneID? in if case .zoneChanged = error { zone } else { nil } }
            let back = changed.map {
                Refusal(RecordID(name: $0.name, zone: $0), .zoneChanged($0), outcome: "not deleted: the notebook changed after you saw it (on another "
                        + "device, or by someone it is shared with), and is back as it is now; delete it again to delete it")
            }
            lock.withLock { refusals += back }
        case .sentRecordZoneChanges(let sent):
            if scope == .shared {
                // A shared notebook gone while changes to it waited: its shares are told of before its rows go with it
                // (after, nothing here knew them, and a participant removed with an edit waiting heard nothing of it).
                let gone = sent.failedRecordSaves.compactMap { _, error -> ZoneID? in if case .zoneNotFound(let zone) = error { zone } else { nil } }
                try noteEndedShares(Array(Set(gone)))
            }
            if scope == .private {
                let followed = sent.failedRecordSaves.compactMap { record, error -> (ZoneID, ZoneID)? in
                    guard case .serverRecordChanged(let server) = error, server.type == Post.recordType, server.id.zone != record.id.zone
                    else { return nil }
                    return (record.id.zone, server.id.zone)
                }
                lock.withLock { for (from, to) in followed { followedFrom[from, default: []].insert(to) } }
            }
            let (records, zones, refused, undone) = try store.applySent(scope, sent)
            lock.withLock { refusals += refused }
            take(undone, engine: engine, because: Self.unreadableChange)
            if !zones.isEmpty { engine.state.add(pendingDatabaseChanges: zones) }
            if !records.isEmpty { engine.state.add(pendingRecordZoneChanges: records) }
            // What a refusal kept as a post of its own waits in the store: it goes out in this round, not the next.
            if !refused.isEmpty { try loadPending() }
        case .willFetchChanges, .willSendChanges:
            lock.withLock { operations[scope, default: 0] += 1 }
        case .didFetchChanges, .didSendChanges:
            lock.withLock { operations[scope, default: 0] -= 1 }
            try store.saveStagedStates()
        }
    }
}

extension NotesSync {
    /// A post this device moved while another device of the account shared it stays where it was (moved, its
    /// share would end, and those it was shared with would lose it unheard); the person is told.
    private func undoMovesOfSharedPosts(_ shares: [Record], engine: SyncEngine) throws {
        let roots = shares.compactMap { record -> RecordID? in
            guard let share = try? Share(record: record), let root = share.rootRecord else { return nil }  // (one that does not read: none)
            return RecordID(name: root, zone: record.id.zone)
        }
        take(try store.undoMoves(ofSharedRoots: roots), engine: engine) { post in
            Refusal(post.recordID, .invalidArguments("shared meanwhile"),
                    outcome: "\"\(post.title)\" was shared on another device meanwhile: moved, its share would end, so it stays in \(post.zone.name)",
                    kind: .undoneHere)
        }
    }

    /// A move undone because the post changed on another device in a way this device cannot read yet: moved, the
    /// change would be sealed for a notebook it no longer is in, and lost.
    static func unreadableChange(_ post: Post) -> Refusal {
        Refusal(post.recordID, .invalidArguments("changed meanwhile"),
                outcome: "\"\(post.title)\" was changed on another device, and its location cannot be opened here yet (the notebook's key has "
                    + "not reached this device): moved, it would be lost, so the post stays in \(post.zone.name); move it again after a sync",
                kind: .undoneHere)
    }

    /// Moves the store undid: the engine no longer sends them, and the person hears of each post put back.
    private func take(_ undone: UndoneMoves, engine: SyncEngine, because note: (Post) -> Refusal) {
        guard !undone.isEmpty else { return }
        engine.state.remove(pendingRecordZoneChanges: undone.dropped)
        engine.state.add(pendingRecordZoneChanges: undone.added)
        lock.withLock { refusals += undone.back.map(note) }
    }

    /// Notices of what changed in shares just fetched: who accepted or left (as their owner), a new permission.
    private func noteShareChanges(_ records: [Record], before: [RecordID: Share], scope: DatabaseScope) throws {
        guard let me = account.currentAccount()?.id else { return }
        let notices = records.flatMap { record -> [Notice] in
            // (A share record that does not read makes no notice; the record itself is applied as fetched.)
            guard let share = try? Share(record: record) else { return [] }
            return Notice.changes(from: before[record.id], to: share, savedBy: record.system?.modifiedBy, scope: scope, me: me,
                                  at: record.system?.modifiedAt ?? .distantPast)
        }
        try store.addNotices(notices)
    }

    /// Notices of shares this account no longer takes part in, before their zones are dropped: the cloud says how
    /// each ended (removed, stopped) and by whom. A cloud that cannot say now costs only the notice.
    private func noteEndedShares(_ zones: [ZoneID]) throws {
        guard let me = account.currentAccount() else { return }
        for zone in zones {
            let known = try store.knownShares(.shared, zone: zone)
            guard !known.isEmpty, let ended = try? cloud.database(.shared, as: me).endedShares(in: zone) else { continue }
            try store.addNotices(Notice.ended(ended, known: known, me: me.id))
        }
    }

    /// Edits of shared posts kept as posts of this account's own when the share went away: the person hears
    /// of each, as of an edit the cloud refused.
    private func tellRescued(_ ids: [RecordID], because error: (RecordID) -> CloudError, outcome: String = DeviceStore.rescuedNote) {
        guard !ids.isEmpty else { return }
        lock.withLock { refusals += ids.map { Refusal($0, error($0), outcome: outcome) } }
    }

    /// Drops notebooks gone from the cloud and tells what that did with what waited in them. What comes back for it
    /// (the notebook, a commented post) goes to the engine at once: this round's send makes the notebook before its
    /// records, instead of meeting the notebook's absence again.
    private func drop(_ scope: DatabaseScope, _ zones: [ZoneID], because error: (RecordID) -> CloudError) throws {
        let dropped = try store.dropZones(scope, zones)
        tell(dropped, because: error)
        lock.withLock { broughtBackHeld.merge(dropped.held) { $0.union($1) } }
        if !dropped.broughtBack.isEmpty { try loadPending() }
    }

    /// After a fetch: a notebook brought back whose other posts arrived together in another notebook was renamed there;
    /// what waited in it follows them (`DeviceStore.followRename`), and is told so instead of as brought back.
    private func followRenames() throws {
        let (candidates, followed) = lock.withLock { () -> ([ZoneID: Set<String>], [ZoneID: Set<ZoneID>]) in
            defer { (broughtBackHeld, followedFrom) = ([:], [:]) }
            return (broughtBackHeld, followedFrom)
        }
        for (zone, held) in candidates.sorted(by: { $0.key.description < $1.key.description }) {
            guard let (posts, to, rescued) = try store.followRename(of: zone, held: held, followedTo: followed[zone] ?? []) else { continue }
            let note = "notebook \(zone.name) is no longer in the cloud, and what was in it is in \(to.name) now (renamed, or moved there, "
                + "on another device): this waited here, and is there too"
            lock.withLock {
                refusals.removeAll { $0.id.zone == zone && $0.kind == .keptAnotherWay }
                refusals += posts.map { Refusal($0, .zoneNotFound(zone), outcome: note, kind: .keptAnotherWay) }
            }
            tellRescued(rescued, because: { _ in .zoneNotFound(zone) }, outcome: DeviceStore.keptCommentNote)
            try loadPending()
        }
    }

    /// What notebooks gone from the cloud took with them: shared ones' waiting edits kept as posts of this account's
    /// own; this account's own brought back for what waits in them.
    private func tell(_ dropped: DroppedZones, because error: (RecordID) -> CloudError) {
        tellRescued(dropped.rescued, because: error)
        lock.withLock {
            refusals += dropped.broughtBack.map {
                Refusal($0, error($0), outcome: DeviceStore.notebookBackNote($0.zone, wasShared: dropped.unshared.contains($0.zone)), kind: .keptAnotherWay)
            }
        }
    }
}

/// What waits in an account's inbox.
public struct InboxCount: Equatable, Sendable {
    public var invitations: Int
    public var requests: Int

    public init(invitations: Int, requests: Int) {
        self.invitations = invitations
        self.requests = requests
    }
}

extension SyncError {
    /// What a person can do about the error, where the app offers a way.
    public var remedy: String? {
        guard case .cloudChanged = self else { return nil }
        return "to rebuild the cloud from this device: cloudnotes sync --reupload (in the front end, :reupload)"
    }
}
