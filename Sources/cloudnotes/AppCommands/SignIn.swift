import ArgumentParser
import Cloud
import CloudClient
import Foundation
import Notes

struct SignIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign a device into an account: on a server (--cloud URL --code CODE), or on this machine's cloud (making the account).",
        discussion: """
            With a server, the device makes a key pair (the private key stays in its directory, readable by you only), \
            trades the one-time code its operator printed (cloudnotes cloud create-account or enrol) for the \
            registration of the public key, and signs every request with it from then on. On a cloud directory, the \
            account is made if the cloud does not have it (other commands never make one); --init makes the cloud \
            itself, if the directory holds none. The device belongs to that cloud from then on.
            """)

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The account to sign in as (on a cloud directory, made if new; default: $CLOUDNOTES_ACCOUNT, else $USER).")
    var name: String?
    @Option(help: "The device (default: one named after the account).") var device: String?
    @Flag(name: .customLong("init"), help: "On a directory that holds no cloud: make one.") var makeCloud = false
    @Flag(help: "Switch even though changes of the previous account wait to be sent; they are dropped.") var discardUnsent = false
    @Option(help: "With a server: the one-time enrolment code its operator printed.") var code: String?

    func validate() throws {
        if code != nil && cloud.server == nil { throw ValidationError("--code goes with --cloud http(s)://SERVER") }
    }

    func run() throws {
        var options = try DeviceOptions.parse((name.map { ["--account", $0] } ?? []) + (device.map { ["--device", $0] } ?? []))
        options.cloud = cloud
        let device = options.deviceName, account = options.accountName
        // No other process syncs the device while its account changes: a front end open on it would go on
        // syncing, and showing, the account it opened with.
        try FileManager.default.createDirectory(at: options.deviceDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        guard let lock = DeviceLock(directory: options.deviceDirectory, holder: "cloudnotes sign-in \(account)") else {
            let who = DeviceLock.holder(directory: options.deviceDirectory) ?? "another process"
            throw CLIError(message: "device \(device) is in use by \(who): quit it first, then sign in")
        }
        guard DeviceUse.claim(options.deviceDirectory) else {
            throw CLIError(message: "device \(device) is in use by another command: sign in when it ends")
        }
        // A record of whom the device is signed into that does not read is mended by signing in; it cannot say
        // whose changes wait, so any that do are said without a name.
        let previous: String?, unreadable: Bool
        do {
            (previous, unreadable) = (try DeviceOptions.signedIn(options.deviceDirectory), false)
        } catch {
            (previous, unreadable) = (nil, true)
        }
        if unreadable || (previous != nil && previous != account), !discardUnsent,
           FileManager.default.fileExists(atPath: options.deviceDirectory.appendingPathComponent("private.sqlite").path) {
            // Changes the cloud refused are the account's too: kept on this device only, they go with a switch.
            let store = try DeviceStore(directory: options.deviceDirectory)
            let waiting = try store.pendingCount(), refused = try store.refusedChanges().count
            let whose = previous.map { " of \($0)" } ?? ""
            if waiting > 0 {
                let sync = previous.map { "sync first (cloudnotes sync --account \($0) --device \(device)), or " } ?? ""
                throw CLIError(message: "\(waiting.counting("change"))\(whose) wait to be sent from device \(device): "
                               + "\(sync)sign in with --discard-unsent")
            }
            if refused > 0 {
                throw CLIError(message: "\(refused.counting("change"))\(whose) the cloud refused \(refused == 1 ? "is" : "are") kept only on device "
                               + "\(device) (cloudnotes status --device \(device)): edit or discard \(refused == 1 ? "it" : "them") "
                               + "first, or sign in with --discard-unsent")
            }
        }
        // A sign-in that fails (a code for someone else, no cloud there, a typo) leaves the device as it was.
        let before = DeviceFiles(options.deviceDirectory)
        do {
            try signIn(options, device: device, holding: lock)
        } catch {
            before.putBack()
            throw error
        }
        if let previous, previous != account {
            Output.line("device \(device) is now signed into \(account); \(previous)'s data is no longer shown on it")
        } else {
            Output.line("device \(device) is signed into \(account)")
        }
    }

    private func signIn(_ options: DeviceOptions, device: String, holding lock: DeviceLock) throws {
        let account = options.accountName
        try DeviceOptions.signIn(options.deviceDirectory, as: account)
        // The device belongs from now on to the cloud named here (or the one it had, when none is).
        var place = cloud.isNamed ? DeviceCloud(named: cloud) : try DeviceCloud.load(options.deviceDirectory) ?? DeviceCloud(named: cloud)
        if let server = cloud.server, let code {
            let enrolled = try ServerSignIn.enrol(options.deviceDirectory, server: server, code: code, deviceName: "\(account)/\(device)")
            guard enrolled.name == account else {
                throw CLIError(message: "that code is for \(enrolled.name), not \(account): sign in as \(enrolled.name)")
            }
            // (Not known if the server stops answering just now: learnt at the device's next command.)
            place.identity = try ServerSignIn.load(from: options.deviceDirectory).flatMap {
                try? RemoteCloud(servers: cloud.servers, credentials: $0, timeout: 10).identity().id
            }
        }
        if cloud.isNamed { try place.save(in: options.deviceDirectory) }
        let session = try options.open(creatingAccount: cloud.server == nil, creatingCloud: makeCloud, signingIn: true)
        // The sync core notices the new account before anything else and the store forgets the old one's data.
        if let note = session.sync(holding: lock) { Output.line(note) }
    }
}

/// The files that say whose a device is and where its cloud is, as they were: put back when a sign-in fails.
private struct DeviceFiles {
    let directory: URL
    let saved: [String: Data?]

    init(_ directory: URL) {
        self.directory = directory
        let names = ["account", DeviceOptions.identityFile, DeviceCloud.file, ServerSignIn.file, ServerSignIn.keyFile]
        // (A file that cannot be read is as good as absent here: it is put back absent, as it was of use to nobody.)
        saved = Dictionary(uniqueKeysWithValues: names.map { ($0, try? Data(contentsOf: directory.appendingPathComponent($0))) })
    }

    /// Best effort, on the way out of a failed sign-in: that failure is what the person hears.
    func putBack() {
        for (name, data) in saved {
            let url = directory.appendingPathComponent(name)
            if let data { try? DeviceOptions.writePrivately(data, to: url) } else { try? FileManager.default.removeItem(at: url) }
        }
    }
}
