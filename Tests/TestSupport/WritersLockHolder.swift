@testable import Cloud
import Foundation
import Synchronization

/// Another connection's writer holding a cloud's writers' lock, from `init` until `release()`: writes through any
/// other connection wait meanwhile. `then` runs in its transaction after the release, before it commits.
public final class WritersLockHolder: Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let committed = DispatchSemaphore(value: 0)
    private let isReleased = Mutex(false)

    public init(_ cloud: LocalCloud, then: @escaping @Sendable (any SQLTransaction) throws -> Void = { _ in }) {
        let held = DispatchSemaphore(value: 0)
        Thread { [released, committed] in
            _ = try? cloud.storage.write { db in
                held.signal()
                released.wait()
                try then(db)
            }
            committed.signal()
        }.start()
        held.wait()
    }

    /// Lets the lock go and waits for the holder's transaction to end (once; later calls do nothing).
    public func release() {
        guard isReleased.withLock({ wasReleased in defer { wasReleased = true }; return !wasReleased }) else { return }
        released.signal()
        committed.wait()
    }
}
