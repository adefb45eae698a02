import ArgumentParser
import Cloud
import Foundation
import Notes
import Sync

/// `--account`, `--device`, `--cloud`: which device of which account, on which cloud.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Option(help: "The account (created in the cloud on first use).")
    var account: String

    @Option(help: "The device: one local copy of the account's data.")
    var device: String = "default"

    /// `$CLOUDNOTES_DATA`, else `$XDG_DATA_HOME/cloudnotes` (`~/.local/share/cloudnotes`).
    var dataDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let path = env["CLOUDNOTES_DATA"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return CloudOptions.dataHome(env).appendingPathComponent("cloudnotes")
    }

    func validate() throws {
        for (name, value) in [("--device", device)] where value.isEmpty || value.contains("/") || value.hasPrefix(".") {
            throw ValidationError("\(name) '\(value)' must be a plain name")
        }
    }

    /// Opens the device and, for commands that read, syncs first so they show what is current.
    func open(syncFirst: Bool) throws -> DeviceSession {
        let session = try open()
        if syncFirst { session.sync() }
        return session
    }

    func open() throws -> DeviceSession {
        let cloud = try cloud.open()
        let account = try cloud.accountCreatingIfNeeded(name: account)
        let directory = dataDirectory.appendingPathComponent("devices/\(account.name)/\(device)")
        let store = try DeviceStore(directory: directory)
        let keyring = try Keyring(directory: dataDirectory.appendingPathComponent("keychain"), account: account, cloud: cloud)
        store.keyring = keyring
        try? keyring.publish()  // offline: published on a later run
        _ = try store.ensureDefaultNotebook(owner: account.id)
        return DeviceSession(cloud: cloud, account: account, device: device, store: store)
    }
}

/// A device opened by a command.
struct DeviceSession {
    let cloud: Cloud
    let account: Account
    let device: String
    let store: DeviceStore

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
        do {
            let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/\(device)")
            try sync.syncNow()
            return sync.refusals.first.map { "refused by the cloud: \($0)" }
        } catch {
            return "not synced yet (\(error)); the change is kept and will be sent later"
        }
    }
}
