import Cloud
import CloudClient
import CloudPostgres
import Crypto
import Foundation
import Notes
import Sync

/// Who the soak's processes are: three accounts; a0 shares its Notes
/// notebook read-write with a1 and read-only with a2; each account has
/// several devices, one process each.
struct SoakLayout {
    let root: URL
    /// The cloud's PostgreSQL database, when its state is kept in one rather than in the directory's file.
    var store: String?
    static let accounts = ["a0", "a1", "a2"]

    var cloudDirectory: URL { root.appendingPathComponent("cloud") }
    func device(_ index: Int) -> URL { root.appendingPathComponent("devices/d\(index)") }
    func journal(_ index: Int) -> URL { root.appendingPathComponent("journals/d\(index).log") }
    static func account(of process: Int) -> String { accounts[process % accounts.count] }

    /// The cloud itself; `environment` is where a nil `faults` comes from (a worker's own, `CLOUDNOTES_FAULTS`).
    func openCloud(faults: FaultPlan? = .off, environment: [String: String] = [:]) throws -> LocalCloud {
        try LocalCloud(directory: cloudDirectory, storage: store.map { try PostgresStorage(url: $0) }, faults: faults, environment: environment)
    }

    /// Where a device keeps its key for the server (its PEM and key ID).
    func key(_ index: Int) -> URL { root.appendingPathComponent("keys/d\(index).json") }

    struct DeviceKeyFile: Codable {
        var keyID: String
        var pem: String
        var account: Account
    }

    /// Enrols a key for each device, as `cloudnotes sign-in --code` would, for a run through a server.
    func enrolDevices(_ processes: Int, accountOf: (Int) -> String = Self.account(of:)) throws {
        let cloud = try openCloud()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("keys"), withIntermediateDirectories: true)
        for index in 0..<processes {
            let account = try cloud.account(named: accountOf(index))
            let key = P256.Signing.PrivateKey()
            let device = try cloud.enrol(code: try cloud.makeEnrolmentCode(for: account), publicKey: key.publicKey.derRepresentation,
                                         deviceName: "soak-d\(index)").key
            try JSONEncoder().encode(DeviceKeyFile(keyID: device.keyID, pem: key.pemRepresentation, account: account)).write(to: self.key(index))
        }
    }

    /// Device `index` reaching the cloud through the server at `url`.
    func remoteCloud(_ index: Int, server url: URL) throws -> RemoteCloud {
        try remoteCloud(index, servers: [url])
    }

    /// Device `index` reaching the cloud through the first of `servers` that answers.
    func remoteCloud(_ index: Int, servers: [URL]) throws -> RemoteCloud {
        let file = try JSONDecoder().decode(DeviceKeyFile.self, from: Data(contentsOf: key(index)))
        return RemoteCloud(servers: servers, credentials: .init(keyID: file.keyID, key: try P256.Signing.PrivateKey(pemRepresentation: file.pem),
                                                           account: file.account), timeout: 5)
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
