import Cloud
import Foundation
import Testing
import TestSupport

/// A device belongs to the cloud it was signed in to: every command on it uses that cloud, however its servers are
/// spelt and whichever of them is named; a command naming another cloud is refused, naming both.
@Suite struct DeviceCloudTests {
    /// Runs `cloudnotes` with only the data directory set (no CLOUDNOTES_CLOUD), plus `environment`.
    static func run(_ arguments: [String], data: URL, environment: [String: String] = [:]) throws -> ProcessResult {
        try CloudNotesBinary.run(arguments, environment: ["CLOUDNOTES_DATA": data.path, "XDG_DATA_HOME": data.appendingPathComponent("xdg").path]
                                    .merging(environment) { $1 })
    }

    /// Heather's laptop signed in to a server of a cloud that a second server also serves.
    struct TwoServers {
        let directory = TemporaryDirectory("device-cloud")
        let a: TestServer, b: TestServer
        var data: URL { directory.url.appendingPathComponent("data") }

        init() throws {
            let cloud = directory.url.appendingPathComponent("cloud")
            _ = try TestStore.open(directory: cloud, faults: nil)
            a = try TestServer(cloud: cloud)
            b = try TestServer(cloud: cloud)
            let made = try CloudNotesBinary.run(["cloud", "create-account", "heather", "--json", "--cloud", cloud.path])
            let code = try #require((try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])?["code"] as? String)
            let signIn = try DeviceCloudTests.run(["sign-in", "heather", "--device", "laptop", "--cloud", a.url.absoluteString, "--code", code],
                                                  data: data)
            #expect(signIn.status == 0, "\(signIn.stderr)")
        }

        func heather(_ arguments: String...) throws -> ProcessResult {
            try DeviceCloudTests.run(arguments + ["--account", "heather", "--device", "laptop"], data: data)
        }
    }

    @Test func aDeviceSignedInToAServerUsesItWithoutBeingTold() throws {
        let s = try TwoServers()
        let new = try s.heather("new", "Groceries", "--body", "milk")
        #expect(new.status == 0 && !new.stdout.contains("not synced") && !new.stdout.contains("reupload"), "\(new)")
        #expect(try s.heather("sync").stdout.contains("synced; 0 changes waiting"))
        // Nothing was made in the default place (~/.local/share, here XDG_DATA_HOME).
        #expect(!FileManager.default.fileExists(atPath: s.data.appendingPathComponent("xdg/cloudnotes/cloud").path))
    }

    @Test func anyServerOfItsCloudAndAnySpellingIsTheSameCloud() throws {
        let s = try TwoServers()
        _ = try s.heather("new", "Groceries", "--body", "milk")
        let port = try #require(s.a.url.port)
        for spelling in ["\(s.a.url.absoluteString)/", "HTTP://LOCALHOST:\(port)".replacingOccurrences(of: "LOCALHOST", with: "127.0.0.1"),
                         s.b.url.absoluteString] {
            let listed = try s.heather("list", "--cloud", spelling)
            #expect(listed.status == 0 && listed.stdout.contains("Groceries"), "\(spelling): \(listed.stderr)")
        }
        let remembered = try String(contentsOf: s.data.appendingPathComponent("devices/laptop/cloud.json"), encoding: .utf8)
        #expect(remembered.contains(s.b.url.absoluteString), "the other server is remembered: \(remembered)")
    }

    @Test func aCommandNamingAnotherCloudIsRefusedNamingBoth() throws {
        let s = try TwoServers()
        let other = TemporaryDirectory("other-cloud")
        _ = try TestStore.open(directory: other.url, faults: nil)
        let elsewhere = try TestServer(cloud: other.url)
        for named in [other.url.path, elsewhere.url.absoluteString] {
            let refused = try s.heather("list", "--cloud", named)
            #expect(refused.isOneLineRefusal && refused.stderr.contains("belongs to the server \(s.a.url.absoluteString)"), "\(refused.stderr)")
            #expect(refused.stderr.contains(named) || refused.stderr.contains("cannot say"), "\(refused.stderr)")
        }
        let bad = try s.heather("list", "--cloud", "https://a.test/some/path")
        #expect(bad.isOneLineRefusal && bad.stderr.contains("no path, query or user"))
    }

    @Test func aDeviceOfADirectoryCloudIsRefusedAnother() throws {
        let directory = TemporaryDirectory("two-directories")
        let data = directory.url.appendingPathComponent("data")
        let first = directory.url.appendingPathComponent("first").path, second = directory.url.appendingPathComponent("second").path
        #expect(try Self.run(["sign-in", "jo", "--cloud", first, "--init"], data: data).status == 0)
        #expect(try Self.run(["new", "Trip", "--account", "jo", "--cloud", first], data: data).status == 0)
        #expect(try Self.run(["list", "--account", "jo"], data: data).stdout.contains("Trip"))  // its own, untold
        let refused = try Self.run(["list", "--account", "jo", "--cloud", second], data: data)
        #expect(refused.isOneLineRefusal && refused.stderr.contains("device jo belongs to the cloud") && refused.stderr.contains(second),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    /// A device whose record of its account does not read is refused, saying so and how to mend it, never opened
    /// as whatever account of that name the cloud holds now; signing in again mends it.
    @Test func aDeviceWhoseAccountRecordDoesNotReadIsRefused() throws {
        let directory = TemporaryDirectory("damaged-identity")
        let data = directory.url.appendingPathComponent("data"), cloud = directory.url.appendingPathComponent("cloud").path
        #expect(try Self.run(["sign-in", "jo", "--cloud", cloud, "--init"], data: data).status == 0)
        #expect(try Self.run(["new", "Trip", "--account", "jo", "--cloud", cloud], data: data).status == 0)
        let record = data.appendingPathComponent("devices/jo/account.json")
        try Data("{\"name\": ".utf8).write(to: record)  // cut short
        let refused = try Self.run(["list", "--account", "jo", "--cloud", cloud], data: data)
        #expect(refused.isOneLineRefusal && refused.stderr.contains("does not read") && refused.stderr.contains("sign-in"), "\(refused.stderr)")
        #expect(try Self.run(["sign-in", "jo", "--cloud", cloud], data: data).status == 0)
        #expect(try Self.run(["list", "--account", "jo", "--cloud", cloud], data: data).stdout.contains("Trip"))
        // The record of whom it is signed into, likewise; signing in, as the refusal says, mends it.
        try Data([0xff, 0xfe]).write(to: data.appendingPathComponent("devices/jo/account"))
        let again = try Self.run(["list", "--account", "jo", "--cloud", cloud], data: data)
        #expect(again.isOneLineRefusal && again.stderr.contains("does not read"), "\(again.stderr)")
        let mended = try Self.run(["sign-in", "jo", "--cloud", cloud], data: data)
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(try Self.run(["list", "--account", "jo", "--cloud", cloud], data: data).stdout.contains("Trip"))
    }
}
