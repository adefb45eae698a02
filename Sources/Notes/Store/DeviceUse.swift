import Foundation

/// A device in use as its account: a shared advisory lock on `use.lock` in the device directory, which every
/// command holds while it reads and writes the device, and which signing the device into another account takes
/// alone. So a switch never lands between a command's look at whose device it is and its write (a post written
/// as heather into what had just become mary's device). Held for the process's life; the kernel drops it when
/// the process ends, even by a crash.
public final class DeviceUse: @unchecked Sendable {
    private let fd: Int32

    private init?(path: String, operation: Int32) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, operation) == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    private static let lock = NSLock()
    /// What this process holds, by directory: a process asks once (flock would refuse it its own lock).
    nonisolated(unsafe) private static var held: [String: DeviceUse] = [:]

    /// Holds the device as a user of its account, alongside any other command; waits up to `patience` while it
    /// is being switched to another account. False if it still is then.
    public static func share(_ directory: URL, patience: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(patience)
        while true {
            if hold(directory, LOCK_SH | LOCK_NB) { return true }
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
    }

    /// Holds the device alone, to switch its account; false while any other command uses it.
    public static func claim(_ directory: URL) -> Bool { hold(directory, LOCK_EX | LOCK_NB) }

    private static func hold(_ directory: URL, _ operation: Int32) -> Bool {
        let path = directory.appendingPathComponent("use.lock").path
        return lock.withLock {
            if held[path] != nil { return true }
            guard let use = DeviceUse(path: path, operation: operation) else { return false }
            held[path] = use
            return true
        }
    }
}
