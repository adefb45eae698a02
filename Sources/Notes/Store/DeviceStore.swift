import Cloud
import Foundation
import GRDB
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
    let stagedStates = StagedStates()

    /// The keys this device seals and opens locations with; none, no locations travel.
    public var keyring: Keyring? {
        get { keyringLock.withLock { _keyring } }
        set { keyringLock.withLock { _keyring = newValue } }
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
        queue = try DatabaseQueue(path: directory.appendingPathComponent("private.sqlite").path, configuration: config)
        try write { db in
            try StoreSchema.migrate(db, schema: "main")
            try StoreSchema.migrate(db, schema: "shared")
        }
        for file in ["private.sqlite", "shared.sqlite"] { chmod(directory.appendingPathComponent(file).path, 0o600) }
    }

    /// One immediate transaction. One that changes anything also saves the
    /// sync states staged since the last (see `stageState`), so they cost no
    /// commit of their own.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction { db in
            var result: T?
            var savedStates: [DatabaseScope: SyncState.Serialization] = [:]
            try db.inTransaction(.immediate) {
                let changesBefore = db.totalChangesCount
                result = try body(db)
                if db.totalChangesCount != changesBefore {
                    savedStates = stagedStates.current
                    for (scope, state) in savedStates { try Self.writeState(db, scope, state) }
                }
                return .commit
            }
            stagedStates.remove(savedStates)
            return result!
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read(body)
    }

    /// The schema name of a scope's store.
    static func schema(_ scope: DatabaseScope) -> String { scope == .shared ? "shared" : "main" }
}
