import Cloud
import Foundation
import Notes
import Sync

/// Who the soak's processes are: three accounts; a0 shares its Notes
/// notebook read-write with a1 and read-only with a2; each account has
/// several devices, one process each.
struct SoakLayout {
    let root: URL
    static let accounts = ["a0", "a1", "a2"]

    var cloudDirectory: URL { root.appendingPathComponent("cloud") }
    func device(_ index: Int) -> URL { root.appendingPathComponent("devices/d\(index)") }
    func journal(_ index: Int) -> URL { root.appendingPathComponent("journals/d\(index).log") }
    static func account(of process: Int) -> String { accounts[process % accounts.count] }

    func openCloud(faults: FaultPlan? = .off) throws -> LocalCloud {
        try LocalCloud(directory: cloudDirectory, faults: faults, environment: [:])
    }

    /// Accounts, the shared notebook, and its acceptance.
    func prepare() throws -> String {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("journals"), withIntermediateDirectories: true)
        let cloud = try openCloud()
        let accounts = try Self.accounts.map { try cloud.accountCreatingIfNeeded(name: $0) }
        let owner = try NotesSync(store: try DeviceStore(directory: root.appendingPathComponent("setup")), cloud: cloud,
                                  account: FixedAccount(accounts[0]))
        _ = try owner.store.ensureDefaultNotebook(owner: accounts[0].id)
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: cloud, account: accounts[0])
        let url = try sharing.share(notebook: "Notes", inviting: ["a1"], permission: .readWrite)
        let db = cloud.database(.private, as: accounts[0])
        let shareID = RecordID(name: Share.zoneWideRecordName, zone: ZoneID(name: "Notes", owner: accounts[0].id))
        _ = try db.addParticipant(try db.lookUpParticipant(accountName: "a2"), permission: .readOnly, to: shareID)
        for reader in accounts[1...] { _ = try cloud.acceptShare(url, as: reader) }
        return "a0 shares Notes: a1 read-write, a2 read-only"
    }
}
