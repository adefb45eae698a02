import Cloud
import Foundation

/// Runs sync for real for a device's engines (one per database): a timer,
/// the cloud's pushes, and a queue on which rounds run one at a time, off
/// the app's thread. A round does what the scheduler asks and no more (a
/// push to the shared database fetches that one, an edit sends), and a push
/// an engine has already seen (its own change, or one a round under way
/// brought) starts nothing.
///
/// An engine's own automatic sync runs a loop of its own; the app runs one
/// for both its engines, with its own round (`NotesSync.sync`).
public final class SyncLoop: @unchecked Sendable {
    /// Runs one round; throws the first error (a transient one is retried after a back-off).
    public typealias Work = (SyncRound) throws -> Void

    /// What the loop has done, for tests and benchmarks.
    public struct Counts: Equatable, Sendable {
        public var rounds = 0
        /// Pushes that started nothing: the engine had seen their commit.
        public var pushesDropped = 0
    }

    private let engines: [WeakEngine]
    private let pushes: any PushSource
    private let work: Work
    private let random: any RandomSource
    private let queue = DispatchQueue(label: "cloudnotes.sync-loop")
    /// Set on `queue`, so `stop` knows it is called from a round (an engine released there, a delegate).
    private let onQueue = DispatchSpecificKey<Bool>()
    // Touched on `queue` only.
    private var scheduler: SyncScheduler
    private var timer: DispatchSourceTimer?
    private var watch: (any PushWatch)?
    private var watched: [PushTopic: DatabaseScope] = [:]
    private var stopped = false
    private let countsLock = NSLock()
    private var _counts = Counts()
    private var _retryAt: Date?

    /// - Parameter work: one round; by default each engine fetches, then sends, what the round asks of it.
    public init(engines: [SyncEngine], pushes: any PushSource, timing: SyncTiming = SyncTiming(),
                random: any RandomSource = SystemRandom(), work: Work? = nil) {
        let weak = engines.map(WeakEngine.init)
        self.engines = weak
        self.pushes = pushes
        self.random = random
        self.work = work ?? { round in try Self.run(round, on: weak.compactMap(\.engine)) }
        scheduler = SyncScheduler(timing: timing)
        queue.setSpecific(key: onQueue, value: true)
    }

    deinit { watch?.cancel() }

    /// Fetches and sends everything, then follows pushes and changes.
    public func start() {
        queue.async { [self] in
            followPushes()
            handle(.started(allScopes))
        }
    }

    /// Stops; a round under way finishes first. Nothing runs after.
    public func stop() {
        let stop = { [self] in
            stopped = true
            timer?.cancel()
            timer = nil
            watch?.cancel()
            watch = nil
        }
        if DispatchQueue.getSpecific(key: onQueue) == true { stop() } else { queue.sync(execute: stop) }
    }

    /// Changes wait to be sent in these databases (all when nil): send them soon.
    public func changesAdded(_ scopes: Set<DatabaseScope>? = nil) {
        queue.async { self.handle(.changesAdded(scopes ?? self.allScopes)) }
    }

    /// Fetch and send everything now, as a refresh key asks.
    public func refresh() { queue.async { self.handle(.started(self.allScopes)) } }

    /// The cloud answers again (a heartbeat got through after errors): stop backing off and sync now.
    public func recovered() { queue.async { self.handle(.recovered(self.allScopes)) } }

    public var counts: Counts { countsLock.withLock { _counts } }

    /// When the loop tries again after a transient error (nil when it is not backing off), for a status to say.
    public var retryAt: Date? { countsLock.withLock { _retryAt } }

    /// Runs `body` on the loop's queue, between rounds: work that must not overlap one (rebuilding the cloud).
    public func perform(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    // MARK: On the queue

    private var allScopes: Set<DatabaseScope> { Set(engines.compactMap { $0.engine?.scope }) }

    /// Feeds the scheduler and carries out its action.
    private func handle(_ input: SyncScheduler.Input) {
        guard !stopped else { return }
        defer { countsLock.withLock { _retryAt = scheduler.backoffUntil } }
        switch scheduler.handle(input, now: Date(), jitter: random.unit()) {
        case .arm(let date)?:
            timer?.cancel()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + max(0, date.timeIntervalSinceNow))
            timer.setEventHandler { [weak self] in self?.handle(.timerFired) }
            timer.resume()
            self.timer = timer
        case .run(let round)?:
            countsLock.withLock { _counts.rounds += 1 }
            let outcome = Self.outcome { try work(round) }
            followPushes()  // the round may have found the device signed into another account
            handle(.finished(outcome))
        case nil:
            break
        }
    }

    /// Subscribes to the topics of the accounts the engines are signed into, when they changed.
    private func followPushes() {
        guard !stopped else { return }
        var topics: [PushTopic: DatabaseScope] = [:]
        for engine in engines.compactMap(\.engine) {
            if let topic = engine.pushTopic { topics[topic] = engine.scope }
        }
        guard topics != watched || watch == nil else { return }
        watch?.cancel()
        watched = topics
        watch = topics.isEmpty ? nil : pushes.subscribe(to: Set(topics.keys)) { [weak self] push in
            guard let self else { return }
            self.queue.async { self.received(push) }
        }
    }

    private func received(_ push: Push) {
        guard let scope = watched[push.topic], let engine = engines.lazy.compactMap(\.engine).first(where: { $0.scope == scope }) else { return }
        if engine.hasSeen(push) {
            countsLock.withLock { _counts.pushesDropped += 1 }
        } else {
            handle(.pushReceived([scope]))
        }
    }

    // MARK: Rounds

    /// Each engine fetches, then sends, as the round asks, even when its fetch failed (the send may still get
    /// through); throws the first error.
    private static func run(_ round: SyncRound, on engines: [SyncEngine]) throws {
        var firstError: (any Error)?
        for engine in engines {
            for (wanted, work) in [(round.fetch.contains(engine.scope), engine.fetchChanges),
                                   (round.send.contains(engine.scope), engine.sendChanges)] where wanted {
                do { try work(.all) } catch { firstError = firstError ?? error }
            }
        }
        if let firstError { throw firstError }
    }

    /// A transient cloud error backs off and retries; anything else waits for new input.
    private static func outcome(_ body: () throws -> Void) -> SyncScheduler.Outcome {
        do {
            try body()
            return .success
        } catch let error as CloudError where error.isTransient {
            return .transient(retryAfter: error.retryAfter)
        } catch {
            return .failure
        }
    }
}

/// The loop does not keep an engine alive: an engine keeps its own loop.
private struct WeakEngine {
    weak var engine: SyncEngine?
    init(_ engine: SyncEngine) { self.engine = engine }
}
