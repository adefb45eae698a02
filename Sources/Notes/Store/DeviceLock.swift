import Foundation

/// Makes sure one process at a time syncs a device: an advisory lock on
/// `sync.lock` in the device directory, released when the process ends
/// (even by a crash), since the kernel drops flock locks with the descriptor.
/// (`cloudnotes cloud migrate` takes one of a cloud directory's the same way.)
/// The holder writes who it is into the file, so another process refused the
/// lock can name it.
public final class DeviceLock: @unchecked Sendable {
    private let fd: Int32

    /// Nil when another process holds the lock (or the file cannot be opened).
    /// - Parameter holder: what this process is, for one refused the lock ("the front end, as heather").
    public init?(directory: URL, file: String = "sync.lock", holder: String = "cloudnotes") {
        fd = open(directory.appendingPathComponent(file).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        // (A note for people only: a holder that cannot be written is named as "another process".)
        let note = Array("\(getpid())\n\(holder.prefix(200))\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    /// Who holds the lock, as it wrote itself ("process 4242 (the front end, as heather)"), while that process
    /// lives; nil when the file says nothing of a live one.
    public static func holder(directory: URL, file: String = "sync.lock") -> String? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", maxSplits: 1).map(String.init)
        guard let pid = lines.first.flatMap({ Int32($0) }), pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return "process \(pid)" + (lines.count > 1 ? " (\(lines[1].trimmingCharacters(in: .newlines)))" : "")
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
        // (There already, or cannot be made: then the open below fails and only this wake-up is lost; the sync runs anyway.)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = write(fd, "1\n", 2)
            close(fd)
        }
    }
}
