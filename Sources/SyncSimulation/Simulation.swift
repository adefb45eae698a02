import Cloud
import Foundation
import Sync

/// Several devices of several accounts working against one cloud, in steps
/// drawn from a seed: writes, edits, deletes, zones, shares, accepts,
/// removals, sends and fetches in random interleavings, with transient
/// faults, zones deleted behind the engines' backs, and crashes between
/// the cloud applying a request and the device saving its state. At the end
/// every device settles and `SimulationCheck` looks for violations.
///
/// Everything random comes from the seed (the cloud's faults and IDs too,
/// and the clock is manual), so the same options replay the same run.
public final class Simulation {
    let options: SimulationOptions
    let random: SeededRandom
    let clock = ManualClock()
    let cloud: LocalCloud
    /// The same cloud with faults off, to learn what holds after a request failed.
    private let observer: LocalCloud
    public private(set) var accounts: [Account] = []
    public private(set) var devices: [MemoryDevice] = []
    var counts: [String: Int] = [:]
    var violations: [String] = []
    /// Where each step is written, with what it did (`noted`), when the run is logged.
    private let log: SyncLog?
    private var noted = ""
    /// The cloud's file, to empty or to put back to an older copy (`snapshots`), as careless operators do.
    private let tampering: CloudTampering
    private var snapshots: [Data] = []
    /// An account with no app that shares are shared with too, sending raw requests (`Adversary`).
    private let adversary: Adversary

    /// What the simulation did, for the checks.
    struct Model {
        struct SharedItem {
            var url: ShareURL
            var id: RecordID
            var owner: Account
        }
        var shares: [SharedItem] = []
        /// Accounts that were ever allowed to write in a zone.
        var writers: [ZoneID: Set<String>] = [:]
        var deletedRecords: Set<RecordID> = []
        var deletedZones: Set<ZoneID> = []
        /// How many writes each device had acknowledged when the cloud's file last went back (emptied, or an
        /// older copy): a record deleted on purpose before then may come back with the older copy.
        var acknowledgedBeforeRestore: [String: Int] = [:]
    }
    var model = Model()

    public init(_ options: SimulationOptions, directory: URL, log: (any SyncLogSink)? = nil) throws {
        self.options = options
        random = SeededRandom(seed: options.seed)
        cloud = try LocalCloud(directory: directory, clock: clock, random: SeededRandom(seed: options.seed &+ 0x5EED),
                          faults: nil, environment: [:])
        observer = try LocalCloud(directory: directory, clock: clock, faults: .off, environment: [:])
        tampering = CloudTampering(directory: directory)
        self.log = log.map { [clock] sink in SyncLog(sink: sink, device: "sim", clock: clock) }
        for a in 0..<max(1, options.accounts) { accounts.append(try cloud.createAccount(name: "a\(a)")) }
        adversary = Adversary(account: try cloud.createAccount(name: "eve"), observer: observer)
        for d in 0..<max(1, options.devices) {
            let account = accounts[d % accounts.count]
            let name = "\(account.name)/d\(d)"
            devices.append(try MemoryDevice(name: name, cloud: cloud, account: account,
                                            log: log.map { SyncLog(sink: $0, device: name, clock: clock) }))
        }
        for account in accounts {
            for z in 0..<3 { model.writers[ZoneID(name: "Z\(z)", owner: account.id), default: []].insert(account.id) }
        }
    }

    public func run() -> SimulationReport {
        violations += runSeeded(cloud: cloud, clock: clock, accounts: accounts, options: options, step: perform, settle: settle,
                                check: { try SimulationCheck(simulation: self).run() })
        return SimulationReport(seed: options.seed, steps: options.steps, counts: counts, violations: violations)
    }

    // MARK: Steps

    private func perform(_ step: Int) throws {
        let harsh = options.faultRate
        let choices: [(Double, String)] = [
            (25, "write"), (10, "writeShared"), (6, "delete"), (2, "createZone"), (1, "deleteZone"),
            (15, "send"), (15, "fetch"), (3, "share"), (4, "accept"), (1, "removeParticipant"),
            (1, "setPermission"), (1, "setPublic"), (1, "leave"), (0.5, "stopSharing"), (2, "rogueWrite"), (8, "attack"),
            (3 * harsh, "zoneDeletedBehindBack"), (5 * harsh, "crash"), (3 * harsh, "applyFails"),
            (1 * harsh, "snapshotCloud"), (0.25 * harsh, "emptyCloud"), (0.25 * harsh, "restoreCloud"),
        ]
        var pick = random.unit() * choices.map(\.0).reduce(0, +)
        var action = choices.last!.1
        for (weight, name) in choices {
            if pick < weight { action = name; break }
            pick -= weight
        }
        counts[action, default: 0] += 1
        let device = devices[random.below(devices.count)]
        let account = device.account.currentAccount()!
        noted = ""
        defer { log?.note("step \(step) \(action) on \(device.name)\(noted)") }
        switch action {
        case "write": write(on: device, account: account, step: step)
        case "writeShared": writeShared(on: device, step: step)
        case "delete": delete(on: device)
        case "createZone": device.createZone(zone(of: account))
        case "deleteZone":
            let zone = zone(of: account)
            model.deletedZones.insert(zone)
            device.deleteZone(zone)
        case "send": attempt(on: device) { try device.engine(scope()).sendChanges() }
        case "fetch": attempt(on: device) { try device.engine(scope()).fetchChanges() }
        case "applyFails":
            // The device's store fails to write a fetched batch: nothing of it may count as applied.
            device.failNextApply = true
            attempt(on: device) { try device.engine(scope()).fetchChanges() }
            device.failNextApply = false
        case "snapshotCloud":
            snapshots = Array((snapshots + [try tampering.snapshot()]).suffix(3))
        case "emptyCloud":
            noteRestore()
            try tampering.empty()
        case "restoreCloud":
            guard !snapshots.isEmpty else { break }
            let index = random.below(snapshots.count)
            noted = " to the copy \(snapshots.count - index) snapshots back"
            noteRestore()
            try tampering.restore(snapshots[index])
        case "share": share(by: account)
        case "accept": accept(as: account)
        case "removeParticipant", "setPermission", "setPublic", "leave", "stopSharing": changeShare(action, as: account)
        case "rogueWrite": rogueWrite(as: account)
        case "attack": try attack()
        case "zoneDeletedBehindBack":
            let zone = zone(of: account)
            let existed = try zoneExists(zone, of: account)
            attempt { try cloud.database(.private, as: account).delete(zone: zone) }
            // A network failure may have deleted it all the same: what counts is whether it is gone.
            if try existed && !zoneExists(zone, of: account) { model.deletedZones.insert(zone) }
        case "crash":
            device.die()
            attempt(on: device) { try device.engine(scope()).sendChanges() }
            try device.crashAndRestart()
        default: break
        }
    }

    private func noteRestore() {
        for device in devices { model.acknowledgedBeforeRestore[device.name] = device.acknowledged.count }
    }

    /// Runs a cloud call that may fail; true when it went through.
    @discardableResult
    func attempt(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            counts["refused", default: 0] += 1
            noted += " refused: \(error)"
            return false
        }
    }

    /// Runs a device's sync call; a device that finds the cloud emptied or
    /// restored rebuilds it from what it holds, as its person would be told to.
    private func attempt(on device: MemoryDevice, _ body: () throws -> Void) {
        do {
            try body()
        } catch SyncError.cloudChanged {
            counts["reupload", default: 0] += 1
            noted += " the cloud changed: reupload"
            attempt { try device.reupload() }
        } catch {
            counts["refused", default: 0] += 1
            noted += " refused: \(error)"
        }
    }

    private func scope() -> DatabaseScope { random.below(3) == 0 ? .shared : .private }

    private func zone(of account: Account) -> ZoneID { ZoneID(name: "Z\(random.below(3))", owner: account.id) }

    /// Whether the cloud holds the account's private zone now, read past the faults.
    private func zoneExists(_ zone: ZoneID, of account: Account) throws -> Bool {
        try observer.database(.private, as: account).allZones().contains(zone)
    }

    private func write(on device: MemoryDevice, account: Account, step: Int) {
        let zone = zone(of: account)
        let number = random.below(8)
        // Parents point to lower numbers only, so hierarchies never loop.
        let parent = number > 0 && random.below(3) == 0 ? "r\(random.below(number))" : nil
        noted = " r\(number)@\(zone) parent \(parent ?? "-")"
        device.write(RecordID(name: "r\(number)", zone: zone), fields: ["v": "\(device.name)#\(step)"], parent: parent, in: .private)
    }

    private func writeShared(on device: MemoryDevice, step: Int) {
        let shared = device.items(.shared).values.sorted { $0.id.description < $1.id.description }
        guard !shared.isEmpty else { return }
        let target = shared[random.below(shared.count)]
        if random.below(2) == 0 {
            device.write(target.id, fields: ["v": "\(device.name)#\(step)"], in: .shared)
        } else {
            let child = RecordID(name: "s\(random.below(6))", zone: target.id.zone)
            noted = " \(child) parent \(target.id.name)"
            device.write(child, fields: ["v": "\(device.name)#\(step)"], parent: target.id.name, in: .shared)
        }
    }

    private func delete(on device: MemoryDevice) {
        let scope = scope()
        let items = device.items(scope).keys.sorted { $0.description < $1.description }
        guard !items.isEmpty else { return }
        let id = items[random.below(items.count)]
        model.deletedRecords.insert(id)
        noted = " \(id) in \(scope.rawValue)"
        device.delete(id, in: scope)
    }

    // MARK: Sharing, done online as apps do

    private func others(than account: Account) -> [Account] { accounts.filter { $0.id != account.id } }

    private func share(by owner: Account) {
        let db = cloud.database(.private, as: owner)
        let zone = zone(of: owner)
        let permissions: [SharePermission] = [.readOnly, .readWrite]
        attempt {
            var share: Share
            var root: Record?
            let records = try db.zoneChanges(in: zone, since: nil).modified.filter { $0.type != Share.recordType }
            if random.below(3) == 0 || records.isEmpty {
                share = Share(zoneWide: zone, title: zone.name)
            } else {
                root = records[random.below(records.count)]
                share = Share(rootRecord: root!.id, title: root!.id.name)
            }
            if random.below(5) == 0 {
                share.publicPermission = permissions[random.below(2)]
            } else {
                for other in others(than: owner) + [adversary.account] where random.below(2) == 0 {
                    share.addParticipant(try db.lookUpParticipant(accountName: other.name), permission: permissions[random.below(2)])
                }
            }
            noted = " \(share.rootRecord.map { "root \($0)" } ?? "zone \(zone)") public \(share.publicPermission)"
                + " inviting \(share.participants.filter { $0.role != .owner }.map { "\($0.userRecordID ?? "?"):\($0.permission)" })"
            let saved = try db.saveShare(share, rootRecord: root)
            let writers = share.publicPermission == .readWrite ? Set((accounts + [adversary.account]).map(\.id))
                : Set(share.participants.filter { $0.permission == .readWrite }.compactMap(\.userRecordID))
            model.writers[zone, default: []].formUnion(writers)
            model.shares.append(Model.SharedItem(url: saved.url!, id: saved.share.id, owner: owner))
        }
    }

    private func accept(as account: Account) {
        let candidates = model.shares.filter { $0.owner.id != account.id }
        guard !candidates.isEmpty else { return }
        let share = candidates[random.below(candidates.count)]
        noted = " \(share.id) as \(account.name)"
        attempt { try cloud.acceptShare(share.url, as: account) }
    }

    private func changeShare(_ action: String, as account: Account) {
        guard !model.shares.isEmpty else { return }
        let share = model.shares[random.below(model.shares.count)]
        let owner = cloud.database(.private, as: share.owner)
        let other = others(than: share.owner).isEmpty ? nil : others(than: share.owner)[random.below(others(than: share.owner).count)]
        noted = " \(share.id) of \(share.owner.name), other \(other?.name ?? "-")"
        attempt {
            switch action {
            case "removeParticipant":
                if let other { try owner.removeParticipant(other.id, from: share.id) }
            case "setPermission":
                if let other {
                    let permission: SharePermission = random.below(2) == 0 ? .readOnly : .readWrite
                    noted += " to \(permission)"
                    defer { if permission == .readWrite { countWriter(other, of: share) } }
                    try owner.setPermission(permission, for: other.id, on: share.id)
                }
            case "setPublic":
                // Raised, lowered or closed: those who came in by the link follow it.
                let permission = SharePermission.allCases[random.below(SharePermission.allCases.count)]
                noted += " public \(permission)"
                try owner.setPublicPermission(permission, on: share.id)
                if permission == .readWrite {
                    model.writers[share.id.zone, default: []].formUnion((accounts + [adversary.account]).map(\.id))
                }
            case "leave":
                if let other { try cloud.database(.shared, as: other).deleteShare(share.id) }
            default:
                try owner.deleteShare(share.id)
            }
        }
    }

    /// The adversary accepts a share it may join, or sends one raw request; what it did must be within its rights.
    private func attack() throws {
        // Shares that would let it in: it was invited, or anyone with the link may join.
        let open = model.shares.filter { item in
            guard let share = try? observer.database(.private, as: item.owner).fetchShare(item.id) else { return false }
            return share.publicPermission != .none || share.participant(adversary.account.id)?.status == .pending
        }
        if random.below(2) == 0, !open.isEmpty {
            let share = open[random.below(open.count)]
            noted = " eve accepts \(share.id)"
            if (try? cloud.acceptShare(share.url, as: adversary.account)) != nil, (try? observer.database(.private, as: share.owner)
                .fetchShare(share.id).participant(adversary.account.id)?.permission) == .readWrite {
                model.writers[share.id.zone, default: []].insert(adversary.account.id)
            }
            return
        }
        let outcome = try adversary.attack(cloud, accounts: accounts + [adversary.account], random: random)
        noted = outcome.note
        violations += outcome.violations
        model.deletedRecords.formUnion(outcome.deleted)
        if let zone = outcome.wrote { model.writers[zone, default: []].insert(adversary.account.id) }
    }

    /// Counts `account` among the zone's writers if the share now lets it
    /// write, asked past the faults: a request whose response was lost may
    /// have gone through all the same.
    private func countWriter(_ account: Account, of share: Model.SharedItem) {
        let current = try? observer.database(.private, as: share.owner).fetchShare(share.id)
        if current?.participant(account.id)?.permission == .readWrite {
            model.writers[share.id.zone, default: []].insert(account.id)
        }
    }

    /// An account bypasses its app and writes to a share it may only read:
    /// the cloud must refuse.
    private func rogueWrite(as account: Account) {
        for share in model.shares where share.owner.id != account.id {
            guard let current = try? cloud.database(.private, as: share.owner).fetchShare(share.id),
                  let me = current.participant(account.id), me.status == .accepted, me.permission == .readOnly
            else { continue }
            // A record this share alone covers: its root, or any record of a zone-wide share.
            let shared = cloud.database(.shared, as: account)
            guard let records = try? shared.zoneChanges(in: share.id.zone, since: nil).modified,
                  var target = records.first(where: { $0.type != Share.recordType && (current.rootRecord ?? $0.id.name) == $0.id.name })
            else { continue }
            target["v"] = .string("rogue \(account.name)")
            do {
                try shared.save(target)
                violations.append("\(account.name) wrote \(target.id) through a read-only share")
            } catch CloudError.permissionFailure {
                counts["rogueRefused", default: 0] += 1
            } catch {
                counts["refused", default: 0] += 1
            }
            return
        }
    }

    // MARK: Settling

    /// With faults off, every device sends and fetches until nothing is
    /// pending anywhere, then fetches once more.
    private func settle() throws {
        for _ in 0..<40 {
            for device in devices {
                for scope in [DatabaseScope.private, .shared] {
                    attempt(on: device) { try device.engine(scope).sendChanges() }
                    attempt(on: device) { try device.engine(scope).fetchChanges() }
                }
            }
            let pending = devices.contains { device in
                [DatabaseScope.private, .shared].contains {
                    !device.engine($0).state.pendingRecordZoneChanges.isEmpty || !device.engine($0).state.pendingDatabaseChanges.isEmpty
                }
            }
            if !pending { break }
        }
        for device in devices {
            for scope in [DatabaseScope.private, .shared] { try device.engine(scope).fetchChanges() }
        }
    }
}
