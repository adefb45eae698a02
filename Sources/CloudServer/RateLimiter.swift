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

    /// Takes `cost` more tokens for a request that turned out costly (a query, by the records it read): the bucket
    /// may go below empty, down to minus a burst, and the account waits until it fills again.
    func charge(_ caller: String, _ cost: Double, now: Date = Date()) {
        guard cost > 0 else { return }
        lock.withLock {
            var bucket = buckets[caller] ?? (burst, now)
            bucket.tokens = max(-burst, min(burst, bucket.tokens + now.timeIntervalSince(bucket.at) * rate) - cost)
            bucket.at = now
            buckets[caller] = bucket
        }
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

/// Keys (devices) told to wait, until when: while one waits, its requests are refused before their signature is
/// checked, so a client that ignores THROTTLED costs the server a header's lookup, not a signature's verification and
/// the store's lookups. Only a request whose signature verified puts a key here: a forger naming someone's key
/// cannot make it wait.
final class Waiting: @unchecked Sendable {
    private let lock = NSLock()
    private var until: [String: Date] = [:]

    /// How long the key still waits; nil when it need not.
    func wait(_ key: String, now: Date = Date()) -> TimeInterval? {
        lock.withLock {
            guard let end = until[key] else { return nil }
            guard end > now else {
                until[key] = nil
                return nil
            }
            return end.timeIntervalSince(now)
        }
    }

    func hold(_ key: String, for seconds: TimeInterval, now: Date = Date()) {
        lock.withLock {
            if until.count > 10_000 { until = until.filter { $0.value > now } }
            until[key] = max(until[key] ?? now, now + seconds)
        }
    }
}
