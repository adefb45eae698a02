import Cloud
import Foundation

/// What the engine must remember between launches: the account it synced
/// as, its change tokens, and the changes waiting to be sent.
///
/// The app adds and removes pending changes; the engine reads them when it
/// sends. Every change is reported to the delegate as a state update with a
/// serialization to persist and hand back at the next launch.
public final class SyncState: @unchecked Sendable {
    /// Opaque bytes the app stores and gives back to a new engine.
    public struct Serialization: Hashable, Codable, Sendable {
        public let data: Data
        public init(data: Data) { self.data = data }
    }

    private let lock = NSLock()
    private var records = PendingList<PendingRecordZoneChange, RecordID> { $0.recordID }
    private var zones = PendingList<PendingDatabaseChange, ZoneID> { $0.zoneID }
    var accountID: String?
    var databaseToken: ChangeToken?
    var zoneTokens: [ZoneID: ChangeToken] = [:]
    /// Zones the database reported changed whose changes are not fetched yet:
    /// the database token has moved past them, so they must not be forgotten.
    var zonesToFetch: [ZoneID] = []
    /// Called (outside the lock) whenever the app changes pending changes.
    var onChange: (@Sendable () -> Void)?

    init() {}

    public var pendingRecordZoneChanges: [PendingRecordZoneChange] { lock.withLock { records.items } }
    public var pendingDatabaseChanges: [PendingDatabaseChange] { lock.withLock { zones.items } }

    /// The first `limit` pending record changes in `scope`, in the order they were added.
    public func pendingRecordZoneChanges(in scope: ZoneScope, limit: Int) -> [PendingRecordZoneChange] {
        lock.withLock { records.prefix(limit) { scope.contains($0.recordID.zone) } }
    }

    public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
        lock.withLock { records.add(changes) }
        onChange?()
    }

    public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
        lock.withLock { records.remove(changes) }
        onChange?()
    }

    public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
        lock.withLock { zones.add(changes) }
        onChange?()
    }

    public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
        lock.withLock { zones.remove(changes) }
        onChange?()
    }

    // MARK: For the engine

    func withLock<T>(_ body: (SyncState) throws -> T) rethrows -> T {
        try lock.withLock { try body(self) }
    }

    func recordVersion(_ change: PendingRecordZoneChange) -> Int? { lock.withLock { records.version(of: change) } }

    /// Removes sent changes, unless the app added them again during the send.
    func removeSent(_ changes: [(PendingRecordZoneChange, Int?)]) {
        lock.withLock { for (change, version) in changes { records.remove(change, ifStillAt: version) } }
    }

    func removeSent(_ changes: [PendingDatabaseChange]) {
        lock.withLock { zones.remove(changes) }
    }

    /// Forgets everything: a new account starts from nothing.
    func reset(accountID: String?) {
        lock.withLock {
            self.accountID = accountID
            databaseToken = nil
            zoneTokens = [:]
            zonesToFetch = []
            records = PendingList { $0.recordID }
            zones = PendingList { $0.zoneID }
        }
    }

    // MARK: Serialization

    private struct Stored: Codable {
        var version = 1
        var accountID: String?
        var databaseToken: ChangeToken?
        var zoneTokens: [ZoneTokenEntry]
        var zonesToFetch: [ZoneID]
        var pendingRecordZoneChanges: [PendingRecordZoneChange]
        var pendingDatabaseChanges: [PendingDatabaseChange]
    }

    private struct ZoneTokenEntry: Codable {
        var zone: ZoneID
        var token: ChangeToken
    }

    var serialization: Serialization {
        let stored = lock.withLock {
            Stored(accountID: accountID, databaseToken: databaseToken,
                   zoneTokens: zoneTokens.map { ZoneTokenEntry(zone: $0.key, token: $0.value) }
                       .sorted { $0.zone.description < $1.zone.description },
                   zonesToFetch: zonesToFetch,
                   pendingRecordZoneChanges: records.items, pendingDatabaseChanges: zones.items)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Serialization(data: (try? encoder.encode(stored)) ?? Data())
    }

    /// Restores a state from its serialization; malformed bytes are refused,
    /// never half-read.
    convenience init(_ serialization: Serialization) throws(SyncError) {
        self.init()
        guard let stored = try? JSONDecoder().decode(Stored.self, from: serialization.data), stored.version == 1 else {
            throw .malformedState
        }
        accountID = stored.accountID
        databaseToken = stored.databaseToken
        zoneTokens = Dictionary(stored.zoneTokens.map { ($0.zone, $0.token) }, uniquingKeysWith: { $1 })
        zonesToFetch = stored.zonesToFetch
        records.add(stored.pendingRecordZoneChanges)
        zones.add(stored.pendingDatabaseChanges)
    }
}

/// Errors of the sync engine itself (cloud errors pass through as they are).
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The saved state could not be read.
    case malformedState
    /// The device is signed out: nothing syncs.
    case signedOut

    public var description: String {
        switch self {
        case .malformedState: "the saved sync state is damaged; start again without it"
        case .signedOut: "signed out: sign in to an account to sync"
        }
    }
}
