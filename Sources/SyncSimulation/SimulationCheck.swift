import Cloud
import Foundation
import Sync

/// What must hold once every device has settled:
/// - every device holds exactly the cloud's records (names, change tags and
///   fields) of every zone its account can see, and nothing of any other zone;
/// - nothing is left pending;
/// - every write the cloud acknowledged is still there, or was overwritten
///   later, or was deleted on purpose;
/// - no record was written by an account that was never allowed to.
struct SimulationCheck {
    let simulation: Simulation

    func run() throws -> [String] {
        var violations: [String] = []
        let cloud = simulation.cloud
        for device in simulation.devices {
            let account = device.account.currentAccount()!
            for scope in [DatabaseScope.private, .shared] {
                let engine = device.engine(scope)
                if !engine.state.pendingRecordZoneChanges.isEmpty || !engine.state.pendingDatabaseChanges.isEmpty {
                    violations.append("\(device.name) \(scope.rawValue): still pending \(engine.state.pendingRecordZoneChanges)")
                }
                let db = cloud.database(scope, as: account)
                let zones = Set(try db.allZones())
                let items = device.items(scope)
                for zone in Set(items.keys.map(\.zone)).subtracting(zones) {
                    violations.append("\(device.name) \(scope.rawValue): holds zone \(zone) it cannot see")
                }
                for zone in zones {
                    let expected = try records(in: zone, of: db)
                    let held = items.filter { $0.key.zone == zone }
                    for (id, record) in expected {
                        guard let item = held[id] else {
                            violations.append("\(device.name) \(scope.rawValue): missing \(id)")
                            continue
                        }
                        if item.lastKnown?.changeTag != record.changeTag || item.fields != MemoryDevice.strings(record)
                            || item.parent != record.parent {
                            violations.append("\(device.name) \(scope.rawValue): \(id) differs from the cloud "
                                + "(\(item.fields) #\(item.lastKnown?.changeTag ?? "-") vs \(MemoryDevice.strings(record)) #\(record.changeTag ?? "-"))")
                        }
                    }
                    for id in held.keys where expected[id] == nil {
                        violations.append("\(device.name) \(scope.rawValue): holds \(id), which the cloud does not have")
                    }
                }
            }
        }
        let dump = try cloud.dump()
        violations += acknowledgedWrites(dump)
        violations += writers(dump)
        return violations
    }

    private func records(in zone: ZoneID, of db: CloudDatabase) throws -> [RecordID: Record] {
        var out: [RecordID: Record] = [:]
        for record in try db.everyRecord(in: zone) where record.type != Share.recordType { out[record.id] = record }
        return out
    }

    /// Every record of every private database, by ID.
    private func allRecords(_ dump: CloudDump) -> [RecordID: Record] {
        var out: [RecordID: Record] = [:]
        for database in dump.databases where database.scope == .private {
            for zone in database.zones { for record in zone.records { out[record.id] = record } }
        }
        return out
    }

    private func acknowledgedWrites(_ dump: CloudDump) -> [String] {
        let records = allRecords(dump)
        var violations: [String] = []
        let model = simulation.model
        for device in simulation.devices {
            for (index, (id, tag)) in device.acknowledged.enumerated() {
                let deletedOnPurpose = model.deletedRecords.contains(id) || model.deletedZones.contains(id.zone)
                // An older copy of the cloud put back brings back what was deleted on purpose before it.
                if deletedOnPurpose && index < model.acknowledgedBeforeRestore[device.name, default: 0] { continue }
                if let record = records[id] {
                    if let now = record.changeTag.flatMap({ Int($0, radix: 36) }), let then = Int(tag, radix: 36), now < then {
                        violations.append("\(id): acknowledged at \(tag) but the cloud holds the older \(record.changeTag!)")
                    }
                } else if !deletedOnPurpose, !kept(id, by: device, in: records) {
                    violations.append("\(id): acknowledged at \(tag) to \(device.name), then lost")
                }
            }
        }
        return violations
    }

    /// Whether a write into another's zone that the cloud lost is kept as the writer's own (`MemoryDevice.keptZoneName`).
    /// (Or was kept so, and deleted there on purpose since.)
    private func kept(_ id: RecordID, by device: MemoryDevice, in records: [RecordID: Record]) -> Bool {
        guard let me = device.account.currentAccount()?.id, id.zone.owner != me else { return false }
        let home = ZoneID(name: MemoryDevice.keptZoneName, owner: me)
        func isCopy(_ copy: RecordID) -> Bool { copy.zone == home && (copy.name == "r" + id.name || copy.name.hasPrefix("r\(id.name)-")) }
        return records.keys.contains(where: isCopy) || simulation.model.deletedRecords.contains(where: isCopy)
    }

    private func writers(_ dump: CloudDump) -> [String] {
        var violations: [String] = []
        for record in allRecords(dump).values where record.type != Share.recordType {
            let allowed = simulation.model.writers[record.id.zone, default: []].union([record.id.zone.owner])
            guard let system = record.system else { continue }
            for writer in [system.createdBy, system.modifiedBy] where !allowed.contains(writer) {
                violations.append("\(record.id) written by \(writer), who was never allowed to write there")
            }
        }
        return violations
    }
}
