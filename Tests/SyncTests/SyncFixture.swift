import Cloud
import Foundation
import Sync
import SyncSimulation
import TestSupport

/// Two devices of one account (A and B) against one cloud, automatic sync off.
struct SyncFixture {
    let test: TestCloud
    let heather: Account
    let a: MemoryDevice, b: MemoryDevice
    let zone: ZoneID
    let log = MemoryLogSink()

    init(limits: CloudLimits = CloudLimits()) throws {
        test = try TestCloud(limits: limits, faults: nil)  // faults follow the directory's switch
        heather = try test.cloud.createAccount(name: "heather")
        a = try MemoryDevice(name: "heather/A", cloud: test.cloud, account: heather, log: SyncLog(sink: log, device: "heather/A"))
        b = try MemoryDevice(name: "heather/B", cloud: test.cloud, account: heather, log: SyncLog(sink: log, device: "heather/B"))
        zone = ZoneID(name: "Notes", owner: heather.id)
        a.createZone(zone)
        try a.engine(.private).sendChanges()
    }

    func id(_ name: String) -> RecordID { RecordID(name: name, zone: zone) }

    func send(_ device: MemoryDevice) throws { try device.engine(.private).sendChanges() }
    func fetch(_ device: MemoryDevice) throws { try device.engine(.private).fetchChanges() }

    func title(_ name: String, on device: MemoryDevice) -> String? {
        device.item(id(name), in: .private)?.fields["title"]
    }
}

/// Records every event an engine delivers, for order checks.
final class EventRecorder: SyncEngineDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var names: [String] = []
    var batchRecords: [Record] = []

    func handleEvent(_ event: SyncEvent, engine: SyncEngine) { lock.withLock { names.append(event.name) } }

    func nextRecordZoneChangeBatch(_ context: SendChangesContext, engine: SyncEngine) -> RecordZoneChangeBatch? {
        RecordZoneChangeBatch(pendingChanges: engine.state.pendingRecordZoneChanges) { id in
            batchRecords.first { $0.id == id }
        }
    }

    var all: [String] { lock.withLock { names } }
}
