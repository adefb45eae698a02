import Foundation

/// The highest change sequence the cloud ever committed, kept in a small
/// file beside the cloud's SQLite file (never the SQLite file itself: plain
/// I/O on it would drop SQLite's locks). When the SQLite file is emptied or
/// replaced by an older copy, its own sequence falls below this mark, and
/// the cloud knows its history went back (`Cloud.recoverIfRestored`).
struct HighWaterMark: Sendable {
    let path: String

    /// The mark, or nil when there is none yet (a new cloud, or the file was removed).
    func read() -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Raises the mark to `sequence` if it is lower: under an advisory lock, so
    /// processes committing at once never move it back.
    func raise(to sequence: Int64) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }  // the mark only adds a check; the commit stands
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        let current = count > 0 ? Int64(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        guard sequence > (current ?? -1) else { return }
        let text = Array("\(sequence)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
    }
}
