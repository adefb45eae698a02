import Foundation

/// A token bucket per account: `rate` requests a second on average, bursts of `burst`. Past it a request is
/// refused with THROTTLED and how long to wait, which clients honour.
final class RateLimiter: @unchecked Sendable {
    private let rate: Double
    private let burst: Double
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: Date)] = [:]

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Nil when the request may go ahead; otherwise how many seconds until it may.
    func wait(for account: String, now: Date = Date()) -> TimeInterval? {
        lock.withLock {
            var bucket = buckets[account] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + now.timeIntervalSince(bucket.at) * rate)
            bucket.at = now
            defer { buckets[account] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }
}
