import Cloud
import Foundation
import Sync

/// Keeps a device in sync while a person works in it (the front end is the
/// device's syncing process): it fetches when the cloud pushes, sends soon
/// after an edit here or in another process of the device (they wake it
/// through `notify/changed`), backs off while the cloud is unreachable, and
/// reports what arrived. Rounds run on its `SyncLoop`'s queue, never the caller's.
public final class LiveSync: @unchecked Sendable {
    public enum Status: Equatable, Sendable, Codable {
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

        /// The cloud cannot be reached, is busy, or failed: what a device's other processes repeat.
        public var isFailing: Bool {
            switch self {
            case .offline, .busy, .error: true
            case .synced, .sending, .elsewhere, .notSent: false
            }
        }
    }

    /// What one round brought; the store may have changed whenever one is delivered.
    public struct Update: Sendable {
        public var arrivals: [Arrival] = []
        public var refusals: [Refusal] = []
        public var error: String?
        /// What waits in the inbox, counted after the round; nil when not counted.
        public var inbox: InboxCount?
        /// This process's session with the device is over (signed into another account under it): why.
        public var sessionEnded: String?
        /// When the round began (`DispatchTime` uptime, nanoseconds) and how long its fetch and send took;
        /// zero when no round ran.
        public var started: UInt64 = 0
        public var duration: TimeInterval = 0

        public init(arrivals: [Arrival] = [], refusals: [Refusal] = [], error: String? = nil, inbox: InboxCount? = nil,
                    started: UInt64 = 0, duration: TimeInterval = 0, sessionEnded: String? = nil) {
            self.sessionEnded = sessionEnded
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
    /// The syncing process's status, as it last changed: a front end that follows it says what it sees (a dead server,
    /// a revoked device) rather than "synced".
    public static let statusFile = "status.json"

    private let sync: NotesSync
    private let onUpdate: @Sendable (Update) -> Void
    private var loop: SyncLoop!
    private let timing: SyncTiming
    /// Asks the cloud, between rounds, whether it still answers (see `probe`).
    private var heartbeat: DispatchSourceTimer?
    private let heartbeatQueue = DispatchQueue(label: "cloudnotes.heartbeat")
    /// When a round last ended well, or a probe got through: no probe is needed for a heartbeat after it.
    private let lastAnswer = LastAnswer()
    /// The status last written for the device's other processes.
    private let published = Published()
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
        self.timing = timing
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
        let timer = DispatchSource.makeTimerSource(queue: heartbeatQueue)
        timer.schedule(deadline: .now() + timing.heartbeat, repeating: timing.heartbeat, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self, !self.stopped, self.lastAnswer.due(every: self.timing.heartbeat) else { return }
            self.loop.perform { [weak self] in self?.probe() }
        }
        timer.resume()
        heartbeat = timer
    }

    public func stop() {
        stoppedLock.withLock { _stopped = true }
        heartbeat?.cancel()
        wake?.cancel()
        loop.stop()
    }

    /// A heartbeat, on the loop's queue between rounds: one cheap request (the cloud's identity, signed like any
    /// other, so a revoked device hears it). A failure becomes the status at once (the top line leaves "synced"
    /// without a key press, and without waiting for an edit to fail); the cloud answering again after a failure of
    /// reach ends the back-off and syncs now.
    private func probe() {
        guard !stopped else { return }
        do {
            _ = try sync.cloud.identity()
            lastAnswer.note()
            if let error = lastError, Self.isReach(error) { loop.recovered() }
        } catch {
            // A failure a round found (a cloud that changed, say) says more than the probe's; it stays.
            if let error = lastError, !Self.isReach(error) { return }
            let before = lastError.map(sync.explain)
            lastError = error
            if before != sync.explain(error) { onUpdate(Update(error: sync.explain(error))) }
        }
        publishStatus()
    }

    /// An error of reaching the cloud (it does not answer, or no longer takes this device's requests), which its
    /// answering again ends.
    private static func isReach(_ error: any Error) -> Bool {
        guard let error = error as? CloudError else { return false }
        return error.isTransient || error.code == "notAuthenticated"
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
            case .untrustedServer: return .error(sync.explain(error))  // (retried, but a person must act: said as it is)
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

    /// Writes the status for the device's other processes when it changed. A write that fails only leaves them
    /// saying less (their own store's counts); nothing else reads the file.
    private func publishStatus() {
        let now = status()
        guard published.swap(now) != now, let data = try? JSONEncoder().encode(now) else { return }
        try? data.write(to: Self.notifyDirectory(sync.store.directory).appendingPathComponent(Self.statusFile), options: .atomic)
    }

    /// The status the device's syncing process last published, if it is one of failure; nil otherwise (none
    /// written, or unreadable: the follower then goes by its own store).
    public static func publishedFailure(_ device: URL) -> Status? {
        guard let data = try? Data(contentsOf: notifyDirectory(device).appendingPathComponent(statusFile)),
              let status = try? JSONDecoder().decode(Status.self, from: data), status.isFailing else { return nil }
        return status
    }

    private final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var last: Status?

        /// Keeps `status`, returning the one kept before.
        func swap(_ status: Status) -> Status? { lock.withLock { defer { last = status }; return last } }
    }

    /// When the cloud last answered a round or a probe, by the uptime clock.
    private final class LastAnswer: @unchecked Sendable {
        private let lock = NSLock()
        private var at: UInt64 = 0

        func note() { lock.withLock { at = DispatchTime.now().uptimeNanoseconds } }

        /// Whether a heartbeat is due: nothing answered within the interval.
        func due(every interval: TimeInterval) -> Bool {
            let now = DispatchTime.now().uptimeNanoseconds
            return lock.withLock { now - at >= UInt64(interval * 0.9 * 1e9) }
        }
    }

    /// Tells the device's other readers that the store changed.
    static func announceStored(_ device: URL) { DeviceLock.signal(storedFile, directory: device) }

    // MARK: Rounds

    /// One round of the loop's: syncs what it asks, then tells the device's readers and the caller what came of it.
    private func run(_ round: SyncRound) throws {
        let started = DispatchTime.now().uptimeNanoseconds
        defer {
            let news = sync.takeNews()
            publishStatus()
            Self.announceStored(sync.store.directory)
            let duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            onUpdate(Update(arrivals: news.arrivals, refusals: news.refusals, error: lastError.map(sync.explain), inbox: sync.inboxCount(),
                            started: started, duration: duration))
        }
        do {
            try sync.sync(round)
            lastError = nil
            lastAnswer.note()
        } catch {
            lastError = error
            throw error
        }
    }
}
