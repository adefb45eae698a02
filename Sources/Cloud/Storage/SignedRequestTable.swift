import Foundation
import Synchronization

/// Queries on `signed_requests`: the signatures of the requests the cloud's servers answered with a write, or
/// with a notification token (`tokens/create`).
enum SignedRequestTable {
    /// How far apart the clocks of a cloud's servers may be, in seconds, for a replay to still be refused.
    static let clockDifference: TimeInterval = 600

    /// Records a request's signature without waiting for the answer; the returned closure says whether it was
    /// new (read before the transaction commits).
    static func record(_ db: any SQLTransaction, _ signature: ServedRequest.Signature) throws -> () throws -> Bool {
        let inserted = try db.ask("INSERT INTO signed_requests(signature, until) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1",
                                  [.text(signature.id), .real(signature.until.timeIntervalSince1970)])
        return { try !inserted.rows().isEmpty }
    }

    /// Drops the signatures past their time when `pruning` says it is due. Under the writers' lock: two
    /// servers dropping at once, or one dropping rows a replay's record holds, would otherwise wait on each
    /// other's rows while they wait for the lock.
    static func prune(_ db: any SQLTransaction, now: Date, pruning: Pruning) throws {
        guard pruning.isDue(at: now) else { return }
        // Dropped only well past their time by this server's clock: another server's clock may run behind it,
        // and would still take a replay dated as this one's record is.
        try db.send("DELETE FROM signed_requests WHERE until < ?", [.real(now.timeIntervalSince1970 - clockDifference)])
    }
}

extension SignedRequestTable {
    /// When this process's writes last dropped the signatures past their time. Once a minute is enough (they
    /// are kept ten minutes past it anyway), and a statement fewer in nearly every write, whose transaction
    /// holds the writers' lock.
    final class Pruning: Sendable {
        static let interval: TimeInterval = 60
        private let last = Mutex(Date.distantPast)

        /// Whether a write at `now` drops them; if so, the next is due an interval later (a clock set back
        /// makes it due at once). A write that rolls back leaves them for the next due one.
        func isDue(at now: Date) -> Bool {
            last.withLock { last in
                guard now.timeIntervalSince(last) >= Self.interval || now < last else { return false }
                last = now
                return true
            }
        }
    }
}
