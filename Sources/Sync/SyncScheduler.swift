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

    public init() {}
}

/// When to fetch and send, as a state machine: inputs in, actions out; the
/// caller owns the timer and does the work (STYLE: "state machines return
/// actions"). It coalesces bursts, runs one sync at a time, and after a
/// transient error waits at least the cloud's retry-after, doubling the wait
/// while errors continue, so it never spins.
public struct SyncScheduler {
    public enum Input: Equatable {
        case started
        case changesAdded
        case pushReceived
        case timerFired
        case finished(Outcome)
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
        case run(fetch: Bool, send: Bool)
    }

    public let timing: SyncTiming
    private(set) var wantFetch = false
    private(set) var wantSend = false
    private(set) var running: (fetch: Bool, send: Bool)?
    private(set) var armedAt: Date?
    private(set) var backoffUntil: Date?
    private(set) var consecutiveFailures = 0

    public init(timing: SyncTiming) { self.timing = timing }

    /// - Parameter jitter: a random number in 0..<1 (injected, so runs replay).
    public mutating func handle(_ input: Input, now: Date, jitter: Double = 0) -> Action? {
        switch input {
        case .started:
            wantFetch = true
            wantSend = true
            return schedule(at: now)
        case .changesAdded:
            wantSend = true
            return schedule(at: now + timing.sendDelay)
        case .pushReceived:
            wantFetch = true
            return schedule(at: now + timing.fetchDelay)
        case .timerFired:
            armedAt = nil
            guard running == nil, wantFetch || wantSend else { return nil }
            if let backoffUntil, backoffUntil > now { return schedule(at: backoffUntil) }
            let run = (fetch: wantFetch, send: wantSend)
            running = run
            wantFetch = false
            wantSend = false
            return .run(fetch: run.fetch, send: run.send)
        case .finished(let outcome):
            let ran = running ?? (false, false)
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
                wantFetch = wantFetch || ran.fetch
                wantSend = wantSend || ran.send
            }
            guard wantFetch || wantSend else { return nil }
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
