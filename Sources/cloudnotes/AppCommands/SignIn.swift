import ArgumentParser
import Cloud
import Foundation
import Notes

struct SignIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign a device into an account: on a server (--cloud URL --code CODE), or another account on this machine's cloud.",
        discussion: """
            With a server, the device makes a key pair (the private key stays in its directory, readable by you only), \
            trades the one-time code its operator printed (cloudnotes cloud create-account or enrol) for the \
            registration of the public key, and signs every request with it from then on.
            """)

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The account to sign in as (created on first use).") var account: String
    @Option(help: "The device.") var device: String
    @Flag(help: "Switch even though changes of the previous account wait to be sent; they are dropped.") var discardUnsent = false
    @Option(help: "With a server: the one-time enrolment code its operator printed.") var code: String?

    func validate() throws {
        if code != nil && cloud.server == nil { throw ValidationError("--code goes with --cloud http(s)://SERVER") }
    }

    func run() throws {
        var options = try DeviceOptions.parse(["--account", account, "--device", device])
        options.cloud = cloud
        let previous = DeviceOptions.signedIn(options.deviceDirectory)
        if let previous, previous != account, !discardUnsent,
           FileManager.default.fileExists(atPath: options.deviceDirectory.appendingPathComponent("private.sqlite").path) {
            let waiting = try DeviceStore(directory: options.deviceDirectory).pendingCount()
            if waiting > 0 {
                throw CLIError(message: "\(waiting) changes of \(previous) wait to be sent from device \(device): "
                               + "sync first (cloudnotes sync --account \(previous) --device \(device)), or sign in with --discard-unsent")
            }
        }
        try DeviceOptions.signIn(options.deviceDirectory, as: account)
        if let server = cloud.server, let code {
            let enrolled = try ServerSignIn.enrol(options.deviceDirectory, server: server, code: code, deviceName: "\(account)/\(device)")
            guard enrolled.name == account else {
                throw CLIError(message: "that code is for \(enrolled.name), not \(account): sign in as \(enrolled.name)")
            }
        }
        let session = try options.open()
        // The sync core notices the new account before anything else and the store forgets the old one's data.
        if let note = session.sync() { Output.line(note) }
        if let previous, previous != account {
            Output.line("device \(device) is now signed into \(account); \(previous)'s data is no longer shown on it")
        } else {
            Output.line("device \(device) is signed into \(account)")
        }
    }
}
