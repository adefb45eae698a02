import Cloud
import Foundation
import Sync

/// Keeps a device in sync while a person works in it (the front end is the
/// device's syncing process): it fetches when the cloud pushes, sends soon
/// after an edit here or in another process of the device (they wake it
/// through `notify/changed`), backs off while the cloud is unreachable, and
/// reports what arrived. Rounds run on its `SyncLoop`'s queue, never the caller's.
public final class LiveSync: @unchecked Sendable {
    public enum Status: Equatable, Sendable {
        case synced
        case sending(Int)
        /// The cloud cannot be reached; the next try at `retryAt` (nil: when something changes).
        case offline(waiting: Int, retryAt: Date?)
        /// The cloud answered that it is busy (a zone busy, the server overloaded or limiting this device).
        case busy(waiting: Int, retryAt: Date?)
        case error(String)
        /// Another process of the device syncs it; this many changes wait for it.
        case elsewhere(waiting: Int)
        /// Everything else is in the cloud, but the cloud refused these changes (the first one's reason); they are
        /// kept on the device, marked, until edited or discarded.
        case notSent(Int, reason: String)
    }

    /// What one round brought; the store may have changed whenever one is delivered.
    public struct Update: Sendable {
        public var arrivals: [Arrival] = []
        public var refusals: [Refusal] = []
        public var error: String?
        /// What waits in the inbox, counted after the round; nil when not counted.
        public var inbox: InboxCount?
        /// When the round began (`DispatchTime` uptime, nanoseconds) and how long its fetch and send took;
        /// zero when no round ran.
        public var started: UInt64 = 0
        public var duration: TimeInterval = 0

        public init(arrivals: [Arrival] = [], refusals: [Refusal] = [], error: String? = nil, inbox: InboxCount? = nil,
                    started: UInt64 = 0, duration: TimeInterval = 0) {
            self.arrivals = arrivals
            self.refusals = refusals
            self.error = error
            self.inbox = inbox
            self.started = started
            self.duration = duration
        }
    }

    /// Another process of the device changed the store and wants it sent.
    public static let changedFile = "changed"
    /// The syncing process changed the store; other readers of the device reload.
    public static let storedFile = "stored"

    private let sync: NotesSync
    private let onUpdate: @Sendable (Update) -> Void
    private var loop: SyncLoop!
    /// Wakes the loop when another process of the device saved something.
    private var wake: (any PushWatch)?
    /// Set once stopped: nothing runs after.
    private let stoppedLock = NSLock()
    private var _stopped = false
    private var stopped: Bool { stoppedLock.withLock { _stopped } }
    private let errorLock = NSLock()
    private var _lastError: (any Error)?
    /// Read by the front end between frames, so it must not wait for a sync under way.
    private var lastError: (any Error)? {
        get { errorLock.withLock { _lastError } }
        set { errorLock.withLock { _lastError = newValue } }
    }

    public init(sync: NotesSync, timing: SyncTiming = SyncTiming(), random: any RandomSource = SystemRandom(),
                onUpdate: @escaping @Sendable (Update) -> Void) {
        self.sync = sync
        self.onUpdate = onUpdate
        loop = SyncLoop(engines: [sync.engine(.private), sync.engine(.shared)], pushes: sync.cloud, timing: timing, random: random) {
            [weak self] round in try self?.run(round)
        }
    }

    public func start() {
        wake = PushSubscription(watching: Self.notifyDirectory(sync.store.directory), files: [Self.changedFile]) { [weak self] _ in
            guard let self, !self.stopped else { return }
            self.onUpdate(Update())  // another process wrote: show it now, send it soon
            self.loop.changesAdded()
        }
        loop.start()
    }

    public func stop() {
        stoppedLock.withLock { _stopped = true }
        wake?.cancel()
        loop.stop()
    }

    /// An edit was saved here: send it soon.
    public func changesAdded() { loop.changesAdded() }

    /// Fetch and send now, as a refresh key asks.
    public func refresh() { loop.refresh() }

    /// What the loop has done (rounds run, pushes that brought nothing new).
    public var counts: SyncLoop.Counts { loop.counts }

    /// Whether the last round found the cloud emptied, replaced or restored (`NotesSync.reupload` rebuilds it).
    public var cloudChanged: Bool {
        if case .cloudChanged? = lastError as? SyncError { true } else { false }
    }

    /// Rebuilds the cloud from this device (`NotesSync.reupload`), then reports as a round does.
    public func reupload() {
        loop.perform { [self] in
            guard !stopped else { return }  // the device's lock may be another process's by now
            do {
                try sync.reupload()
                lastError = nil
            } catch {
                lastError = error
            }
            let news = sync.takeNews()
            Self.announceStored(sync.store.directory)
            onUpdate(Update(arrivals: news.arrivals, refusals: news.refusals, error: lastError.map(sync.explain)))
        }
    }

    public func status() -> Status {
        let waiting: Int, refused: [RefusedChange]
        do {
            (waiting, refused) = (try sync.store.pendingCount(), try sync.store.refusedChanges())
        } catch {
            return .error("cannot read this device's store: \(error)")
        }
        switch lastError {
        case .some(SyncError.cloudChanged):
            return .error("the cloud was emptied, replaced or restored; :reupload rebuilds it from this device")
        case let error as CloudError where error.isTransient:
            switch error {
            case .zoneBusy, .serviceUnavailable, .requestRateLimited: return .busy(waiting: waiting, retryAt: loop.retryAt)
            default: return .offline(waiting: waiting, retryAt: loop.retryAt)
            }
        case let error?: return .error(sync.explain(error))
        case nil: return Self.settled(waiting: waiting, refused: refused) ?? .synced
        }
    }

    /// What a device whose rounds go well says: changes on their way, else those the cloud refused; nil when
    /// everything is in the cloud.
    public static func settled(waiting: Int, refused: [RefusedChange]) -> Status? {
        if waiting > 0 { return .sending(waiting) }
        if let first = refused.first { return .notSent(refused.count, reason: first.reason) }
        return nil
    }

    public static func notifyDirectory(_ device: URL) -> URL { device.appendingPathComponent("notify") }

    /// Tells the device's other readers that the store changed.
    static func announceStored(_ device: URL) { DeviceLock.signal(storedFile, directory: device) }

    // MARK: Rounds

    /// One round of the loop's: syncs what it asks, then tells the device's readers and the caller what came of it.
    private func run(_ round: SyncRound) throws {
        let started = DispatchTime.now().uptimeNanoseconds
        defer {
            let news = sync.takeNews()
            Self.announceStored(sync.store.directory)
            let duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            onUpdate(Update(arrivals: news.arrivals, refusals: news.refusals, error: lastError.map(sync.explain), inbox: sync.inboxCount(),
                            started: started, duration: duration))
        }
        do {
            try sync.sync(round)
            lastError = nil
        } catch {
            lastError = error
            throw error
        }
    }
}
