import Cloud
import Crypto
import Foundation
import Testing
import TestSupport

/// Third-party code, not ours, against the server, in `ThirdParty/ckws_client.py`: with a device key,
/// `requests-cloudkit` (PyPI, the one CloudKit Web Services library there is; it signs requests server-to-server)
/// drives the session; with a web token pair, `requests` sends the pair as query parameters, as CloudKit JS does.
/// `scripts/setup` installs them; without Python and them the tests are skipped, visibly.
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

    enum Credential: String, CaseIterable, CustomStringConvertible {
        case deviceKey, webToken
        var description: String { rawValue }
    }

    @Test(.enabled(if: libraryInstalled, "python3 with requests-cloudkit is not installed (scripts/setup installs it)"), arguments: Credential.allCases)
    func aThirdPartyClientListsCreatesUpdatesLooksUpQueriesAndFetchesChanges(with credential: Credential) throws {
        let f = try ServerFixture()
        let arguments: [String]
        switch credential {
        case .deviceKey:
            let pem = f.directory.path("device-key.pem")
            try f.key.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
            arguments = ["key", f.keyID, pem.path]
        case .webToken:
            let token = try f.cloud.makeWebToken(for: f.heather, lifetime: 3600)
            arguments = ["token", token.apiToken, token.webAuthToken]
        }
        let seen = try Self.session(f, arguments)
        #expect(seen["zones"] as? [String] == ["Trip"])
        #expect(seen["looked up"] as? [AnyHashable] == ["Day one, rain", 12])
        #expect(seen["stale update"] as? String == "CONFLICT")
        #expect(seen["query"] as? [String] == ["day-1"])
        #expect(seen["zone changes"] as? [String] == ["day-1"])
        #expect(seen["database changes"] as? [String] == ["Trip"])
        #expect(seen["update tag moved"] as? Bool == true)
        // What the client did is in the cloud, as heather's.
        let stored = try f.cloud.database(.private, as: f.heather).record(RecordID(name: "day-1", zone: ZoneID(name: "Trip", owner: f.heather.id)))
        #expect(stored["title"] == .string("Day one, rain"))
    }

    @Test(.enabled(if: libraryInstalled, "python3 with requests-cloudkit is not installed (scripts/setup installs it)"))
    func aWebTokenActsForItsOwnAccountAndOnlyWithItsAuthToken() throws {
        let f = try ServerFixture()
        let other = try f.cloud.createAccount(name: "mallory")
        let theirs = try f.cloud.makeWebToken(for: other, lifetime: 3600)
        _ = try Self.session(f, ["token", theirs.apiToken, theirs.webAuthToken])
        #expect(try f.zones().isEmpty, "mallory's session made her own zone, not heather's")
        #expect { try Self.session(f, ["token", theirs.apiToken, String(theirs.webAuthToken.reversed())]) } throws: { error in
            "\(error)".contains("AUTHENTICATION_FAILED")
        }
        #expect(try f.cloud.database(.private, as: other).allZones().map(\.name) == ["Trip"])
    }

    /// Runs the session; what it saw.
    private static func session(_ f: ServerFixture, _ credential: [String]) throws -> [String: Any] {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script.path, f.server.url.absoluteString, LocalCloud.defaultContainer] + credential
        let out = Pipe(), err = Pipe()
        python.standardOutput = out
        python.standardError = err
        try python.run()
        let said = out.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        guard python.terminationStatus == 0, let seen = try? JSONSerialization.jsonObject(with: said) as? [String: Any] else {
            throw SessionFailed(complaint: complaint)
        }
        return seen
    }

    struct SessionFailed: Error, CustomStringConvertible {
        let complaint: String
        var description: String { "the client failed: \(complaint)" }
    }
}
