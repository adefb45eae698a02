import ArgumentParser
import Cloud
import CloudClient
import Foundation
import Notes
import Sync

/// `--account`, `--device`, `--cloud`: which device of which account, on which cloud.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Option(help: "The account (created in the cloud on first use; default: $CLOUDNOTES_ACCOUNT, else $USER).")
    var account: String?

    @Option(help: "The device: one local copy of an account's data (default: one named after the account).")
    var device: String?

    /// `$CLOUDNOTES_DATA`, else `$XDG_DATA_HOME/cloudnotes` (`~/.local/share/cloudnotes`).
    var dataDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let path = env["CLOUDNOTES_DATA"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return CloudOptions.dataHome(env).appendingPathComponent("cloudnotes")
    }

    /// The account asked for, or the one the environment names.
    var accountName: String {
        let env = ProcessInfo.processInfo.environment
        return account ?? [env["CLOUDNOTES_ACCOUNT"], env["USER"]].compactMap { $0 }.first { !$0.isEmpty } ?? "me"
    }

    var deviceName: String { device ?? accountName }

    func validate() throws {
        if deviceName.isEmpty || deviceName.contains("/") || deviceName.hasPrefix(".") || deviceName.count > 64
            || !deviceName.unicodeScalars.allSatisfy(NameRules.isPrintable) {
            throw ValidationError("--device \(deviceName.prefix(40).inlineQuoted) must be a plain name of at most 64 characters")
        }
    }

    var deviceDirectory: URL { dataDirectory.appendingPathComponent("devices/\(deviceName)") }

    /// The account a device is signed into, recorded in its directory; nil for a new device.
    static func signedIn(_ directory: URL) -> String? {
        (try? String(contentsOf: directory.appendingPathComponent("account"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func signIn(_ directory: URL, as account: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if remembered(directory)?.name != account {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(Self.identityFile))  // learnt again at the next open
        }
        try writePrivately(Data((account + "\n").utf8), to: directory.appendingPathComponent("account"))
    }

    /// Writes a file of the device's whole, readable by its owner only (whatever the umask), atomically.
    static func writePrivately(_ data: Data, to url: URL) throws {
        try data.write(to: url, options: .atomic)
        guard chmod(url.path, 0o600) == 0 else { throw CLIError(message: "cannot make \(url.path) private to its owner") }
    }

    /// The account (user record ID, email) the device belongs to, as it first met it in the cloud: a cloud
    /// that lost the account, or made a new one of the same name, does not change whose data the device holds.
    static let identityFile = "account.json"

    static func remembered(_ directory: URL) -> Account? {
        (try? Data(contentsOf: directory.appendingPathComponent(identityFile))).flatMap { try? JSONDecoder().decode(Account.self, from: $0) }
    }

    static func remember(_ account: Account, in directory: URL) throws {
        try writePrivately(try JSONEncoder().encode(account), to: directory.appendingPathComponent(identityFile))
    }

    /// Opens the device and, for commands that read, syncs first so they show what is current.
    func open(syncFirst: Bool) throws -> DeviceSession {
        let session = try open()
        if syncFirst { session.sync() }
        return session
    }

    func open() throws -> DeviceSession {
        let directory = deviceDirectory
        let name = accountName
        switch Self.signedIn(directory) {
        case nil: try Self.signIn(directory, as: name)
        case name?: break
        case let other?:
            throw CLIError(message: "device \(deviceName) is signed into \(other); to switch: cloudnotes sign-in \(name) --device \(deviceName)")
        }
        let cloud: any Cloud
        let account: Account
        if let server = self.cloud.server {
            guard let credentials = try ServerSignIn.load(from: directory, server: server) else {
                throw CLIError(message: "device \(deviceName) is not signed in to \(server.absoluteString): "
                               + "cloudnotes sign-in \(name) --device \(deviceName) --cloud \(server.absoluteString) --code CODE "
                               + "(its operator prints a code with: cloudnotes cloud enrol \(name))")
            }
            guard credentials.account.name == name else {
                throw CLIError(message: "device \(deviceName) is signed in to \(server.absoluteString) as \(credentials.account.name), not \(name)")
            }
            cloud = RemoteCloud(servers: self.cloud.servers, credentials: credentials)
            account = credentials.account
            if Self.remembered(directory) == nil { try Self.remember(account, in: directory) }
        } else if let known = Self.remembered(directory), known.name == name {
            cloud = try self.cloud.open()
            account = known  // even if the cloud lost it, or holds another of that name: the sync says so
        } else {
            let local = try self.cloud.open()
            cloud = local
            account = try local.accountCreatingIfNeeded(name: name)
            try Self.remember(account, in: directory)
        }
        let store = try DeviceStore(directory: directory)
        let names = try AccountNames(cloud)
        store.names = { names($0) }
        let keyring = try Keyring(directory: dataDirectory.appendingPathComponent("keychain"), account: account, cloud: cloud)
        store.keyring = keyring
        try? keyring.publish()  // offline: published on a later run
        _ = try store.ensureDefaultNotebook(owner: account.id)
        return DeviceSession(cloud: cloud, account: account, device: deviceName, store: store)
    }
}

/// A device opened by a command.
struct DeviceSession {
    let cloud: any Cloud
    let account: Account
    let device: String
    let store: DeviceStore

    var postSharing: PostSharing { PostSharing(store: store, cloud: cloud, account: account) }

    /// Who the command's edits are by.
    var editor: Editor { Editor(account: account, device: device) }

    func sharing() throws -> StoreSharingProvider {
        let names = try AccountNames(cloud)
        return StoreSharingProvider(store: store, account: account) { names($0) }
    }

    /// Syncs now if no other process is syncing this device; otherwise wakes
    /// that process (the front end), which sends the change for us.
    /// Returns a line to print when the sync could not finish.
    @discardableResult
    func sync() -> String? {
        guard let lock = DeviceLock(directory: store.directory) else {
            DeviceLock.wake(directory: store.directory)
            return nil
        }
        defer { withExtendedLifetime(lock) {} }
        var made: NotesSync?
        do {
            let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/\(device)")
            made = sync
            try sync.syncNow()
            return sync.refusals.first.map { Self.refusedPrefix + "\($0)" }
        } catch {
            let said = made?.explain(error) ?? "\(error)"
            if error is SyncError { return "not synced: \(said)" }
            return "not synced yet (\(said)); the change is kept and will be sent later"
        }
    }

    /// How `sync()` begins a note about a change the cloud refused.
    static let refusedPrefix = "refused by the cloud: "

    /// Rebuilds a cloud that lost this device's data from it (`NotesSync.reupload`); needs the device's lock.
    func reupload() throws {
        guard let lock = DeviceLock(directory: store.directory) else {
            throw CLIError(message: "another process (the front end?) syncs device \(device): quit it, or use :reupload there")
        }
        defer { withExtendedLifetime(lock) {} }
        let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/\(device)")
        try sync.reupload()
    }
}
