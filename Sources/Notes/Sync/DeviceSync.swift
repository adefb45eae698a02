import Cloud
import Foundation
import Sync

/// Whichever process of a device syncs it: the first to take the device's
/// lock runs `LiveSync`; every other one writes to the store, wakes that
/// process (`notify/changed`), and reloads when it says the store changed
/// (`notify/stored`). When the syncing process ends, one of the others takes
/// the lock within a second and syncs from then on, so what any process
/// wrote is always sent.
public final class DeviceSync: @unchecked Sendable {
    public let store: DeviceStore
    private let makeSync: () throws -> NotesSync
    private let onUpdate: @Sendable (LiveSync.Update) -> Void
    private let timing: SyncTiming
    /// What this process is, written into the device's lock while it holds it (`DeviceLock.holder`).
    private let holder: String
    /// Whether the device is still signed into this process's account: a follower that finds it signed into another
    /// (by `sign-in` while it only followed) ends its session rather than show that account's data.
    private let stillSignedIn: @Sendable () -> Bool
    private let queue = DispatchQueue(label: "cloudnotes.device-sync")
    private let lock = NSLock()
    private var live: LiveSync?
    private var deviceLock: DeviceLock?
    private var watch: PushSubscription?
    private var retry: DispatchSourceTimer?
    private var stopped = false

    /// `makeSync` builds the sync for when this process takes the lock; `onUpdate` hears each round (or, while
    /// another process syncs, that the store changed).
    public init(store: DeviceStore, timing: SyncTiming = SyncTiming(), holder: String = "cloudnotes",
                stillSignedIn: @escaping @Sendable () -> Bool = { true }, makeSync: @escaping () throws -> NotesSync,
                onUpdate: @escaping @Sendable (LiveSync.Update) -> Void) {
        self.store = store
        self.timing = timing
        self.holder = holder
        self.stillSignedIn = stillSignedIn
        self.makeSync = makeSync
        self.onUpdate = onUpdate
    }

    /// Syncs if no other process does; otherwise follows the one that does, and takes over when it ends.
    public func start() {
        queue.async { [self] in
            if takeLock() { return }
            watch = PushSubscription(watching: LiveSync.notifyDirectory(store.directory), files: [LiveSync.storedFile]) { [weak self] _ in
                guard let self else { return }
                self.onUpdate(self.stillSignedIn() ? LiveSync.Update() : self.signedOut())
            }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in
                guard let self else { return }
                guard self.stillSignedIn() else {
                    self.retry?.cancel()
                    self.watch?.cancel()
                    return self.onUpdate(self.signedOut())
                }
                guard self.takeLock() else { return }
                self.retry?.cancel()
                self.retry = nil
                self.watch?.cancel()
                self.watch = nil
                self.onUpdate(LiveSync.Update())
            }
            timer.resume()
            retry = timer
        }
    }

    public func stop() {
        queue.sync {
            stopped = true
            retry?.cancel()
            watch?.cancel()
        }
        lock.withLock { live }?.stop()
        lock.withLock { deviceLock = nil }
    }

    /// Whether this process is the one syncing the device now.
    public var isSyncing: Bool { lock.withLock { live != nil } }

    /// An edit was saved here: send it soon, from this process or the one syncing.
    public func changesAdded() {
        if let live = lock.withLock({ live }) { live.changesAdded() } else { DeviceLock.wake(directory: store.directory) }
    }

    /// Fetch now (the syncing process fetches when woken).
    public func refresh() {
        if let live = lock.withLock({ live }) { live.refresh() } else { DeviceLock.wake(directory: store.directory) }
    }

    public var cloudChanged: Bool { lock.withLock { live }?.cloudChanged ?? false }

    /// Rebuilds the cloud from this device; only the syncing process can (`cloudChanged` says when it must).
    public func reupload() { lock.withLock { live }?.reupload() }

    public func status() -> LiveSync.Status {
        if let live = lock.withLock({ live }) { return live.status() }
        if let failing = LiveSync.publishedFailure(store.directory) { return failing }
        do {
            let (waiting, refused) = (try store.pendingCount(), try store.refusedChanges())
            if waiting == 0, let first = refused.first { return .notSent(refused.count, reason: first.reason) }
            return .elsewhere(waiting: waiting)
        } catch {
            return .error("cannot read this device's store: \(error)")
        }
    }

    /// What a follower hears when the device was signed into another account under it: its session is over.
    private func signedOut() -> LiveSync.Update {
        LiveSync.Update(sessionEnded: "this device was signed into another account (cloudnotes sign-in) while this front end was open; "
                        + "it has closed, so that account's posts are not shown as this one's")
    }

    /// Takes the device's lock if it is free, and starts syncing.
    private func takeLock() -> Bool {
        guard !stopped, stillSignedIn(), let taken = DeviceLock(directory: store.directory, holder: holder) else { return false }
        do {
            let sync = LiveSync(sync: try makeSync(), timing: timing, onUpdate: onUpdate)
            lock.withLock {
                deviceLock = taken
                live = sync
            }
            sync.start()
            return true
        } catch {
            onUpdate(LiveSync.Update(error: "cannot sync: \(error)"))
            return false
        }
    }
}
