import Foundation

/// The highest change sequence a cloud ever committed, and which cloud that is, kept in a small file beside the
/// cloud's SQLite file (never the SQLite file itself: plain I/O on it would drop SQLite's locks). When the
/// store is emptied or replaced by an older copy, its own sequence falls below this mark, and the cloud knows
/// its history went back (`LocalCloud.recoverIfRestored`).
///
/// The mark names its cloud because a directory can meet more than one: a console command given the directory
/// of one cloud and the `--store` of another must not take the first's mark as the second's history going back
/// (that would give the second a new identity, and every device of it would stop syncing).
struct HighWaterMark: Sendable {
    let path: String

    /// A mark as the file holds it.
    struct Mark: Equatable, Sendable {
        let sequence: Int64
        /// The cloud's ID; nil in a mark written before marks named their cloud.
        let cloud: String?

        /// The sequence the cloud `id` must not be below, if the mark is that cloud's (or names none); nil for
        /// another cloud's mark. A store without an identity yet (`id` nil: emptied) is held to any mark.
        func bound(for id: String?) -> Int64? {
            cloud == nil || id == nil || cloud == id ? sequence : nil
        }

        /// As the file holds it: "SEQUENCE CLOUD".
        init?(_ text: String) {
            let words = text.split(whereSeparator: \.isWhitespace)
            guard let first = words.first, let sequence = Int64(first), words.count <= 2 else { return nil }
            self.sequence = sequence
            cloud = words.count == 2 ? String(words[1]) : nil
        }

        init(sequence: Int64, cloud: String) {
            self.sequence = sequence
            self.cloud = cloud
        }

        var text: String { "\(sequence)" + (cloud.map { " \($0)" } ?? "") + "\n" }
    }

    /// The mark, or nil when there is none yet (a new cloud, or the file was removed).
    func read() -> Mark? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Mark(text)
    }

    /// Raises the mark to `sequence` of `cloud` if it is lower, or is another cloud's: under an advisory lock, so
    /// processes committing at once never move it back.
    func raise(to sequence: Int64, of cloud: String) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }  // the mark only adds a check; the commit stands
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = pread(fd, &buffer, buffer.count, 0)
        if count > 0, let current = Mark(String(decoding: buffer[0..<count], as: UTF8.self)),
           current.cloud == nil || current.cloud == cloud, sequence <= current.sequence { return }
        let text = Array(Mark(sequence: sequence, cloud: cloud).text.utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
    }
}
