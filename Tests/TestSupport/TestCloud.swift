import Cloud
import Foundation

/// A cloud in a temporary directory with a manual clock and seeded randomness.
public final class TestCloud: Sendable {
    public let directory: TemporaryDirectory
    public let clock: ManualClock
    public let cloud: LocalCloud
    /// The cloud's PostgreSQL database, on that store's run (`TestStore`); nil on SQLite's.
    public let storageURL: String?

    /// `start`: the clock's first time (the manual clock's own by default).
    public init(limits: CloudLimits = CloudLimits(), faults: FaultPlan? = .off, seed: UInt64 = 1, start: Date? = nil) throws {
        directory = TemporaryDirectory("cloud")
        clock = start.map(ManualClock.init) ?? ManualClock()
        storageURL = try TestStore.database(for: directory.url)
        cloud = try TestStore.open(directory: directory.url, clock: clock, random: SeededRandom(seed: seed), limits: limits, faults: faults)
    }

    /// Another connection to the same cloud, as another process would open it.
    public func reopen(faults: FaultPlan? = .off, seed: UInt64 = 2) throws -> LocalCloud {
        try TestStore.open(directory: directory.url, clock: clock, random: SeededRandom(seed: seed), faults: faults)
    }

    /// An account and its private database.
    public func privateDatabase(_ name: String) throws -> CloudDatabase {
        cloud.database(.private, as: try cloud.accountCreatingIfNeeded(name: name))
    }
}

extension Record {
    /// A record with string fields, for brevity in tests.
    public static func make(_ name: String, in zone: ZoneID, type: String = "Post", _ fields: [String: String] = [:]) -> Record {
        var record = Record(type: type, id: RecordID(name: name, zone: zone))
        for (key, value) in fields { record[key] = .string(value) }
        return record
    }

    public func string(_ key: String) -> String? {
        if case .string(let s) = self[key] { return s }
        return nil
    }
}
