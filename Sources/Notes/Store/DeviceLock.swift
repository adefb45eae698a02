import Foundation

/// Makes sure one process at a time syncs a device: an advisory lock on
/// `sync.lock` in the device directory, released when the process ends
/// (even by a crash), since the kernel drops flock locks with the descriptor.
/// (`cloudnotes cloud migrate` takes one of a cloud directory's the same way.)
public final class DeviceLock: @unchecked Sendable {
    private let fd: Int32

    /// Nil when another process holds the lock (or the file cannot be opened).
    public init?(directory: URL, file: String = "sync.lock") {
        fd = open(directory.appendingPathComponent(file).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Tells the syncing process that the store changed: it watches this
    /// file with inotify, through the same mechanism as the cloud's pushes.
    public static func wake(directory: URL) { signal(LiveSync.changedFile, directory: directory) }

    /// Rewrites `notify/NAME` in the device directory; whoever watches it with inotify hears.
    static func signal(_ name: String, directory: URL) {
        let path = directory.appendingPathComponent("notify").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = write(fd, "1\n", 2)
            close(fd)
        }
    }
}
