import Cloud
import Crypto
import Foundation
import Testing
import TestSupport

/// An existing CloudKit Web Services client library, not ours, against the server: `requests-cloudkit` (PyPI, the
/// one there is; it signs requests with a server-to-server key, here an enrolled device's) drives the session in
/// `ThirdParty/ckws_client.py`. `scripts/setup` installs it; without Python and it the test is skipped, visibly.
@Suite(.serialized) struct ThirdPartyClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ThirdParty/ckws_client.py")

    static var libraryInstalled: Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import requests_cloudkit, ecdsa, pytz, requests"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    @Test(.enabled(if: libraryInstalled, "python3 with requests-cloudkit is not installed (scripts/setup installs it)"))
    func requestsCloudKitListsCreatesUpdatesLooksUpQueriesAndFetchesChanges() throws {
        let f = try ServerFixture()
        let pem = f.directory.path("device-key.pem")
        try f.key.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", Self.script.path, f.server.url.absoluteString, LocalCloud.defaultContainer, f.keyID, pem.path]
        let out = Pipe(), err = Pipe()
        python.standardOutput = out
        python.standardError = err
        try python.run()
        let said = out.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "the client failed: \(complaint)")
        let seen = try #require(try JSONSerialization.jsonObject(with: said) as? [String: Any])
        #expect(seen["zones"] as? [String] == ["Trip"])
        #expect(seen["looked up"] as? [AnyHashable] == ["Day one, rain", 12])
        #expect(seen["stale update"] as? String == "CONFLICT")
        #expect(seen["query"] as? [String] == ["day-1"])
        #expect(seen["zone changes"] as? [String] == ["day-1"])
        #expect(seen["database changes"] as? [String] == ["Trip"])
        #expect(seen["update tag moved"] as? Bool == true)
        // What the library did is in the cloud, as heather's.
        let stored = try f.cloud.database(.private, as: f.heather).record(RecordID(name: "day-1", zone: ZoneID(name: "Trip", owner: f.heather.id)))
        #expect(stored["title"] == .string("Day one, rain"))
    }
}
