import Foundation
import GRDB
import SQLiteDirect

/// The cloud's one SQLite file, opened for many processes at once.
///
/// The system SQLite (3.40) has the WAL-reset bug, which can corrupt a WAL
/// database when two processes write or checkpoint together; so the file
/// stays in rollback-journal mode and every request that changes state is
/// one `BEGIN IMMEDIATE` transaction, waiting on a busy timeout.
final class CloudFile: Sendable {
    let queue: DatabaseQueue

    init(path: String, busyTimeout: TimeInterval = 30) throws(CloudError) {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            chmod(path, 0o600)
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try Schema.migrate(db)
                    return .commit
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Runs `body` in one immediate transaction: all of it commits, or none.
    /// A file emptied under an open connection gets its schema again first
    /// (`Cloud.recoverIfRestored` then gives it a new identity).
    func write<T>(_ body: (Database) throws -> T) throws(CloudError) -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    try Schema.migrate(db)
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Runs `body` in one read transaction, a consistent snapshot; on a file
    /// emptied under the connection, once more after its schema is back.
    func read<T>(_ body: (Database) throws -> T) throws(CloudError) -> T {
        do {
            return try queue.readSnapshot(body)
        } catch let error as DatabaseError where error.message?.hasPrefix("no such table") == true {
            _ = try write { _ in () }
            do { return try queue.readSnapshot(body) } catch { throw Self.translate(error) }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Cloud errors pass through; a lock held too long is the server being
    /// busy (retry later); anything else is a storage failure.
    static func translate(_ error: any Error) -> CloudError {
        if let cloudError = error as? CloudError { return cloudError }
        if let dbError = error as? DatabaseError {
            if dbError.resultCode == .SQLITE_BUSY || dbError.resultCode == .SQLITE_LOCKED {
                return .serviceUnavailable(retryAfter: 1)
            }
            return .storage(dbError.message ?? "\(dbError.resultCode)")
        }
        return .storage("\(error)")
    }
}
