import Cloud
import Foundation
import Sync
import SyncSimulation
import Synchronization
import Testing
import TestSupport

/// A delegate that keeps what it is told, with automatic sync on.
final class LiveDevice: SyncEngineDelegate, @unchecked Sendable {
    let records = Mutex<[RecordID: Record]>([:])
    let outbox = Mutex<[RecordID: Record]>([:])

    func handleEvent(_ event: SyncEvent, engine: SyncEngine) {
        switch event {
        case .fetchedRecordZoneChanges(let modifications, _):
            records.withLock { for r in modifications { $0[r.id] = r } }
        case .sentRecordZoneChanges(let sent):
            outbox.withLock { for r in sent.savedRecords { $0[r.id] = nil } }
        default:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: SendChangesContext, engine: SyncEngine) -> RecordZoneChangeBatch? {
        let outbox = self.outbox.withLock { $0 }
        return RecordZoneChangeBatch(pendingChanges: engine.state.pendingRecordZoneChanges) { outbox[$0] }
    }

    func save(_ record: Record, with engine: SyncEngine) {
        outbox.withLock { $0[record.id] = record }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(record.id)])
    }
}

@Suite struct AutomaticSyncTests {
    @Test func aChangeOnOneDeviceReachesTheOtherWithoutAnyCall() throws {
        let test = try TestCloud(faults: nil)
        let heather = try test.cloud.createAccount(name: "heather")
        let db = test.cloud.database(.private, as: heather)
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let a = LiveDevice(), b = LiveDevice()
        let engineA = try SyncEngine(.init(database: db, stateSerialization: nil, delegate: a))
        let engineB = try SyncEngine(.init(database: db, stateSerialization: nil, delegate: b))
        defer { engineA.stop(); engineB.stop() }

        a.save(.make("p1", in: zone, ["title": "live"]), with: engineA)

        #expect(eventually(timeout: 10) { b.records.withLock { $0[RecordID(name: "p1", zone: zone)] } != nil })
        // (b may hear of it before a's engine has taken the cloud's answer in: a busy machine showed that race.)
        #expect(eventually(timeout: 10) { engineA.state.pendingRecordZoneChanges.isEmpty })
    }

    @Test func transientErrorsAreRetriedUntilTheCloudComesBack() throws {
        let test = try TestCloud(faults: nil)
        let heather = try test.cloud.createAccount(name: "heather")
        let db = test.cloud.database(.private, as: heather)
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try test.cloud.setFaultPlan(FaultPlan(rate: 1, errors: [.serviceUnavailable], retryAfter: 0.05))
        let a = LiveDevice()
        var timing = SyncTiming()
        timing.backoffBase = 0.05
        let log = MemoryLogSink()
        let engine = try SyncEngine(.init(database: db, stateSerialization: nil, delegate: a,
                                          log: SyncLog(sink: log, device: "A"), timing: timing))
        defer { engine.stop() }

        a.save(.make("p1", in: zone), with: engine)
        #expect(eventually(timeout: 5) { log.lines.filter { $0.contains("serviceUnavailable") }.count >= 3 })
        try test.cloud.setFaultPlan(.off)

        #expect(eventually(timeout: 10) { engine.state.pendingRecordZoneChanges.isEmpty })
        #expect(try db.record(RecordID(name: "p1", zone: zone)).id.name == "p1")
        let attempts = log.lines.filter { $0.contains("request identity") }.count
        #expect(attempts < 40, "backed off rather than spun: \(attempts) attempts")
    }
}
