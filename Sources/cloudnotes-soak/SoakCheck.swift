import Cloud
import Foundation
import GRDB
import Notes
import Sync
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// After the load: every device settles with the cloud reachable, then the
/// run is checked. Devices of an account hold the same posts, and the shared
/// notebook reads the same for its owner and its participants; every write a
/// store acknowledged is in the cloud and on every device that sees the post;
/// nothing waits to be sent; every file passes `PRAGMA integrity_check`; and
/// the read-only participant never wrote.
struct SoakCheck {
    let layout: SoakLayout
    let processes: Int

    struct Report {
        var summary: String
        var violations: [String]
    }

    /// A post as compared across devices.
    struct Seen: Hashable {
        var id: String
        var zone: String
        var content: String
    }

    func run() throws -> Report {
        let cloud = try layout.openCloud(faults: .off)
        let accounts = Dictionary(uniqueKeysWithValues: try SoakLayout.accounts.map { ($0, try cloud.account(named: $0)) })
        let devices = try (0..<processes).map { index in
            try NotesSync(store: try DeviceStore(directory: layout.device(index)), cloud: cloud,
                          account: FixedAccount(accounts[SoakLayout.account(of: index)]!))
        }
        var violations: [String] = []
        for _ in 0..<3 {
            for (index, device) in devices.enumerated() {
                do { try device.syncNow() } catch { violations.append("d\(index) could not settle: \(error)") }
            }
        }
        if !violations.isEmpty { violations = [] ; for device in devices { try device.syncNow() } }  // a last pass must succeed

        // Nothing stuck, nothing damaged.
        for (index, device) in devices.enumerated() where try device.store.pendingCount() > 0 {
            violations.append("d\(index) still has \(try device.store.pendingCount()) changes waiting after settling")
        }
        let cloudCheck = try cloud.integrityCheck()
        if cloudCheck != "ok" { violations.append("cloud integrity_check: \(cloudCheck)") }
        for index in 0..<processes {
            for file in ["private.sqlite", "shared.sqlite"] {
                let db = try DatabaseQueue(path: layout.device(index).appendingPathComponent(file).path)
                let result = try db.read { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: "; ") }
                if result != "ok" { violations.append("d\(index)/\(file) integrity_check: \(result)") }
            }
        }

        // Convergence: devices of one account agree; the shared notebook reads the same for all three accounts.
        var byAccount: [String: Set<Seen>] = [:]
        for (index, device) in devices.enumerated() {
            let name = SoakLayout.account(of: index)
            let seen = Set(try device.store.posts().map { Seen(id: $0.id, zone: "\($0.zone.name)/\($0.zone.owner)", content: $0.content) })
            if let other = byAccount[name], other != seen {
                violations.append("d\(index) (\(name)) differs from another device of \(name): \(other.symmetricDifference(seen).count) posts")
            }
            byAccount[name] = byAccount[name] ?? seen
        }
        let sharedZone = "Notes/\(accounts["a0"]!.id)"
        let sharedViews = SoakLayout.accounts.map { byAccount[$0, default: []].filter { $0.zone == sharedZone } }
        if Set(sharedViews).count > 1 { violations.append("the shared notebook differs between its owner and participants") }

        // Every acknowledged write survives, in the cloud and on every device of the account that wrote it.
        var acknowledged = 0
        for index in 0..<processes {
            let lines = (try? String(contentsOf: layout.journal(index), encoding: .utf8))?.split(separator: "\n") ?? []
            for line in lines {
                let parts = line.split(separator: " ").map(String.init)
                if parts.first == "violation" { violations.append("d\(index): " + parts.dropFirst().joined(separator: " ")) }
                guard parts.first == "ack", parts.count == 6 else { continue }
                acknowledged += 1
                let (zone, id, token) = (ZoneID(name: parts[2], owner: parts[3]), parts[4], parts[5])
                let owner = accounts.values.first { $0.id == zone.owner }!
                let record: Record? = try? cloud.database(.private, as: owner).record(RecordID(name: id, zone: zone))
                let content: String
                if case .string(let text)? = record?["content"] { content = text } else { content = "" }
                guard content.contains(token) else {
                    violations.append("d\(index): \(token) (post \(id)) acknowledged but not in the cloud")
                    continue
                }
                // A post ID names a post within its zone only.
                let seen = byAccount[SoakLayout.account(of: index), default: []].first { $0.id == id && $0.zone == "\(zone.name)/\(zone.owner)" }
                if seen?.content.contains(token) != true { violations.append("d\(index): \(token) (post \(id)) not on the devices of its account") }
            }
        }

        // The cloud never took a write from the read-only participant into the shared notebook.
        let a0 = accounts["a0"]!, a2 = accounts["a2"]!
        var token: ChangeToken?
        repeat {
            let changes = try cloud.database(.private, as: a0).zoneChanges(in: ZoneID(name: "Notes", owner: a0.id), since: token)
            // (Accepting changes the share record itself; that is the participant's own part of it.)
            for record in changes.modified where record.type != Share.recordType
                && (record.system?.modifiedBy == a2.id || record.system?.createdBy == a2.id) {
                violations.append("a2 (read-only) wrote \(record.id.name) in a0's shared notebook")
            }
            token = changes.moreComing ? changes.token : nil
        } while token != nil
        let posts = byAccount.values.reduce(0) { $0 + $1.count }
        let summary = violations.isEmpty
            ? "ok: \(acknowledged) acknowledged writes all present, \(posts) posts converged, integrity ok, no unauthorized write"
            : "\(violations.count) violations"
        return Report(summary: summary, violations: violations)
    }
}
