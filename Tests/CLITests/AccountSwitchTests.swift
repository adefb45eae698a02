import Foundation
import Notes
import Testing
import TestSupport

/// Switching a device's account never shows one account's data under another's name: while a front end syncs the
/// device, sign-in is refused, naming it; a front end that only follows closes when the device is switched under it.
@Suite(.serialized) struct AccountSwitchTests {
    @Test func signInIsRefusedWhileAFrontEndSyncsTheDevice() throws {
        let app = App()
        let tmux = Tmux(width: 120, height: 30)
        defer { tmux.end() }
        _ = try app.ok("new", "Heather's secret", "--location", "Hà Nội", as: "heather", device: "fam2")
        _ = try app.ok("status", as: "mary", device: "m1")
        try tmux.open("heather", [CloudNotesBinary.url.path, "--account", "heather", "--device", "fam2"], environment: app.environment)
        try #require(try tmux.waitFor("heather") { $0.contains("● synced") && $0.contains("Heather's secret") }.ok)

        let refused = try CloudNotesBinary.run(["sign-in", "mary", "--device", "fam2"], environment: app.environment)
        #expect(refused.isOneLineRefusal && refused.stderr.contains("device fam2 is in use by process")
                && refused.stderr.contains("(the front end, as heather)"), "\(refused.stderr)")
        let listed = try CloudNotesBinary.run(["list", "--account", "mary", "--device", "fam2"], environment: app.environment)
        #expect(listed.isOneLineRefusal && !listed.stdout.contains("secret"), "\(listed)")

        try tmux.press("heather", "q")
        #expect(try tmux.waitFor("heather") { $0.contains("[exited]") }.ok)
        let switched = try CloudNotesBinary.run(["sign-in", "mary", "--device", "fam2"], environment: app.environment)
        #expect(switched.status == 0 && switched.stdout.contains("heather's data is no longer shown"), "\(switched.stderr)")
        let marys = try CloudNotesBinary.run(["list", "--account", "mary", "--device", "fam2"], environment: app.environment)
        #expect(marys.status == 0 && !marys.stdout.contains("secret"), "\(marys)")
    }

    /// A command at work on a device holds it as its account's (a shared lock): sign-in is refused until it ends,
    /// and a command that starts while a sign-in switches waits for it, then is refused as the other account's.
    /// (A new post written as heather once landed in what had just become mary's device.)
    @Test func aSwitchNeverComesBetweenACommandAndItsWrite() throws {
        let app = App()
        _ = try app.ok("new", "Heather's secret", as: "heather", device: "fam2")
        _ = try app.ok("status", as: "mary", device: "m1")
        let lockFile = app.directory.url.appendingPathComponent("data/devices/fam2/use.lock").path
        // A command at work: flock(1) holds the shared lock as one would.
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        busy.arguments = ["--shared", lockFile, "sleep", "3"]
        try busy.run()
        defer { busy.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        let refused = try CloudNotesBinary.run(["sign-in", "mary", "--device", "fam2"], environment: app.environment)
        #expect(refused.isOneLineRefusal && refused.stderr.contains("in use by another command"), "\(refused.stderr)")
        busy.waitUntilExit()
        // A sign-in at work (flock holding the lock alone, switching the device to mary after a moment): a command
        // started meanwhile waits for it, then meets the device as mary's.
        let account = app.directory.url.appendingPathComponent("data/devices/fam2/account").path
        let switching = Process()
        switching.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        switching.arguments = ["--exclusive", lockFile, "/bin/sh", "-c", "sleep 1; printf 'mary\\n' > '\(account)'"]
        try switching.run()
        Thread.sleep(forTimeInterval: 0.2)
        let late = try CloudNotesBinary.run(["new", "Late", "--account", "heather", "--device", "fam2"], environment: app.environment)
        switching.waitUntilExit()
        #expect(late.isOneLineRefusal && late.stderr.contains("signed into mary"), "\(late)")
    }

    @Test func aFollowingFrontEndClosesWhenTheDeviceIsSwitchedUnderIt() throws {
        let app = App()
        let tmux = Tmux(width: 120, height: 30)
        defer { tmux.end() }
        _ = try app.ok("new", "Heather's secret", as: "heather", device: "fam2")
        _ = try app.ok("status", as: "mary", device: "m1")
        // Another process holds the device's lock (as sign-in does while it switches): the front end follows it.
        let device = app.directory.url.appendingPathComponent("data/devices/fam2")
        var lock = DeviceLock(directory: device, holder: "the test")
        try #require(lock != nil)
        try tmux.open("heather", [CloudNotesBinary.url.path, "--account", "heather", "--device", "fam2"], environment: app.environment)
        try #require(try tmux.waitFor("heather") { $0.contains("synced by another process") }.ok)
        // The device is switched under it (what sign-in writes), and the lock let go.
        try Data("mary\n".utf8).write(to: device.appendingPathComponent("account"))
        lock = nil
        let closed = try tmux.waitFor("heather", timeout: 5) { $0.contains("[exited]") }
        #expect(closed.ok && closed.screen.contains("was signed into another account"), "\(closed.screen)")
        #expect(!closed.screen.contains("Heather's secret") || closed.screen.contains("[exited]"))
    }
}
