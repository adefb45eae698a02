@testable import Cloud
import Foundation
import Synchronization

/// Another connection's writer holding a cloud's writers' lock, from `init` until `release()`: writes through any
/// other connection wait meanwhile. `then` runs in its transaction after the release, before it commits.
public final class WritersLockHolder: Sendable {
    private let cloud: LocalCloud
    private let released = DispatchSemaphore(value: 0)
    private let committed = DispatchSemaphore(value: 0)
    private let isReleased = Mutex(false)

    public init(_ cloud: LocalCloud, then: @escaping @Sendable (any SQLTransaction) throws -> Void = { _ in }) {
        self.cloud = cloud
        let held = DispatchSemaphore(value: 0)
        Thread { [released, committed] in
            let holding = Mutex(false)
            _ = try? cloud.storage.write { db in
                // PostgreSQL's lock is asked without waiting: wait for it here, or another writer may come first.
                _ = try db.identityUnderLock?.rows()
                holding.withLock { $0 = true }
                held.signal()
                released.wait()
                try then(db)
            }
            if !holding.withLock({ $0 }) { held.signal() }  // never held: `init` must not wait for ever
            committed.signal()
        }.start()
        held.wait()
    }

    /// Returns once another writer waits for the lock: on PostgreSQL, a lock not granted; on the file, whose
    /// waiting writers show nowhere, after half a second.
    public func awaitWaitingWriter() throws {
        guard cloud.storage.dialect == .postgres else { return Thread.sleep(forTimeInterval: 0.5) }
        for _ in 0..<200 {
            let waiting = try cloud.storage.lookUp { db in try db.int64("SELECT count(*) FROM pg_locks WHERE NOT granted") } ?? 0
            if waiting > 0 { return }
            Thread.sleep(forTimeInterval: 0.025)
        }
        throw CloudError.storage("no writer came to wait for the lock within 5 s")
    }

    /// Lets the lock go and waits for the holder's transaction to end (once; later calls do nothing).
    public func release() {
        guard isReleased.withLock({ wasReleased in defer { wasReleased = true }; return !wasReleased }) else { return }
        released.signal()
        committed.wait()
    }
}
