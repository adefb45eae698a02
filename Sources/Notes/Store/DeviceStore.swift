import Cloud
import Foundation
import GRDB
import SQLiteDirect
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's
import Sync

/// One device's data: `private.sqlite` mirrors the account's private
/// database, `shared.sqlite` its shared database; the shared file is
/// attached to the private one's connection, so both read as one.
///
/// Several processes may open a device at once (the front end and a
/// command), so the files stay in rollback-journal mode (the system SQLite
/// has the WAL-reset bug) and every write is one immediate transaction: a
/// change and its pending entry commit together or not at all.
public final class DeviceStore: @unchecked Sendable {
    public let directory: URL
    let queue: DatabaseQueue
    private let keyringLock = NSLock()
    private var _keyring: Keyring?
    private var _names: @Sendable (String) -> String = { $0 }
    let stagedStates = StagedStates()

    /// The keys this device seals and opens locations with; none, no locations travel.
    public var keyring: Keyring? {
        get { keyringLock.withLock { _keyring } }
        set { keyringLock.withLock { _keyring = newValue } }
    }

    /// This device's clock, for when a change arrived here (injected where a run must replay).
    public var now: @Sendable () -> Date {
        get { keyringLock.withLock { _now } }
        set { keyringLock.withLock { _now = newValue } }
    }
    private var _now: @Sendable () -> Date = Date.init

    /// Turns user record IDs into the account names a conflict block shows; IDs as they are until set.
    public var names: @Sendable (String) -> String {
        get { keyringLock.withLock { _names } }
        set { keyringLock.withLock { _names = newValue } }
    }

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let shared = directory.appendingPathComponent("shared.sqlite").path
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL")
            try db.execute(sql: "ATTACH DATABASE ? AS shared", arguments: [shared])
            try db.execute(sql: "PRAGMA shared.journal_mode = DELETE")
        }
        do {
            queue = try DatabaseQueue(path: directory.appendingPathComponent("private.sqlite").path, configuration: config)
            try queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {  // the tables `write` locks through may not exist yet
                    try StoreSchema.migrate(db, schema: "main")
                    try StoreSchema.migrate(db, schema: "shared")
                    return .commit
                }
            }
        } catch let error as DatabaseError {
            // Which file, and what SQLite found, on one line: the person can move it aside or restore it.
            throw StoreError.invalid("cannot open the device's store in \(directory.path) (private.sqlite, shared.sqlite): "
                                     + (error.message ?? "\(error.resultCode)"))
        }
        for file in ["private.sqlite", "shared.sqlite"] { chmod(directory.appendingPathComponent(file).path, 0o600) }
    }

    /// One transaction writing the store of each scope named (the private
    /// store when none is), whose write locks are taken before `body` runs,
    /// waiting as `BEGIN IMMEDIATE` would. `BEGIN IMMEDIATE` itself locks
    /// every attached file, and a commit holding two files locked goes
    /// through a super-journal: four more syncs on every commit, even on one
    /// that changed nothing.
    ///
    /// A transaction that changes anything also saves the sync states staged
    /// for its scopes since the last (see `stageState`), so they cost no
    /// commit of their own.
    func write<T>(_ scopes: DatabaseScope..., body: (Database) throws -> T) throws -> T {
        try write(locking: scopes.isEmpty ? [.private] : Set(scopes), body)
    }

    func write<T>(locking scopes: Set<DatabaseScope>, _ body: (Database) throws -> T) throws -> T {
        try transaction(locking: scopes) { db in
            let changesBefore = db.totalChangesCount
            let result = try body(db)
            return (result, db.totalChangesCount != changesBefore)
        }
    }

    /// Saves the staged sync states now, if there are any.
    func saveStagedStates() throws {
        let scopes = Set(stagedStates.current.keys)
        guard !scopes.isEmpty else { return }
        try transaction(locking: scopes) { _ in ((), true) }
    }

    /// The transaction behind `write`; `body` says whether the staged states go with it.
    private func transaction<T>(locking scopes: Set<DatabaseScope>,
                                _ body: (Database) throws -> (T, savesStates: Bool)) throws -> T {
        try queue.writeWithoutTransaction { db in
            var result: T?
            var savedStates: [DatabaseScope: SyncState.Serialization] = [:]
            try db.inTransaction(.deferred) {
                for scope in scopes.sorted(by: { $0.rawValue < $1.rawValue }) {
                    // A write statement takes the file's write lock even when it changes no row.
                    try db.execute(sql: "DELETE FROM \(Self.schema(scope)).pending WHERE 0")
                }
                let (value, savesStates) = try body(db)
                result = value
                if savesStates {
                    savedStates = stagedStates.current.filter { scopes.contains($0.key) }
                    for (scope, state) in savedStates { try Self.writeState(db, scope, state) }
                }
                return .commit
            }
            stagedStates.remove(savedStates)
            return result!
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.readSnapshot(body)
    }

    /// The schema name of a scope's store.
    static func schema(_ scope: DatabaseScope) -> String { scope == .shared ? "shared" : "main" }
}
