import Cloud
import Foundation
import Synchronization

/// Keeps one database of one device in step with the cloud, with the
/// semantics of CloudKit's CKSyncEngine: the app tells the engine what
/// changed; the engine decides when to talk to the cloud, asks the app for
/// batches of records, and reports everything back as events.
///
///     let engine = try SyncEngine(SyncEngine.Configuration(
///         database: cloud.database(.private, as: heather), stateSerialization: saved, delegate: store))
///     engine.state.add(pendingRecordZoneChanges: [.saveRecord(post.id)])
///     try engine.sendChanges()   // or let automatic sync do it
public final class SyncEngine: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var cloud: any Cloud
        public var scope: DatabaseScope
        /// Which account the device is signed into, asked before each sync.
        public var account: any AccountSource
        /// What the previous engine's last state update said; nil on first launch.
        public var stateSerialization: SyncState.Serialization?
        public weak var delegate: (any SyncEngineDelegate)?
        /// Send soon after changes are added, fetch on push, retry by itself.
        public var automaticallySync: Bool
        public var deviceName: String
        public var log: SyncLog?
        public var timing: SyncTiming
        /// For back-off jitter, so a run replays from its seed.
        public var random: any RandomSource
        /// Ours: each zone deletion names the change token this engine last fetched the zone to, so the cloud refuses
        /// it where the zone changed since (`CloudError.zoneChanged`); the engine then fetches the zone whole again.
        public var zoneDeletionsNameTheirTokens = false

        public init(database: CloudDatabase, stateSerialization: SyncState.Serialization?,
                    delegate: any SyncEngineDelegate, automaticallySync: Bool = true, deviceName: String = "device",
                    log: SyncLog? = nil, timing: SyncTiming = SyncTiming(), random: any RandomSource = SystemRandom()) {
            self.init(cloud: database.cloud, scope: database.scope, account: FixedAccount(database.caller),
                      stateSerialization: stateSerialization, delegate: delegate, automaticallySync: automaticallySync,
                      deviceName: deviceName, log: log, timing: timing, random: random)
        }

        public init(cloud: any Cloud, scope: DatabaseScope, account: any AccountSource,
                    stateSerialization: SyncState.Serialization?, delegate: any SyncEngineDelegate,
                    automaticallySync: Bool = true, deviceName: String = "device", log: SyncLog? = nil,
                    timing: SyncTiming = SyncTiming(), random: any RandomSource = SystemRandom()) {
            self.cloud = cloud
            self.scope = scope
            self.account = account
            self.stateSerialization = stateSerialization
            self.delegate = delegate
            self.automaticallySync = automaticallySync
            self.deviceName = deviceName
            self.log = log
            self.timing = timing
            self.random = random
        }
    }

    public let state: SyncState
    public let scope: DatabaseScope
    let cloud: any Cloud
    let accountSource: any AccountSource
    let log: SyncLog?
    let zoneDeletionsNameTheirTokens: Bool
    private weak var delegate: (any SyncEngineDelegate)?
    /// One fetch or send at a time.
    private let syncLock = NSLock()
    /// The change tags of the records this engine saved, by zone and name,
    /// since it last fetched the zone: the next fetch tells the cloud, which
    /// leaves them out instead of sending the app its own saves back.
    /// Touched only with `syncLock` held.
    var ownSaves: [ZoneID: [String: String]] = [:]
    /// The last commit of this engine's that followed everything it had seen (see `Commit`): pushes up to it
    /// bring nothing new.
    private let ownCommitsSeen = Mutex<Int64>(0)
    private var events: EventQueue<SyncEvent>!
    private var loop: SyncLoop?

    /// - Throws: `SyncError.malformedState` when the saved state cannot be read.
    public init(_ configuration: Configuration) throws(SyncError) {
        state = try configuration.stateSerialization.map { s throws(SyncError) in try SyncState(s) } ?? SyncState()
        scope = configuration.scope
        cloud = configuration.cloud
        accountSource = configuration.account
        log = configuration.log
        zoneDeletionsNameTheirTokens = configuration.zoneDeletionsNameTheirTokens
        delegate = configuration.delegate
        events = EventQueue(deliver: { [weak self] event in
            guard let self, let delegate = self.delegate else { return }
            self.log?.event(self.scope, event)
            try delegate.handleEvent(event, engine: self)
        }, dropped: { [weak self] event, error in
            self?.log?.write(configuration.scope, "error", "the app could not handle \(event.name): \(error)")
        })
        state.onChange = { [weak self] in self?.pendingChangesChanged() }
        if configuration.automaticallySync {
            loop = SyncLoop(engines: [self], pushes: configuration.cloud, timing: configuration.timing, random: configuration.random)
            loop?.start()
        }
    }

    deinit { loop?.stop() }

    /// Stops automatic sync; a sync under way finishes first.
    public func stop() {
        loop?.stop()
        loop = nil
    }

    /// The topic the cloud posts this engine's database's changes to, for the account signed in now.
    public var pushTopic: PushTopic? { accountSource.currentAccount().map { .database(scope, of: $0.id) } }

    /// Whether a push brings nothing this engine has not seen: its last fetch covered the commit, or the commit
    /// is its own and followed only what it had seen. A push from before the engine's first fetch is new.
    public func hasSeen(_ push: Push) -> Bool {
        // While zones the database's changes named wait to be fetched, the token runs ahead of what arrived.
        let (token, waiting) = state.withLock { ($0.databaseToken, !$0.zonesToFetch.isEmpty) }
        if waiting { return false }
        if token?.covers(push.sequence) == true { return true }
        return push.sequence <= ownCommitsSeen.withLock { $0 }
    }

    /// Notes a commit of this engine's sends: when it followed only what the engine had seen, its push is no news.
    func noteOwn(_ commit: Commit?) {
        guard let commit else { return }
        let token = state.withLock { $0.databaseToken }
        ownCommitsSeen.withLock { seen in
            if commit.previous <= seen || token?.covers(commit.previous) == true { seen = max(seen, commit.sequence) }
        }
    }

    /// Forgets what this engine saw of a cloud or an account it no longer syncs with.
    private func forgetSeen() {
        ownSaves = [:]
        ownCommitsSeen.withLock { $0 = 0 }
    }

    /// Whether a fetch or send is running now.
    public var isSyncing: Bool {
        guard syncLock.try() else { return true }
        syncLock.unlock()
        return false
    }

    /// Delivers an event and returns once the delegate has handled it; what the delegate threw comes back
    /// as `SyncError.delegateFailed`, naming the event, so the engine goes no further than the app got.
    func deliver(_ event: SyncEvent) throws {
        do {
            try events.post(event)
        } catch {
            throw SyncError.delegateFailed(event: event.name, cause: error)
        }
    }

    /// Delivers an event whose failure changes nothing the engine does next (will/did, state updates: a
    /// state that could not be saved is posted again with the next change); a failure is logged.
    func post(_ event: SyncEvent) {
        do { try deliver(event) } catch { log?.write(scope, "error", "\(error)") }
    }

    func postStateUpdate() { post(.stateUpdate(state.serialization)) }

    private func pendingChangesChanged() {
        postStateUpdate()
        loop?.changesAdded([scope])
    }

    func batch(_ context: SendChangesContext) throws -> RecordZoneChangeBatch? {
        do {
            return try delegate?.nextRecordZoneChangeBatch(context, engine: self)
        } catch {
            throw SyncError.delegateFailed(event: "nextRecordZoneChangeBatch", cause: error)
        }
    }

    /// Runs one fetch or send with the lock held, after checking the account.
    func exclusively<T>(_ body: (CloudDatabase) throws -> T) throws -> T {
        try syncLock.withLock { try body(try currentDatabase()) }
    }

    /// The cloud and the account this engine's state belongs to (nil until its first sync).
    public var syncedWith: (cloud: String?, account: String?) { state.withLock { ($0.cloudID, $0.accountID) } }

    /// Takes the cloud as it is now (another identity than the one this
    /// engine synced with) as its own: every zone is fetched whole from it
    /// again, and pending changes stay. The app calls it when it rebuilds the
    /// cloud from the device (`SyncError.cloudChanged`).
    public func adopt(_ identity: CloudIdentity) {
        syncLock.withLock {
            state.adopt(cloud: identity.id)
            forgetSeen()
        }
        postStateUpdate()
    }

    /// The database of the account the device is signed into now, in the
    /// cloud this engine synced with (else `SyncError.cloudChanged`). An
    /// account change is posted before anything else, and the state of the
    /// previous account is forgotten so its data never reaches another account.
    private func currentDatabase() throws -> CloudDatabase {
        try ensureSameCloud()
        let current = accountSource.currentAccount()
        let known = state.withLock { $0.accountID }
        switch (known, current) {
        case (nil, nil):
            throw SyncError.signedOut
        case (nil, let account?):
            state.withLock { $0.accountID = account.id }  // first sign-in keeps what the app already added
            try deliver(.accountChange(.signIn(current: account)))
            postStateUpdate()
        case (let previous?, nil):
            // The app forgets the previous account's data first; if it cannot, nothing here changes either.
            try deliver(.accountChange(.signOut(previous: previous)))
            state.reset(accountID: nil)
            forgetSeen()
            postStateUpdate()
            throw SyncError.signedOut
        case (let previous?, let account?) where previous != account.id:
            try deliver(.accountChange(.switchAccounts(previous: previous, current: account)))
            state.reset(accountID: account.id)
            forgetSeen()
            postStateUpdate()
        default:
            break
        }
        return cloud.database(scope, as: current!)
    }

    /// Checks that the cloud is the one this engine synced with (the first it meets, it remembers): before each
    /// fetch and send, and again before anything a fetch would delete, since a cloud emptied meanwhile answers
    /// "no such zone" as a deleted one does.
    func ensureSameCloud() throws {
        let identity = try request("identity", "") { try cloud.identity() }
        switch state.withLock({ $0.cloudID }) {
        case nil:
            state.withLock { $0.cloudID = identity.id }  // saved with the next state update
        case let remembered? where remembered != identity.id:
            throw SyncError.cloudChanged(remembered: remembered, found: identity)
        default:
            break
        }
    }

    /// Runs a cloud request, logging it with the IDs it names.
    func request<T>(_ what: String, _ ids: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        log?.write(scope, "request", "\(what) \(ids())")
        do {
            return try body()
        } catch {
            log?.write(scope, "error", "\(what) \((error as? CloudError)?.code ?? "\(error)")")
            throw error
        }
    }
}
