import ArgumentParser
import Cloud
import Dispatch
import Foundation
import FrontEnd
import Notes
import Sync
import Terminal

/// `cloudnotes` with no subcommand: the terminal front end. It is the
/// device's syncing process when no other process holds the device's lock;
/// otherwise it wakes that one after each change, reloads when it says so,
/// and takes over when it ends (`DeviceSync`).
struct OpenFrontEnd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "open", abstract: "Open the terminal front end (what 'cloudnotes' alone does).")

    @OptionGroup var device: DeviceOptions

    func run() throws {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CLIError(message: "the front end needs a terminal; for scripts use a subcommand (cloudnotes --help)")
        }
        // A terminal that cannot move the cursor would show a blank screen and one line at the bottom.
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        guard !term.isEmpty, term != "dumb" else {
            throw CLIError(message: "the front end needs a terminal that can move the cursor (TERM is \(term.isEmpty ? "not set" : "'\(term)'"); "
                           + "try TERM=xterm-256color); the subcommands work here (cloudnotes --help)")
        }
        let session = try device.open(holdingUse: false)
        let names = try AccountDirectory(cloud: session.cloud)
        let wakeup = Wakeup()
        let holder = FrontEndHolder()
        // This process syncs the device if no other does, and takes over when the one that does ends.
        let directory = session.store.directory, account = session.account.name
        let sync = DeviceSync(store: session.store, holder: "the front end, as \(account)",
                              stillSignedIn: {
                                  // (A record that does not read this instant is not a switch: the sync goes on.)
                                  do { return try DeviceOptions.signedIn(directory) == account } catch { return true }
                              }, makeSync: {
            try NotesSync(store: session.store, cloud: session.cloud, account: FixedAccount(session.account),
                          deviceName: "\(session.account.name)/\(session.device)")
        }, onUpdate: { update in holder.frontEnd?.post { $0.storeChanged(update) } })
        let context = FrontEndContext(
            store: session.store, account: session.account, device: session.device,
            sharing: StoreSharingProvider(store: session.store, account: session.account) { names.name($0) },
            names: { names.name($0) }, postSharing: session.postSharing, sync: sync,
            background: { DispatchQueue.global().async(execute: $0) }, wake: { wakeup.wake() })
        let frontEnd = FrontEnd(context: context)
        holder.frontEnd = frontEnd
        sync.start()
        TerminalApp.run(frontEnd, wakeup: wakeup, environment: ProcessInfo.processInfo.environment)
        sync.stop()
        if let farewell = frontEnd.farewell { throw CLIError(message: farewell) }
    }
}

/// Lets sync callbacks made before the front end exists reach it once it does.
private final class FrontEndHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var _frontEnd: FrontEnd?
    var frontEnd: FrontEnd? {
        get { lock.withLock { _frontEnd } }
        set { lock.withLock { _frontEnd = newValue } }
    }
}
