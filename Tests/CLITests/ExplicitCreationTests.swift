import Foundation
import Testing
import TestSupport

/// No command makes a cloud or an account as a side effect: a cloud is made by `cloud init` (or `--init`), an
/// account by `sign-in` (or `cloud create-account`); a forgotten `--store` or a misspelt `--account` is refused,
/// saying what was meant.
@Suite struct ExplicitCreationTests {
    @Test func aDirectoryWithoutACloudIsRefusedByServeAndTheConsole() throws {
        let dir = TemporaryDirectory("no-cloud")
        let cloud = dir.path("cloud")
        let served = try CloudNotesBinary.run(["cloud", "serve", "--cloud", cloud.path, "--listen", "127.0.0.1:0"])
        // (On the PostgreSQL run the directory's database is named, and holds no cloud either.)
        let noCloud = TestStore.isPostgres ? "holds no cloud" : "there is no cloud in \(cloud.path)"
        #expect(served.isOneLineRefusal && served.stderr.contains(noCloud) && served.stderr.contains("--store"), "\(served.stderr)")
        let devices = try CloudNotesBinary.run(["cloud", "devices", "--account", "ann", "--cloud", cloud.path])
        #expect(devices.isOneLineRefusal && devices.stderr.contains("cloudnotes cloud init \(cloud.path)"), "\(devices.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cloud.appendingPathComponent("cloud.sqlite").path))

        let named = ["CLOUDNOTES_CLOUD": cloud.path]  // (so that the PostgreSQL run names its database too)
        #expect(try CloudNotesBinary.run(["cloud", "init"], environment: named).stdout.contains("made a new cloud in \(cloud.path)"))
        let again = try CloudNotesBinary.run(["cloud", "init"], environment: named)
        #expect(again.isOneLineRefusal && again.stderr.contains("already holds a cloud") && again.stderr.contains("nothing was made"))
        #expect(try CloudNotesBinary.run(["cloud", "accounts", "--cloud", cloud.path]).status == 0)
    }

    @Test func aMisspeltAccountIsRefusedWithTheNameMeantAndMakesNothing() throws {
        let app = App()
        _ = try app.ok("new", "Groceries", as: "heather")
        for command in [["show", "Groceries"], ["new", "Typo"], ["list"]] {
            let result = try CloudNotesBinary.run(command + ["--account", "heahter"], environment: app.environment)
            #expect(result.isOneLineRefusal && result.stderr.contains("no account 'heahter' in this cloud; did you mean 'heather'?"),
                    "\(command): \(result.stderr)")
        }
        let accounts = try CloudNotesBinary.run(["cloud", "accounts"], environment: app.environment).stdout
        #expect(!accounts.contains("heahter"), "\(accounts)")
        #expect(try CloudNotesBinary.run(["list", "--account", "zed"], environment: app.environment).stderr.contains("no account 'zed'"))
        // The name as the cloud spells it: another spelling would open a second device of the account, unasked.
        let cased = try CloudNotesBinary.run(["list", "--account", "Heather"], environment: app.environment)
        #expect(cased.isOneLineRefusal && cased.stderr.contains("the account is named 'heather'"), "\(cased.stderr)")
        // Nothing is left of a device the refused commands would have made.
        let devices = app.directory.url.appendingPathComponent("data/devices")
        #expect(try FileManager.default.contentsOfDirectory(atPath: devices.path) == ["heather"])
    }

    /// A misspelt --device makes a device of its own (a fresh copy, synced): said once, naming the account's others
    /// here, so nobody takes it for the one they meant. `sign-in` makes devices on purpose, and says nothing more.
    @Test func aDeviceMadeByACommandOtherThanSignInIsSaid() throws {
        let app = App()
        _ = try app.ok("new", "Groceries", as: "heather")
        let signedIn = try CloudNotesBinary.run(["sign-in", "heather", "--device", "laptop"], environment: app.environment)
        #expect(signedIn.status == 0 && signedIn.stderr.isEmpty, "\(signedIn.stderr)")
        let typo = try CloudNotesBinary.run(["list", "--account", "heather", "--device", "lpatop"], environment: app.environment)
        #expect(typo.status == 0 && typo.stdout.contains("Groceries"), "\(typo.stderr)")
        #expect(typo.stderr == "cloudnotes: device lpatop is new: a copy of heather's notes of its own "
                + "(heather's other devices here: heather, laptop)\n", "\(typo.stderr)")
        let again = try CloudNotesBinary.run(["list", "--account", "heather", "--device", "lpatop"], environment: app.environment)
        #expect(again.status == 0 && again.stderr.isEmpty, "said once: \(again.stderr)")
        // Differing only in case or spaces: a slip, refused, naming the one meant; no device is made.
        for slip in ["LAPTOP", "laptop "] {
            let refused = try CloudNotesBinary.run(["new", "x", "--account", "heather", "--device", slip], environment: app.environment)
            #expect(refused.isOneLineRefusal && refused.stderr.contains("did you mean laptop?"), "\(slip): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: app.directory.url.appendingPathComponent("data/devices/\(slip)").path))
        }
        #expect(try CloudNotesBinary.run(["sign-in", "heather", "--device", "LAPTOP"], environment: app.environment).status == 0,
                "made on purpose, it is made")
    }

    @Test func signInMakesTheAccountOnItsDefaultDeviceAndAFailedOneChangesNothing() throws {
        let app = App()
        let made = try CloudNotesBinary.run(["sign-in", "ann"], environment: app.environment)
        #expect(made.status == 0 && made.stdout.contains("device ann is signed into ann"), "\(made.stderr)")
        #expect(try CloudNotesBinary.run(["list", "--account", "ann"], environment: app.environment).status == 0)
        // Into a directory without a cloud: refused, and the device is still ann's, on its cloud.
        let elsewhere = app.directory.url.appendingPathComponent("elsewhere").path
        let refused = try CloudNotesBinary.run(["sign-in", "bob", "--device", "ann", "--cloud", elsewhere], environment: app.environment)
        #expect(refused.isOneLineRefusal && refused.stderr.contains(TestStore.isPostgres ? "holds no cloud" : "there is no cloud in \(elsewhere)"),
                "\(refused.stderr)")
        #expect(try CloudNotesBinary.run(["list", "--account", "ann"], environment: app.environment).status == 0)
    }
}
