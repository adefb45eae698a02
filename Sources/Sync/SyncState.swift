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
    /// The identity of the cloud this state's tokens belong to (`Cloud.identity`).
    var cloudID: String?
    var databaseToken: ChangeToken?
    var zoneTokens: [ZoneID: ChangeToken] = [:]
    /// Zones whose changes are not fetched yet and that the database feed may
    /// not name again: reported changed (its token has moved past them), or
    /// known here from before a from-scratch listing (saved, or tokens forgotten).
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

    /// Takes a cloud with another identity as this state's from now on: its
    /// tokens meant nothing there, so every zone is fetched whole again;
    /// pending changes and the account stay.
    func adopt(cloud id: String) {
        lock.withLock {
            cloudID = id
            forgetTokens()
        }
    }

    /// Forgets every token, keeping each zone it knew as one to fetch: a
    /// database feed read from scratch lists the zones that exist, not those
    /// deleted meanwhile, and fetching each known zone tells which are gone.
    /// Called with the lock held.
    func forgetTokens() {
        zonesToFetch += zoneTokens.keys.sorted { $0.description < $1.description }.filter { !zonesToFetch.contains($0) }
        databaseToken = nil
        zoneTokens = [:]
    }

    /// Notes zones this device saved as ones to fetch, unless a token already
    /// follows them: a from-scratch database listing names only the zones that
    /// exist, so one deleted elsewhere before any fetch here would otherwise
    /// never be heard of. Called with the lock held.
    func fetchOnce(_ saved: [ZoneID]) {
        zonesToFetch += saved.filter { zoneTokens[$0] == nil && !zonesToFetch.contains($0) }
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

    /// The first byte of the binary serialization. Version 1 was JSON (it
    /// starts with `{`) and is still read; it cost more to encode than a
    /// large send spent on the cloud, since it lists every pending change.
    /// Form 3 adds the cloud's identity at the end; form 2 is still read.
    private static let form: UInt8 = 3

    var serialization: Serialization {
        lock.withLock {
            var out = ArchiveWriter(form: Self.form, capacity: 64 + 48 * records.count)
            out.optional(accountID) { $0.string($1) }
            out.optional(databaseToken) { $0.string($1.description) }
            out.count(zoneTokens.count)
            for (zone, token) in zoneTokens.sorted(by: { ($0.key.name, $0.key.owner) < ($1.key.name, $1.key.owner) }) {
                out.zone(zone)
                out.string(token.description)
            }
            out.count(zonesToFetch.count)
            for zone in zonesToFetch { out.zone(zone) }
            let pendingRecords = records.items
            out.count(pendingRecords.count)
            for change in pendingRecords {
                if case .saveRecord = change { out.byte(0) } else { out.byte(1) }
                out.zone(change.recordID.zone)
                out.string(change.recordID.name)
            }
            let pendingZones = zones.items
            out.count(pendingZones.count)
            for change in pendingZones {
                if case .saveZone = change { out.byte(0) } else { out.byte(1) }
                out.zone(change.zoneID)
            }
            out.optional(cloudID) { $0.string($1) }
            return Serialization(data: out.data)
        }
    }

    /// Restores a state from its serialization; malformed bytes are refused,
    /// never half-read.
    convenience init(_ serialization: Serialization) throws(SyncError) {
        self.init()
        if serialization.data.first == UInt8(ascii: "{") {
            try readVersion1(serialization.data)
        } else {
            do { try read(serialization.data) } catch { throw .malformedState }
        }
    }

    private func read(_ data: Data) throws(ArchiveDamaged) {
        let form = data.first == 2 ? 2 : Self.form
        var input = try ArchiveReader(data, form: form, what: "sync state")
        func token(_ input: inout ArchiveReader) throws(ArchiveDamaged) -> ChangeToken {
            let text = try input.string()
            guard let token = try? ChangeToken(parsing: text) else { throw input.damaged("'\(text)' is not a change token") }
            return token
        }
        func kind(_ input: inout ArchiveReader) throws(ArchiveDamaged) -> Bool {
            let byte = try input.byte()
            guard byte < 2 else { throw input.damaged("change kind \(byte)") }
            return byte == 0
        }
        accountID = try input.optional { input throws(ArchiveDamaged) in try input.string() }
        databaseToken = try input.optional(token)
        for _ in 0..<(try input.count()) { zoneTokens[try input.zone()] = try token(&input) }
        for _ in 0..<(try input.count()) { zonesToFetch.append(try input.zone()) }
        var pendingRecords: [PendingRecordZoneChange] = []
        for _ in 0..<(try input.count()) {
            let save = try kind(&input)
            let zone = try input.zone()
            let id = RecordID(name: try input.string(), zone: zone)
            pendingRecords.append(save ? .saveRecord(id) : .deleteRecord(id))
        }
        var pendingZones: [PendingDatabaseChange] = []
        for _ in 0..<(try input.count()) {
            let save = try kind(&input)
            let zone = try input.zone()
            pendingZones.append(save ? .saveZone(zone) : .deleteZone(zone))
        }
        if form >= 3 { cloudID = try input.optional { input throws(ArchiveDamaged) in try input.string() } }
        try input.end()
        records.add(pendingRecords)
        zones.add(pendingZones)
    }

    /// Version 1, JSON, as states saved before the binary form.
    private struct Version1: Decodable {
        struct ZoneTokenEntry: Decodable {
            var zone: ZoneID
            var token: ChangeToken
        }

        var version: Int
        var accountID: String?
        var databaseToken: ChangeToken?
        var zoneTokens: [ZoneTokenEntry]
        var zonesToFetch: [ZoneID]
        var pendingRecordZoneChanges: [PendingRecordZoneChange]
        var pendingDatabaseChanges: [PendingDatabaseChange]
    }

    private func readVersion1(_ data: Data) throws(SyncError) {
        guard let stored = try? JSONDecoder().decode(Version1.self, from: data), stored.version == 1 else {
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
    /// The app could not handle an event (a store write failed, say): the
    /// engine stopped there, and what the event carried comes again.
    case delegateFailed(event: String, cause: any Error)
    /// The cloud is not the one this state synced with (emptied, replaced,
    /// restored from an older copy): nothing syncs until the app decides
    /// (`SyncEngine.adopt`), so what the devices hold is never taken as deleted.
    case cloudChanged(remembered: String, found: CloudIdentity)
    /// The cloud could not give a zone's changes for a reason that is not the zone's end (a record it cannot read,
    /// a failure of its store): what the device holds of the zone stays as it was, and the zone is asked for
    /// again at the next fetch.
    case zoneUnreadable(ZoneID, cause: CloudError)

    public var description: String {
        switch self {
        case .malformedState: "the saved sync state is damaged; start again without it"
        case .signedOut: "signed out: sign in to an account to sync"
        case .delegateFailed(let event, let cause): "this device could not take in \(event): \(cause); it is tried again on the next sync"
        case .cloudChanged(let remembered, let found):
            "the cloud is not the one this device synced with (it was \(remembered), it is now \(found.id)): it was emptied, "
                + "replaced or restored from an older copy; nothing syncs, and everything stays on this device"
        case .zoneUnreadable(let zone, let cause):
            "the cloud cannot give the changes of zone \(zone.name): \(cause); what this device holds of it stays as it was, "
                + "and it is asked for again at the next sync"
        }
    }

    public static func == (a: SyncError, b: SyncError) -> Bool {
        switch (a, b) {
        case (.malformedState, .malformedState), (.signedOut, .signedOut): true
        case (.delegateFailed(let x, let c), .delegateFailed(let y, let d)): x == y && "\(c)" == "\(d)"
        case (.cloudChanged(let x, let c), .cloudChanged(let y, let d)): x == y && c == d
        case (.zoneUnreadable(let x, let c), .zoneUnreadable(let y, let d)): x == y && c == d
        default: false
        }
    }
}
