import Cloud
import Foundation

/// Where log lines go.
public protocol SyncLogSink: Sendable {
    func write(_ line: String)
}

/// Appends lines to a file that several processes may share: each line is
/// one `write` on a descriptor opened with O_APPEND, so lines never interleave.
public final class FileLogSink: SyncLogSink {
    private let fd: Int32

    /// - Parameter fresh: empty the file first (one run's log), rather than add to what it holds.
    public init(path: String, fresh: Bool = false) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
    }

    deinit { close(fd) }

    public func write(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
    }
}

/// Keeps lines in memory, for tests.
public final class MemoryLogSink: SyncLogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    public init() {}
    public func write(_ line: String) { lock.withLock { stored.append(line) } }
    public var lines: [String] { lock.withLock { stored } }
}

/// Every event and request of one engine, with the device's name and a
/// timestamp, so a flow across devices can be followed in one merged file.
public struct SyncLog: Sendable {
    let sink: any SyncLogSink
    let device: String
    let clock: any CloudClock

    public init(sink: any SyncLogSink, device: String, clock: any CloudClock = SystemClock()) {
        self.sink = sink
        self.device = device
        self.clock = clock
    }

    func write(_ scope: DatabaseScope, _ kind: String, _ detail: String) {
        note("\(scope.rawValue) \(kind) \(detail)")
    }

    /// Writes one line of the caller's own (a simulation's step, say), stamped and named like the engine's.
    public func note(_ line: String) {
        let stamp = clock.now().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        sink.write("\(stamp) \(device) \(line)")
    }

    func event(_ scope: DatabaseScope, _ event: SyncEvent) {
        write(scope, "event", event.name + Self.detail(event))
    }

    private static func detail(_ event: SyncEvent) -> String {
        switch event {
        case .stateUpdate, .willFetchChanges, .didFetchChanges: ""
        case .accountChange(let change): " \(change)"
        case .fetchedDatabaseChanges(let modified, let deleted):
            " modified=\(modified.map(\.description)) deleted=\(deleted.map { "\($0.zone)(\($0.reason.rawValue))" })"
        case .fetchedRecordZoneChanges(let modified, let deleted):
            " modified=\(modified.map { "\($0.id)#\($0.changeTag ?? "")" }) deleted=\(deleted.map(\.id.description))"
        case .sentDatabaseChanges(let sent):
            " saved=\(sent.savedZones.map(\.description)) failed=\(sent.failedZoneSaves.map { "\($0.zone):\($0.error.code)" })"
                + " deleted=\(sent.deletedZones.map(\.description)) failedDeletes=\(sent.failedZoneDeletes.map { "\($0.key):\($0.value.code)" })"
        case .sentRecordZoneChanges(let sent):
            " saved=\(sent.savedRecords.map { "\($0.id)#\($0.changeTag ?? "")" })"
                + " failed=\(sent.failedRecordSaves.map { "\($0.record.id):\($0.error.code)" })"
                + " deleted=\(sent.deletedRecordIDs.map(\.description))"
                + " failedDeletes=\(sent.failedRecordDeletes.map { "\($0.key):\($0.value.code)" })"
        case .willFetchRecordZoneChanges(let zone, let fromScratch): " \(zone) fromScratch=\(fromScratch)"
        case .didFetchRecordZoneChanges(let zone, let error): " \(zone)" + (error.map { " error=\(($0 as? CloudError)?.code ?? "\($0)")" } ?? "")
        case .willSendChanges(let scope), .didSendChanges(let scope): " scope=\(scope)"
        }
    }
}
