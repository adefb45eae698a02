import AsyncHTTPClient
import Cloud
import CloudClient
import CloudWire
import Crypto
import Foundation
import NIOCore
import Testing
import TestSupport

/// Every request must prove which device sent it: each forgery is refused alike (401, AUTHENTICATION_FAILED, no
/// detail) and changes nothing.
@Suite(.serialized) struct ServerAuthTests {
    @Test func aSignedRequestFromAnEnrolledDeviceIsServed() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify"), body = try f.createZone("Notes")
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)).status == 200)
        #expect(try f.zones() == ["Notes"])
    }

    @Test func forgeriesAreRefusedAndChangeNothing() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify")
        let body = try f.createZone("Evil")
        let stranger = P256.Signing.PrivateKey()
        var attempts: [(String, () throws -> (status: Int, code: String?))] = [
            ("unsigned", { try f.post(path, body: body) }),
            ("signed by another key under this key's ID", { try f.post(path, body: body, headers: try f.signed(body, path: path, key: stranger)) }),
            ("body changed after signing", {
                try f.post(path, body: body, headers: try f.signed(try f.createZone("Harmless"), path: path))
            }),
            ("path changed after signing", {
                try f.post(path, body: body, headers: try f.signed(body, path: f.path(.shared, "zones/modify")))
            }),
            ("dated 10 minutes ago", {
                try f.post(path, body: body, headers: try f.signed(body, path: path, date: Date().addingTimeInterval(-600)))
            }),
            ("dated 10 minutes ahead", {
                try f.post(path, body: body, headers: try f.signed(body, path: path, date: Date().addingTimeInterval(600)))
            }),
            ("an unknown key ID", {
                var headers = try f.signed(body, path: path)
                headers[RequestSignature.keyIDHeader] = String(repeating: "0", count: 64)
                return try f.post(path, body: body, headers: headers)
            }),
            ("a garbled signature", {
                var headers = try f.signed(body, path: path)
                headers[RequestSignature.signatureHeader] = "not-base64!"
                return try f.post(path, body: body, headers: headers)
            }),
            ("web tokens that were never issued", { try f.post(path, query: "ckAPIToken=abc&ckWebAuthToken=def", body: body) }),
        ]
        attempts.shuffle(using: &SeededGenerator.forTests)
        for (what, attempt) in attempts {
            let (status, code) = try attempt()
            #expect(status == 401 && code == "AUTHENTICATION_FAILED", "\(what): \(status) \(code ?? "-")")
        }
        #expect(try f.zones().isEmpty)
    }

    @Test func aReplayedRequestIsRefused() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify")
        let create = try f.createZone("Notes")
        let headers = try f.signed(create, path: path)
        #expect(try f.post(path, body: create, headers: headers).status == 200)
        // The owner deletes the zone; the captured request, sent again, must not bring it back.
        try f.cloud.database(.private, as: f.heather).delete(zone: ZoneID(name: "Notes"))
        #expect(try f.post(path, body: create, headers: headers) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones().isEmpty)
    }

    /// An ECDSA signature `(r, s)` verifies as `(r, n−s)` too: a captured request re-encoded that way is still a replay.
    @Test func aReplayWithTheSignatureReEncodedIsRefused() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify")
        let create = try f.createZone("Notes")
        var headers = try f.signed(create, path: path)
        #expect(try f.post(path, body: create, headers: headers).status == 200)
        try f.cloud.database(.private, as: f.heather).delete(zone: ZoneID(name: "Notes"))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: Data(base64Encoded: headers[RequestSignature.signatureHeader]!)!)
        let raw = Array(signature.rawRepresentation)
        let flipped = try P256.Signing.ECDSASignature(rawRepresentation: raw.prefix(32) + Self.orderMinus(Array(raw.suffix(32))))
        headers[RequestSignature.signatureHeader] = flipped.derRepresentation.base64EncodedString()
        #expect(try f.post(path, body: create, headers: headers) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones().isEmpty)
    }

    /// n − s for P-256's group order n, big-endian.
    static func orderMinus(_ s: [UInt8]) -> [UInt8] {
        let n: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                          0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for i in (0..<32).reversed() {
            var digit = Int(n[i]) - Int(s[i]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            out[i] = UInt8(digit)
        }
        return out
    }

    @Test func aRevokedDeviceIsCutOffAtOnce() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify")
        let first = try f.createZone("One")
        #expect(try f.post(path, body: first, headers: try f.signed(first, path: path)).status == 200)
        try f.cloud.revokeDevice(keyID: f.keyID)
        let second = try f.createZone("Two")
        #expect(try f.post(path, body: second, headers: try f.signed(second, path: path)) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones() == ["One"])
    }

    /// A notification URL works while the device that asked for it does: revoked, it hears nothing more.
    @Test func aRevokedDevicesNotificationURLStopsWorking() throws {
        let f = try ServerFixture()
        let path = WirePath(container: LocalCloud.defaultContainer, scope: nil, operation: "tokens/create").path
        let body = Data("{}".utf8)
        var request = try HTTPClient.Request(url: f.server.url.absoluteString + path, method: .POST, body: .bytes(body))
        for (name, value) in try f.signed(body, path: path) { request.headers.add(name: name, value: value) }
        let answer = try f.http.execute(request: request, deadline: .now() + .seconds(10)).wait()
        let made = try JSONDecoder().decode([String: String].self, from: Data(try #require(answer.body).readableBytesView))
        let poll = try #require(made["webcourierURL"])
        try f.cloud.database(.private, as: f.heather).save(zone: ZoneID(name: "Notes"))
        func get() throws -> UInt {
            try f.http.execute(request: try HTTPClient.Request(url: poll, method: .GET), deadline: .now() + .seconds(30)).wait().status.code
        }
        #expect(try get() == 200, "a change is there to hear")
        try f.cloud.revokeDevice(keyID: f.keyID)
        #expect(try get() == 404)
    }

    @Test func webTokensWorkUntilTheyExpireOrAreRevoked() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "zones/modify")
        let token = try f.cloud.makeWebToken(for: f.heather, lifetime: 2)
        let query = "ckAPIToken=\(token.apiToken)&ckWebAuthToken=\(token.webAuthToken)"
        #expect(try f.post(path, query: query, body: try f.createZone("ByToken")).status == 200)
        let revoked = try f.cloud.makeWebToken(for: f.heather, lifetime: 60)
        try f.cloud.revokeWebToken(apiToken: revoked.apiToken)
        #expect(try f.post(path, query: "ckAPIToken=\(revoked.apiToken)&ckWebAuthToken=\(revoked.webAuthToken)",
                           body: try f.createZone("Revoked")) == (401, "AUTHENTICATION_FAILED"))
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try f.post(path, query: query, body: try f.createZone("Expired")) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones() == ["ByToken"])
    }

    /// The account is the key's, never one the request names: a device of heather's asking for mary's private
    /// database reaches only heather's.
    /// Enrolments are unsigned: guesses at codes from one address are slowed to the limit, and then even a right
    /// code waits.
    @Test func enrolmentsFromOneAddressAreLimited() throws {
        let directory = TemporaryDirectory("enrol-limit")
        let cloud = try TestStore.open(directory: directory.url, faults: nil)
        let heather = try cloud.createAccount(name: "heather")
        let server = try TestServer(cloud: directory.url, environment: ["CLOUDNOTES_ENROL_LIMIT": "0.2,3"])
        func enrol(_ code: String) -> CloudError? {
            do {
                _ = try RemoteCloud.enrol(server: server.url, code: code, key: P256.Signing.PrivateKey(), deviceName: "guess")
                return nil
            } catch {
                return error
            }
        }
        for _ in 0..<3 { #expect(enrol("AAAAA-BBBBB-CCCCC-DDDDD").map { if case .permissionFailure = $0 { true } else { false } } == true) }
        let throttled = enrol(try cloud.makeEnrolmentCode(for: heather))
        #expect(throttled.map { if case .requestRateLimited = $0 { true } else { false } } == true, "\(String(describing: throttled))")
        #expect(try cloud.devices(of: heather).isEmpty)
    }

    /// Each account's requests are limited (`CLOUDNOTES_RATE_LIMIT`), whichever of its devices sends them: past
    /// its burst, a request is refused with how long to wait, and changes nothing; another account's go on.
    @Test func anAccountsRequestsAreLimitedAndAnotherAccountsAreNot() throws {
        let directory = TemporaryDirectory("account-limit")
        let cloud = try TestStore.open(directory: directory.url, faults: nil)
        func device(_ name: String, of account: Account) throws -> RemoteCloud.Credentials {
            let key = P256.Signing.PrivateKey()
            let code = try cloud.makeEnrolmentCode(for: account)
            let keyID = try cloud.enrol(code: code, publicKey: key.publicKey.derRepresentation, deviceName: "\(account.name)/\(name)").key.keyID
            return .init(keyID: keyID, key: key, account: account)
        }
        let heather = try cloud.createAccount(name: "heather"), mary = try cloud.createAccount(name: "mary")
        // A token a hundred seconds: none comes back while the test runs, however slow the machine.
        let server = try TestServer(cloud: directory.url, environment: ["CLOUDNOTES_RATE_LIMIT": "0.01,3"])
        let laptop = RemoteCloud(server: server.url, credentials: try device("laptop", of: heather)).database(.private, as: heather)
        for _ in 0..<3 { _ = try laptop.allZones() }
        let phone = RemoteCloud(server: server.url, credentials: try device("phone", of: heather)).database(.private, as: heather)
        #expect {
            try phone.save(zone: ZoneID(name: "Throttled"))
        } throws: { error in
            guard case .requestRateLimited(let wait)? = error as? CloudError else { return false }
            return wait > 0 && wait <= 100
        }
        #expect(try cloud.database(.private, as: heather).allZones().isEmpty, "the refused request changed nothing")
        let marys = RemoteCloud(server: server.url, credentials: try device("laptop", of: mary)).database(.private, as: mary)
        #expect(try marys.save(zone: ZoneID(name: "Diary")).name == "Diary")
    }

    @Test func theCallerIsTheKeysAccountWhateverTheRequestSays() throws {
        let f = try ServerFixture()
        let mary = try f.cloud.createAccount(name: "mary")
        try f.cloud.database(.private, as: mary).save(zone: ZoneID(name: "Diary"))
        let path = f.path(.private, "zones/lookup")
        let body = try JSONEncoder().encode(ZonesRequest(zones: [.init(zoneID: WireZoneID(ZoneID(name: "Diary", owner: mary.id)))]))
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)).status == 200)  // answered, as heather
        let posingAsMary = f.remote().database(.private, as: mary)
        #expect(throws: CloudError.permissionFailure("only the owner reads or writes a private database")) {
            try posingAsMary.fetchZone(ZoneID(name: "Diary", owner: mary.id))
        }
        #expect(try posingAsMary.allZones().isEmpty, "heather's own (empty) database, not mary's")
    }
}

/// A fixed order for shuffles, so a failing run replays.
enum SeededGenerator {
    nonisolated(unsafe) static var forTests = SeededRandom(seed: 19)
}

/// What a device learns of other people through the server: those it meets, not the whole cloud.
@Suite(.serialized) struct ServerPrivacyTests {
    @Test func aDeviceListsOnlyThePeopleItMeets() throws {
        let f = try ServerFixture()
        let mary = try f.cloud.createAccount(name: "mary"), zed = try f.cloud.createAccount(name: "zed")
        let notes = try f.cloud.database(.private, as: mary).save(zone: ZoneID(name: "Notes"))
        var share = Share(zoneWide: ZoneID(name: notes.name, owner: mary.id), title: "Notes")
        share.publicPermission = .none
        let db = f.cloud.database(.private, as: mary)
        let saved = try db.saveShare(share)
        try db.addParticipant(try db.lookUpParticipant(accountName: "heather"), permission: .readOnly, to: saved.share.id)

        let names = try f.remote().accounts().map(\.name)
        #expect(names == ["heather", "mary"], "\(names)")
        #expect(!names.contains(zed.name))
    }
}
