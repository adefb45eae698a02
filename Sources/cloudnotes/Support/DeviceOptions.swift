import ArgumentParser
import Cloud
import CloudClient
import Foundation
import Notes
import Sync

/// `--account`, `--device`, `--cloud`: which device of which account, on which cloud.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Option(help: "The account, one the cloud knows (`cloudnotes sign-in NAME` makes one; default: $CLOUDNOTES_ACCOUNT, else $USER).")
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

    /// The account a device is signed into, recorded in its directory; nil for a new device. A record that is
    /// there and does not read is said: taken for none, the device would be opened as anyone.
    static func signedIn(_ directory: URL) throws -> String? {
        let file = directory.appendingPathComponent("account")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw CLIError(message: "the record of whom device \(directory.lastPathComponent) is signed into (\(file.path)) does not read: "
                           + "\(error.localizedDescription); sign it in again with cloudnotes sign-in NAME --device \(directory.lastPathComponent)")
        }
    }

    static func signIn(_ directory: URL, as account: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // (A record that does not read is replaced: signing in is how one mends it.)
        if (try? remembered(directory))??.name != account {
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

    /// The account the device belongs to (`identityFile`), nil if none is recorded; one that does not read is
    /// said, not taken for none (the device would then take whatever account of that name the cloud has now).
    static func remembered(_ directory: URL) throws -> Account? {
        let file = directory.appendingPathComponent(identityFile)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try JSONDecoder().decode(Account.self, from: Data(contentsOf: file))
        } catch {
            throw CLIError(message: "the record of whose data device \(directory.lastPathComponent) holds (\(file.path)) does not read: "
                           + "\(error.localizedDescription); sign it in again with cloudnotes sign-in NAME --device \(directory.lastPathComponent)")
        }
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

    /// - Parameters:
    ///   - creatingAccount: make the account if its cloud (a directory's) does not know it (`sign-in`); otherwise a
    ///     name the cloud does not know is refused, with the names it may have meant.
    ///   - creatingCloud: make a cloud in a directory that holds none (`sign-in --init`).
    ///   - signingIn: the command is `sign-in`, which makes devices on purpose; any other that makes one says so.
    func open(creatingAccount: Bool = false, creatingCloud: Bool = false, signingIn: Bool = false, holdingUse: Bool = true) throws -> DeviceSession {
        let directory = deviceDirectory
        let name = accountName
        // Held before the device is asked whose it is, so no switch comes between that and this command's writes. (A
        // front end does not hold it for its life: a switch under it closes it; see OpenFrontEnd.)
        if holdingUse, FileManager.default.fileExists(atPath: directory.path), !DeviceUse.share(directory) {
            throw CLIError(message: "device \(deviceName) is being signed into another account; try again when that ends")
        }
        let signedIn = try Self.signedIn(directory)
        if let other = signedIn, other != name {
            throw CLIError(message: "device \(deviceName) is signed into \(other); to switch: cloudnotes sign-in \(name) --device \(deviceName)")
        }
        let existed = FileManager.default.fileExists(atPath: directory.path)
        // A name that differs from one of the account's devices only in case or spaces is a slip, not a new device.
        if !existed, !signingIn, let meant = otherDevices().first(where: { Self.sameDevice($0, deviceName) }) {
            throw CLIError(message: "there is no device '\(deviceName)' of \(name)'s here: did you mean \(meant)? (to make one on purpose: "
                           + "cloudnotes sign-in \(name) --device '\(deviceName)')")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let session = try open(directory, signedIn: signedIn, creatingAccount: creatingAccount, creatingCloud: creatingCloud)
            if !existed, !signingIn { noteNewDevice() }
            return session
        } catch {
            // A device this command was making is not left behind, empty, by its refusal (a misspelt --account).
            // (Best effort: what could not be removed is an empty directory, the next command's to use.)
            if !existed { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
    }

    /// A device made by a command other than `sign-in` (a misspelt --device, say) beside others of the account:
    /// said, so nobody takes a fresh copy for the one they meant, nor wonders where what they write now went.
    private func noteNewDevice() {
        let others = otherDevices()
        guard !others.isEmpty else { return }
        Output.note("device \(deviceName) is new: a copy of \(accountName)'s notes of its own (\(accountName)'s other devices here: "
                    + "\(others.joined(separator: ", ")))")
    }

    /// The account's other devices on this machine, by name.
    private func otherDevices() -> [String] {
        let devices = dataDirectory.appendingPathComponent("devices")
        // (Unreadable entries are no devices of this account's: those it can read are named.)
        return ((try? FileManager.default.contentsOfDirectory(atPath: devices.path)) ?? []).sorted().filter { other in
            other != deviceName && (try? Self.signedIn(devices.appendingPathComponent(other))) == accountName
        }
    }

    private static func sameDevice(_ a: String, _ b: String) -> Bool {
        a.trimmingCharacters(in: .whitespaces).lowercased() == b.trimmingCharacters(in: .whitespaces).lowercased()
    }

    private func open(_ directory: URL, signedIn: String?, creatingAccount: Bool, creatingCloud: Bool) throws -> DeviceSession {
        let name = accountName
        let cloud: any Cloud
        let account: Account
        let (place, isNew) = try self.place(of: directory)
        if let servers = place.servers {
            guard let credentials = try ServerSignIn.load(from: directory) else {
                throw CLIError(message: "device \(deviceName) is not signed in to \(place.description): "
                               + "cloudnotes sign-in \(name) --device \(deviceName) --cloud \(servers[0]) --code CODE "
                               + "(its operator prints a code with: cloudnotes cloud enrol \(name))")
            }
            guard credentials.account.name == name else {
                throw CLIError(message: "device \(deviceName) is signed in to \(place.description) as \(credentials.account.name), not \(name)")
            }
            cloud = RemoteCloud(servers: servers.compactMap(URL.init(string:)), credentials: credentials)
            account = credentials.account
            if try Self.remembered(directory) == nil { try Self.remember(account, in: directory) }
        } else {
            // A device that knows its cloud opens it even if it is gone (emptied, removed): the sync then says so,
            // and how to rebuild it. Otherwise only a cloud that exists, unless asked to make one.
            let options = self.cloud(at: place), creating = creatingCloud || (!isNew && place.identity != nil)
            if !creating, isNew, !self.cloud.isNamed, try !options.holdsCloud() {
                throw CLIError(message: "there is no cloud here yet (\(options.url.path)): to start one and sign in, cloudnotes sign-in \(name) "
                               + "--init; to use a server, cloudnotes sign-in \(name) --cloud https://SERVER --code CODE")
            }
            let local = try options.open(creating: creating)
            cloud = local
            if let known = try Self.remembered(directory), known.name == name {
                account = known  // even if the cloud lost it, or holds another of that name: the sync says so
            } else {
                account = try Self.account(named: name, in: local, creating: creatingAccount)
                guard account.name == name else {
                    // The cloud matched another spelling: a device named after this one would be a second device of it.
                    throw CLIError(message: "the account is named \(account.name.inlineQuoted), not \(name.inlineQuoted): "
                                   + "--account \(account.name)")
                }
                try Self.remember(account, in: directory)
            }
            if isNew || place.identity == nil {
                var bound = place
                bound.identity = try local.identity().id
                try bound.save(in: directory)
            }
        }
        if signedIn == nil { try Self.signIn(directory, as: name) }
        let store = try DeviceStore(directory: directory)
        let names = try AccountNames(cloud)
        store.names = { names($0) }
        let keyring = try Keyring(directory: dataDirectory.appendingPathComponent("keychain"), account: account, cloud: cloud)
        store.keyring = keyring
        try? keyring.publish()  // offline: published on a later run
        _ = try store.ensureDefaultNotebook(owner: account.id)
        return DeviceSession(cloud: cloud, account: account, device: deviceName, store: store)
    }

    /// The account of this name in a directory's cloud: made with `creating`, else refused with the names the cloud
    /// knows that are close to it (a misspelt `--account` never makes an account).
    static func account(named name: String, in cloud: LocalCloud, creating: Bool) throws -> Account {
        if creating { return try cloud.accountCreatingIfNeeded(name: name) }
        let found = Result { () throws(CloudError) in try cloud.account(named: name) }
        if case .failure(let error) = found, case .unknownAccount = error {
            let near = try cloud.accounts().map(\.name).filter { EditDistance.isNear($0, name) }.sorted()
            throw CLIError(message: "no account \(name.inlineQuoted) in this cloud"
                           + (near.isEmpty ? "" : "; did you mean \(near.map(\.inlineQuoted).joined(separator: " or "))?")
                           + " (to make it: cloudnotes sign-in \(name))")
        }
        return try found.get()
    }

    /// The cloud the device belongs to (`DeviceCloud`): the one it remembers, unless this command names another
    /// place of the same cloud (another server of it, the database its directory moved to), which is remembered too.
    /// A device that remembers none belongs to the cloud named, or the default one, once it opens (`isNew`: the
    /// caller keeps it then). A command naming another cloud is refused, naming both.
    func place(of directory: URL) throws -> (place: DeviceCloud, isNew: Bool) {
        let named = DeviceCloud(named: self.cloud)
        guard var known = try DeviceCloud.load(directory) ?? ServerSignIn.place(of: directory) else { return (named, true) }
        if !self.cloud.isNamed || named.samePlace(as: known) {
            if known.servers != nil, known.identity == nil, let seen = try? identity(at: known, signedInAs: directory) {
                known.identity = seen  // (learnt now; unknown while the server does not answer: asked again next time)
                try known.save(in: directory)
            }
            return (known, false)
        }
        // Another place: the same cloud only if it says it is.
        let seen: String
        do {
            seen = try identity(at: named, signedInAs: known.servers != nil && named.servers != nil ? directory : nil)
        } catch {
            throw CLIError(message: "device \(deviceName) belongs to \(known.description); this command names \(named.description), "
                           + "which cannot say whether it is the same cloud (\(error)): leave --cloud out to use the device's own")
        }
        guard seen == known.identity else {
            throw CLIError(message: "device \(deviceName) belongs to \(known.description), not \(named.description) (another cloud): "
                           + "leave --cloud out to use the device's own, or use another --device there")
        }
        var moved = named
        moved.identity = seen
        if let servers = known.servers, let added = named.servers { moved.servers = servers + added.filter { !servers.contains($0) } }
        try moved.save(in: directory)
        return (moved, false)
    }

    /// The identity of the cloud at a place: a directory's own, or a server's, asked as the device signed in to
    /// `signedInAs` (a server answers only its enrolled devices).
    private func identity(at place: DeviceCloud, signedInAs device: URL? = nil) throws -> String {
        if let servers = place.servers {
            guard let device, let credentials = try ServerSignIn.load(from: device) else {
                throw CLIError(message: "the device is not signed in there")
            }
            return try RemoteCloud(servers: servers.compactMap(URL.init(string:)), credentials: credentials, timeout: 10).identity().id
        }
        let options = cloud(at: place)
        guard options.store != nil || FileManager.default.fileExists(atPath: options.url.appendingPathComponent(LocalCloud.fileName).path) else {
            throw CLIError(message: "there is no cloud there")  // (asking would make one)
        }
        return try options.open(warning: false).identity().id
    }

    /// The cloud options that open a directory place (the store as named to this command, with its password, when
    /// it is the same store).
    private func cloud(at place: DeviceCloud) -> CloudOptions {
        var options = self.cloud
        options.directory = place.directory
        if DeviceCloud(named: self.cloud).store != place.store { options.storeURL = place.store }
        return options
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
    /// - Parameter held: the device's lock, when the caller holds it already (`sign-in`).
    @discardableResult
    func sync(holding held: DeviceLock? = nil) -> String? {
        guard let lock = held ?? DeviceLock(directory: store.directory, holder: "cloudnotes, as \(account.name)") else {
            DeviceLock.wake(directory: store.directory)
            return nil
        }
        defer { withExtendedLifetime(lock) {} }
        var made: NotesSync?
        do {
            let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/\(device)")
            made = sync
            try sync.syncNow()
            // Each change the cloud refused (or this device could not make as asked) is said on stderr, one line each,
            // whichever command synced: a read that syncs first says it too. (One kept here as not sent is marked
            // wherever it shows, and `sync` and `status` say it: not twice.)
            let notSent = Set(try store.refusedChanges().map(\.id))
            // (A change made, and kept another way, is said once, whichever of the round's steps found it.)
            var seen = Set<RecordID>()
            let refusals = sync.refusals.filter { !notSent.contains($0.id) && ($0.kind != .keptAnotherWay || seen.insert($0.id).inserted) }
            for refusal in refusals { Output.note(said(refusal)) }
            // Those kept another way were made: said, not counted as failures.
            let count = refusals.filter { $0.kind != .keptAnotherWay }.count
            return count == 0 ? nil : "\(count) change\(count == 1 ? " was" : "s were") not made as asked (said above)"
        } catch {
            let said = made?.explain(error) ?? "\(error)"
            if error is SyncError { return "not synced: \(said)" }
            return "not synced yet (\(said)); the change is kept and will be sent later"
        }
    }

    /// How `sync()` begins a note about a change the cloud refused.
    static let refusedPrefix = "refused by the cloud: "

    /// One line about a refused change, naming the post (or the post a comment is on) by its title where this device holds it.
    private func said(_ refusal: Refusal) -> String {
        let prefix = switch refusal.kind {
        case .refusedByCloud: Self.refusedPrefix
        case .undoneHere: "not done: "
        case .keptAnotherWay: "kept: "
        }
        return prefix + store.spoken(refusal.id) + ": " + (refusal.outcome ?? "\(refusal.error)")
    }

    /// Rebuilds a cloud that lost this device's data from it (`NotesSync.reupload`); needs the device's lock.
    func reupload() throws {
        guard let lock = DeviceLock(directory: store.directory, holder: "cloudnotes sync --reupload, as \(account.name)") else {
            let who = DeviceLock.holder(directory: store.directory) ?? "another process"
            throw CLIError(message: "\(who) syncs device \(device): quit it, or use :reupload there")
        }
        defer { withExtendedLifetime(lock) {} }
        let sync = try NotesSync(store: store, cloud: cloud, account: FixedAccount(account), deviceName: "\(account.name)/\(device)")
        try sync.reupload()
    }
}
