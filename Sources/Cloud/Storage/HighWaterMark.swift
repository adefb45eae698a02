import Foundation

/// The highest change sequence each cloud ever committed, kept in a small file beside the cloud's SQLite file
/// (never the SQLite file itself: plain I/O on it would drop SQLite's locks). When a store is emptied or
/// replaced by an older copy, its own sequence falls below its mark, and the cloud knows its history went
/// back (`LocalCloud.recoverIfRestored`).
///
/// A line a cloud, by its ID: a directory can meet more than one cloud (a console command given one cloud's
/// directory and another's `--store`), and one cloud's mark must neither be taken as another's history going
/// back (a new identity, and every device of it stopping) nor be overwritten by it (its own going back unseen).
///
/// A copy of the marks may be kept elsewhere too (`mirror`: the state directory of the user whose process writes,
/// `LocalCloud.highWaterMirror`): a cloud directory put back whole from a backup brings its old mark back with it,
/// and only a mark kept outside it still tells that its history went back.
struct HighWaterMark: Sendable {
    let path: String
    /// Whether the cloud is the directory's own file: a mark from before marks named their cloud is that file's,
    /// and a store elsewhere (`--store`) neither takes it as its own nor drops it.
    let ownsUnnamedMark: Bool
    /// The file outside the directory that keeps a copy of the marks, if any.
    var mirror: String? = nil

    /// The marks as the file holds them.
    struct Marks: Equatable, Sendable {
        var byCloud: [String: Int64] = [:]
        /// A mark written before marks named their cloud: the directory's own file's, until it writes its line.
        var unnamed: Int64?
        /// The marks kept outside the directory (`mirror`), by cloud: they hold a cloud to its own history only, never
        /// a store without an identity (a new cloud is not another one the user wrote elsewhere put back).
        var mirrored: [String: Int64] = [:]

        /// The sequence the cloud `id` must not be below; a store without an identity yet (`id` nil: emptied)
        /// is held to every mark of the directory.
        func bound(for id: String?) -> Int64? {
            guard let id else { return (Array(byCloud.values) + [unnamed].compactMap { $0 }).max() }
            let own = byCloud[id] ?? unnamed
            guard let kept = mirrored[id] else { return own }
            return Swift.max(own ?? kept, kept)
        }

        /// Whether a commit of `cloud` at `sequence` moves the marks.
        func moved(by sequence: Int64, of cloud: String) -> Bool {
            unnamed != nil || sequence > byCloud[cloud, default: -1]
        }

        /// As the file holds them: a line "SEQUENCE CLOUD" a cloud (an unnamed mark is "SEQUENCE" alone).
        init(_ text: String) {
            for line in text.split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: \.isWhitespace)
                guard let first = words.first, let sequence = Int64(first), words.count <= 2 else { continue }
                if words.count == 2 { byCloud[String(words[1])] = sequence } else { unnamed = sequence }
            }
        }

        var text: String {
            (unnamed.map { "\($0)\n" } ?? "") + byCloud.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)\n" }.joined()
        }
    }

    /// What keeps the marks from guarding the cloud, if anything: a file that cannot be read and written, or
    /// that holds no mark, or a copy kept outside the directory that cannot be read and written. Without them a
    /// store put back to an older copy goes unseen, so it is said.
    var problem: String? {
        if let own = ownProblem { return own }
        guard let mirror, FileManager.default.fileExists(atPath: mirror), access(mirror, R_OK | W_OK) != 0 else { return nil }
        return "the copy of the high-water marks \(mirror) cannot be read and written (\(String(cString: strerror(errno)))): "
            + "a cloud directory put back whole from a backup would go unseen"
    }

    private var ownProblem: String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }  // none yet: the first commit writes it
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            return "the high-water mark \(path) cannot be read and written (\(String(cString: strerror(errno)))): a store put back "
                + "to an older copy would go unseen"
        }
        close(fd)
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            return "the high-water mark \(path) cannot be read (\(error.localizedDescription)): a store put back to an older copy "
                + "would go unseen"
        }
        guard !text.isEmpty else { return nil }
        let marks = Marks(text)
        guard marks.byCloud.isEmpty && marks.unnamed == nil else { return nil }
        return "the high-water mark \(path) holds no mark (it is rewritten at the next change): until then a store put back "
            + "to an older copy would go unseen"
    }

    /// The marks, or nil when there are none yet (a new cloud, or the file was removed).
    func read() -> Marks? {
        // (Unreadable reads as none here; `problem` says so.)
        var marks = (try? String(contentsOfFile: path, encoding: .utf8)).map { Marks($0) } ?? Marks("")
        if !ownsUnnamedMark { marks.unnamed = nil }
        if let mirror, let text = try? String(contentsOfFile: mirror, encoding: .utf8) {  // (unreadable: `problem` says so)
            marks.mirrored = Marks(text).byCloud
        }
        return marks.byCloud.isEmpty && marks.unnamed == nil && marks.mirrored.isEmpty ? nil : marks
    }

    /// Raises `cloud`'s mark to `sequence` if it is lower, leaving the other clouds' as they are: under an
    /// advisory lock, so processes committing at once never move one back. An unnamed mark (from before marks
    /// named their cloud) is the directory's file's: it goes once that cloud writes its own line.
    func raise(to sequence: Int64, of cloud: String) {
        Self.raise(at: path, ownsUnnamedMark: ownsUnnamedMark, to: sequence, of: cloud)
        if let mirror {
            // (Not made: the copy is not written, and the directory's own mark still guards the cloud's file.)
            try? FileManager.default.createDirectory(atPath: (mirror as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            Self.raise(at: mirror, ownsUnnamedMark: false, to: sequence, of: cloud)
        }
    }

    private static func raise(at path: String, ownsUnnamedMark: Bool, to sequence: Int64, of cloud: String) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }  // the mark only adds a check; the commit stands
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = pread(fd, &buffer, buffer.count, off_t(bytes.count))
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        var marks = Marks(String(decoding: bytes, as: UTF8.self))
        let kept = ownsUnnamedMark ? nil : marks.unnamed  // the directory's file's, not this cloud's to drop
        if !ownsUnnamedMark { marks.unnamed = nil }
        guard marks.moved(by: sequence, of: cloud) else { return }
        marks.unnamed = kept
        marks.byCloud[cloud] = max(sequence, marks.byCloud[cloud] ?? sequence)
        let text = Array(marks.text.utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
    }
}
