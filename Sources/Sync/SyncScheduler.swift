import Cloud
import Foundation

/// How quickly automatic sync reacts, and how it backs off.
public struct SyncTiming: Sendable, Equatable {
    /// Changes added within this window go out in one send.
    public var sendDelay: TimeInterval = 0.05
    /// Pushes within this window lead to one fetch.
    public var fetchDelay: TimeInterval = 0.01
    /// The first retry after a transient error, doubled each time, at most `backoffCap`.
    public var backoffBase: TimeInterval = 0.25
    public var backoffCap: TimeInterval = 30
    /// Up to this share is added at random, so devices do not retry in step.
    public var jitter: Double = 0.2
    /// How often an idle device asks the cloud whether it still answers (and still knows the device), so a dead
    /// server or a revoked device shows within seconds, and its return ends a back-off at once.
    public var heartbeat: TimeInterval = 4

    public init() {}
}

/// Which of a device's databases a sync round fetches and which it sends.
public struct SyncRound: Equatable, Sendable {
    public var fetch: Set<DatabaseScope>
    public var send: Set<DatabaseScope>

    public init(fetch: Set<DatabaseScope> = [], send: Set<DatabaseScope> = []) {
        self.fetch = fetch
        self.send = send
    }

    /// Fetch and send every one of `scopes`.
    public static func everything(_ scopes: Set<DatabaseScope>) -> SyncRound { SyncRound(fetch: scopes, send: scopes) }

    public var isEmpty: Bool { fetch.isEmpty && send.isEmpty }

    /// The scopes the round touches at all.
    public var scopes: Set<DatabaseScope> { fetch.union(send) }

    public mutating func formUnion(_ other: SyncRound) {
        fetch.formUnion(other.fetch)
        send.formUnion(other.send)
    }
}

/// When to fetch and send what, as a state machine: inputs in, actions out;
/// the caller owns the timer and does the work (STYLE: "state machines
/// return actions"). It coalesces bursts, runs one round at a time (only
/// what was asked for: a push to one database fetches that one, an edit
/// sends), and after a transient error waits at least the cloud's
/// retry-after, doubling the wait while errors continue, so it never spins.
public struct SyncScheduler {
    public enum Input: Equatable {
        /// Fetch and send these databases (a device starting, a person asking to refresh).
        case started(Set<DatabaseScope>)
        case changesAdded(Set<DatabaseScope>)
        case pushReceived(Set<DatabaseScope>)
        case timerFired
        case finished(Outcome)
        /// The cloud answers again after errors: the back-off ends, and these databases are fetched and sent now.
        case recovered(Set<DatabaseScope>)
    }

    public enum Outcome: Equatable {
        case success
        /// A transient error; retry after at least this long.
        case transient(retryAfter: TimeInterval?)
        /// A failure retrying cannot fix (signed out, refused): wait for new input.
        case failure
    }

    public enum Action: Equatable {
        case arm(Date)
        case run(SyncRound)
    }

    public let timing: SyncTiming
    private(set) var wanted = SyncRound()
    private(set) var running: SyncRound?
    private(set) var armedAt: Date?
    private(set) var backoffUntil: Date?
    private(set) var consecutiveFailures = 0

    public init(timing: SyncTiming) { self.timing = timing }

    /// - Parameter jitter: a random number in 0..<1 (injected, so runs replay).
    public mutating func handle(_ input: Input, now: Date, jitter: Double = 0) -> Action? {
        switch input {
        case .started(let scopes):
            wanted.formUnion(.everything(scopes))
            return schedule(at: now)
        case .changesAdded(let scopes):
            wanted.send.formUnion(scopes)
            return schedule(at: now + timing.sendDelay)
        case .pushReceived(let scopes):
            wanted.fetch.formUnion(scopes)
            return schedule(at: now + timing.fetchDelay)
        case .recovered(let scopes):
            backoffUntil = nil
            consecutiveFailures = 0
            armedAt = nil  // (the timer armed for the back-off's end is replaced)
            wanted.formUnion(.everything(scopes))
            return schedule(at: now)
        case .timerFired:
            armedAt = nil
            guard running == nil, !wanted.isEmpty else { return nil }
            if let backoffUntil, backoffUntil > now { return schedule(at: backoffUntil) }
            let run = wanted
            running = run
            wanted = SyncRound()
            return .run(run)
        case .finished(let outcome):
            let ran = running ?? SyncRound()
            running = nil
            switch outcome {
            case .success, .failure:
                consecutiveFailures = 0
                backoffUntil = nil
            case .transient(let retryAfter):
                consecutiveFailures += 1
                let doubling = timing.backoffBase * pow(2, Double(min(consecutiveFailures - 1, 30)))
                let wait = max(retryAfter ?? 0, min(timing.backoffCap, doubling)) * (1 + timing.jitter * jitter)
                backoffUntil = now + wait
                wanted.formUnion(ran)
            }
            guard !wanted.isEmpty else { return nil }
            return schedule(at: now)
        }
    }

    /// Arms the timer for `at` (or the end of a back-off), unless a sync is
    /// running (it re-schedules when it finishes) or the timer fires sooner.
    private mutating func schedule(at: Date) -> Action? {
        guard running == nil else { return nil }
        let target = max(at, backoffUntil ?? at)
        if let armedAt, armedAt <= target { return nil }
        armedAt = target
        return .arm(target)
    }
}
