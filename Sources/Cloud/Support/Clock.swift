import Foundation

/// Where the cloud reads the time, so tests and simulations can fix it.
public protocol CloudClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: CloudClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to; for tests and seeded runs.
public final class ManualClock: CloudClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
