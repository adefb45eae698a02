import Foundation

/// A token bucket per account (or per address): `rate` requests a second on average, bursts of `burst`. Past it a request is
/// refused with THROTTLED and how long to wait, which clients honour.
final class RateLimiter: @unchecked Sendable {
    private let rate: Double
    private let burst: Double
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: Date)] = [:]
    private var prunedAt = Date.distantPast

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Nil when the request may go ahead; otherwise how many seconds until it may.
    func wait(for caller: String, now: Date = Date()) -> TimeInterval? {
        lock.withLock {
            // A bucket left alone long enough is full again: forgetting it changes nothing, and keeps many
            // callers (addresses) from growing the table for ever. At most once a second, so a table kept full
            // by many callers costs one pass a second, not one a request.
            if buckets.count > 10_000, now.timeIntervalSince(prunedAt) > 1 {
                buckets = buckets.filter { now.timeIntervalSince($0.value.at) < burst / rate }
                prunedAt = now
            }
            var bucket = buckets[caller] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + now.timeIntervalSince(bucket.at) * rate)
            bucket.at = now
            defer { buckets[caller] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }
}
