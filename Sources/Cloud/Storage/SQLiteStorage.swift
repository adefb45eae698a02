import Foundation
import GRDB
import SQLiteDirect

/// The cloud's one SQLite file in its directory, opened by many processes at once; pushes go by files in
/// `notify/`, watched with inotify.
///
/// The system SQLite (3.40) has the WAL-reset bug, which can corrupt a WAL
/// database when two processes write or checkpoint together; so the file
/// stays in rollback-journal mode and every request that changes state is
/// one `BEGIN IMMEDIATE` transaction, waiting on a busy timeout.
final class SQLiteStorage: CloudStorage {
    let queue: DatabaseQueue
    let path: String
    private let notifier: PushNotifier

    var dialect: SQLDialect { .sqlite }
    var location: String { path }

    init(path: String, notifyDirectory: URL, busyTimeout: TimeInterval = 30) throws(CloudError) {
        self.path = path
        notifier = PushNotifier(directory: notifyDirectory)
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        }
        try Self.refuseAnotherProgramsFile(at: path)
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            chmod(path, 0o600)
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    // A file whose cloud moved opens as it is, to be read; its writes are refused.
                    if try Schema.move(db) == nil { try Schema.migrate(db) }
                    return .commit
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Refuses a SQLite file that holds tables but not the cloud's (its version, `Schema`, and its first step's
    /// table), read without writing:
    /// another program's file, which opening it as the cloud's would change (its journal mode, its permissions,
    /// the cloud's tables written in). A new or emptied file, with no tables, is the cloud's to fill.
    private static func refuseAnotherProgramsFile(at path: String) throws(CloudError) {
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 else { return }
        var config = Configuration()
        config.readonly = true
        // Unreadable so (a hot journal a crash left, which only a writer rolls back; not SQLite at all): the
        // cloud's own opening says what it is.
        let refusal = try? DatabaseQueue(path: path, configuration: config).read { db -> String? in
            let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            // The cloud's first step made `sequence` and set the version, in one transaction.
            guard !tables.isEmpty, version == 0 || !tables.contains("sequence") else { return nil }
            if tables.isSuperset(of: ["sequence", "identity"]) {
                return "\(path) holds a cloud's tables but not its schema version (rebuilt with sqlite3's .dump, which leaves "
                    + "PRAGMA user_version out?): set it to the version of the copy it was made from"
            }
            return "\(path) is not a cloud's file: it holds another program's tables"
        }
        if let refusal = refusal ?? nil { throw .invalidArguments(refusal) }
    }

    /// Runs `body` in one immediate transaction: all of it commits, or none.
    /// A file emptied under an open connection gets its schema again first
    /// (`Cloud.recoverIfRestored` then gives it a new identity).
    func write<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    try Schema.migrate(db)
                    result = try body(SQLiteTransaction(db))
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
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws(CloudError) -> T {
        do {
            return try queue.readSnapshot { db in try body(SQLiteTransaction(db)) }
        } catch let error as DatabaseError where error.message?.hasPrefix("no such table") == true {
            _ = try write { _ in () }
            do { return try queue.readSnapshot { db in try body(SQLiteTransaction(db)) } } catch { throw Self.translate(error) }
        } catch {
            throw Self.translate(error)
        }
    }

    // MARK: The cloud moving to another store (`cloudnotes cloud migrate`)

    /// Where the file's cloud moved (`Schema.retire`), or nil while the file is the cloud's.
    func move() throws(CloudError) -> Schema.Move? {
        do { return try queue.read { db in try Schema.move(db) } } catch { throw Self.translate(error) }
    }

    /// Marks the file's cloud as moved to `destination`: from this commit on the file takes no write.
    func retire(movedTo destination: String, intoEmpty: Bool, at time: Date) throws(CloudError) {
        try write { db in try Schema.retire(db, movedTo: destination, intoEmpty: intoEmpty, at: time) }
    }

    /// Takes the mark back: the file is the cloud's again and takes writes; `then` runs in the same transaction.
    func unretire(then: (any SQLTransaction) throws -> Void = { _ in }) throws(CloudError) {
        do {
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try Schema.unretire(db)
                    try then(SQLiteTransaction(db))
                    return .commit
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    func post(_ topics: Set<PushTopic>, sequence: Int64) {
        notifier.post(topics, sequence: sequence)
    }

    func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        PushSubscription(directory: notifier.directory, topics: topics, handler: handler)
    }

    func integrityCheck() throws(CloudError) -> String {
        do {
            return try queue.readSnapshot { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
        } catch {
            throw Self.translate(error)
        }
    }

    static func translate(_ error: any Error) -> CloudError { CloudError(storageFailure: error) }
}

extension DatabaseError: StorageFailure {
    /// A lock held too long is the server being busy (retry later); anything else is a storage failure.
    public var cloudError: CloudError {
        if resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED { return .serviceUnavailable(retryAfter: 1) }
        return .storage(message ?? "\(resultCode)")
    }
}

/// A GRDB connection's open transaction, as the rules use it: each statement prepared once per connection
/// and run through SQLite's C API (`SQLiteDirect`), with no row copied.
final class SQLiteTransaction: SQLTransaction {
    let db: Database

    init(_ db: Database) { self.db = db }

    var dialect: SQLDialect { .sqlite }

    func run(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.run(binding: { binder in
            for value in values { binder.add(value) }
        }, row: { result in try row(result) })
        return statement.isReadonly ? 0 : db.changesCount
    }
}

extension StatementBinder {
    mutating func add(_ value: SQLValue) {
        switch value {
        case .null: add(nil as String?)
        case .integer(let v): add(v)
        case .real(let v): add(v)
        case .text(let v): add(v)
        case .blob(let v): add(v)
        }
    }
}

extension ResultRow: SQLRow {
    public func value(_ column: Int) -> SQLValue {
        switch kind(column) {
        case .null: .null
        case .integer: .integer(int64(column))
        case .real: .real(double(column) ?? 0)
        case .text: .text(text(column))
        case .blob: .blob(data(column) ?? Data())
        }
    }
}
