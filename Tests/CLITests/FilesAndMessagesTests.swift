import Foundation
import Testing
import TestSupport

/// A device's files are its owner's alone, and a file that cannot be used is
/// named in one clear line rather than a library's dump or silence.
@Suite struct FilesAndMessagesTests {
    let app = App()

    @Test func aDevicesFilesAreReadableByItsOwnerOnly() throws {
        _ = try app.ok("status", as: "ann", device: "d1")
        let data = app.directory.url.appendingPathComponent("data")
        let keychain = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("keychain").path)
        let files = ["devices/d1/account", "devices/d1/account.json", "devices/d1/private.sqlite", "devices/d1/shared.sqlite"]
            + keychain.map { "keychain/\($0)" }
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test func aDamagedDeviceStoreIsNamed() throws {
        _ = try app.ok("status", as: "ann", device: "d1")
        let store = app.directory.url.appendingPathComponent("data/devices/d1/private.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: store)
        let result = try app.run("list", as: "ann", device: "d1")
        #expect(result.isOneLineRefusal, "\(result.stderr)")
        #expect(result.stderr.contains("data/devices/d1") && result.stderr.contains("not a database"), "\(result.stderr)")
    }

    @Test func aKeychainThatCannotBeWrittenIsSaidPlainly() throws {
        // A file where the keychain folder should be (root ignores permissions, so a read-only folder would not do).
        let data = app.directory.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: data.appendingPathComponent("keychain"))
        let result = try CloudNotesBinary.run(["sign-in", "ann", "--device", "d1"], environment: app.environment)
        #expect(result.isOneLineRefusal, "\(result.stderr)")
        #expect(result.stderr.contains("cannot make the keychain folder") && !result.stderr.contains("NSCocoaErrorDomain"), "\(result.stderr)")
    }

    @Test func aGarbageFaultPlanIsSaidNotIgnored() throws {
        _ = try app.ok("status", as: "ann", device: "d1")
        let plan = app.directory.url.appendingPathComponent("cloud/faults.json")
        try Data("garbage{".utf8).write(to: plan)
        let shown = try CloudNotesBinary.run(["cloud", "faults"], environment: app.environment)
        #expect(shown.isOneLineRefusal && shown.stderr.contains("is not a fault plan"), "\(shown.stderr)")
        let other = try app.run("list", as: "ann", device: "d1")
        #expect(other.status == 0 && other.stderr.contains("warning:") && other.stderr.contains("is not a fault plan"), "\(other.stderr)")
        #expect(try CloudNotesBinary.run(["cloud", "faults", "--off"], environment: app.environment).status == 0)
        #expect(!FileManager.default.fileExists(atPath: plan.path))
    }
}
