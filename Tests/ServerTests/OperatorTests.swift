import AsyncHTTPClient
import Cloud
@testable import CloudClient
import CloudWire
import Crypto
import Foundation
import NIOCore
import Testing
import TestSupport

/// The console's operator commands through the server, with an operator's key: what they do where the directory
/// is, and nothing for any other caller.
@Suite struct OperatorTests {
    /// An operator's key enrolled with the cloud behind `f`'s server.
    private func enrolledOperator(_ f: ServerFixture) throws -> (RemoteOperator, keyID: String) {
        let key = P256.Signing.PrivateKey()
        let keyID = try RemoteOperator.enrol(server: f.server.url, code: try f.cloud.makeOperatorCode(), key: key, name: "ops laptop")
        return (RemoteOperator(server: f.server.url, keyID: keyID, key: key), keyID)
    }

    @Test func anOperatorsKeyCreatesAccountsEnrolsDumpsSetsFaultsAndPurges() throws {
        let f = try ServerFixture()
        let (ops, _) = try enrolledOperator(f)
        let (zoe, code) = try ops.createAccount(name: "zoe", email: nil)
        #expect(try f.cloud.account(named: "zoe").id == zoe.id)
        // The code it printed signs zoe's first device in.
        let device = try RemoteCloud.enrol(server: f.server.url, code: code, key: P256.Signing.PrivateKey(), deviceName: "zoe/phone")
        #expect(device.account.id == zoe.id)
        let second = try ops.enrolmentCode(forAccountNamed: "heather")
        #expect(second.account.id == f.heather.id)
        #expect(try ops.dump().accounts.map(\.name).sorted() == ["heather", "zoe"])
        let plan = FaultPlan(rate: 0.25, errors: [.zoneBusy], retryAfter: 2)
        #expect(try ops.faults(setting: plan).plan == plan)
        #expect(f.cloud.faultPlan == plan, "every process of the cloud obeys it")
        #expect(try ops.faults(setting: .off).plan.isOff)
        try f.cloud.database(.private, as: f.heather).save(zone: ZoneID(name: "Old"))
        try f.cloud.database(.private, as: f.heather).delete(zone: ZoneID(name: "Old"))
        #expect(try ops.purgeTombstones(olderThan: 0).zones == 1)
    }

    @Test func aDevicesKeyIsNoOperatorsAndAnOperatorsKeyReadsNoDatabase() throws {
        let f = try ServerFixture()
        let body = try JSONEncoder().encode(OperatorRequest(name: "mallory"))
        let path = WirePath(container: LocalCloud.defaultContainer, scope: nil, operation: "operator/accounts/create").path
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.post(path, body: body) == (401, "AUTHENTICATION_FAILED"), "unsigned")
        let token = try f.cloud.makeWebToken(for: f.heather, lifetime: 60)
        #expect(try f.post(path, query: "ckAPIToken=\(token.apiToken)&ckWebAuthToken=\(token.webAuthToken)", body: body).status == 401)
        #expect(throws: CloudError.self) { try f.cloud.account(named: "mallory") }

        let key = P256.Signing.PrivateKey()
        let keyID = try RemoteOperator.enrol(server: f.server.url, code: try f.cloud.makeOperatorCode(), key: key, name: "ops")
        let zones = f.path(.private, "zones/modify")
        let create = try f.createZone("ByOperator")
        let asOperator = try RequestSignature.headers(keyID: keyID, key: key, date: Date(), body: create, path: zones)
        #expect(try f.post(zones, body: create, headers: asOperator) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones().isEmpty)
    }

    /// A captured operator's request (one that makes an enrolment code, say) replayed to another server of the
    /// same directory is refused: the cloud remembers it, not one process.
    @Test func anOperatorsRequestReplayedToAnotherServerIsRefused() throws {
        let f = try ServerFixture()
        let other = try TestServer(cloud: f.directory.url)
        let key = P256.Signing.PrivateKey()
        let keyID = try RemoteOperator.enrol(server: f.server.url, code: try f.cloud.makeOperatorCode(), key: key, name: "ops")
        let body = try JSONEncoder().encode(OperatorRequest(name: "heather"))
        let path = WirePath(container: LocalCloud.defaultContainer, scope: nil, operation: "operator/enrol").path
        let headers = try RequestSignature.headers(keyID: keyID, key: key, date: Date(), body: body, path: path)
        #expect(try f.post(path, body: body, headers: headers).status == 200)
        var replay = try HTTPClient.Request(url: other.url.absoluteString + path, method: .POST, body: .bytes(body))
        for (name, value) in headers { replay.headers.add(name: name, value: value) }
        let answer = try f.http.execute(request: replay, deadline: .now() + .seconds(10)).wait()
        #expect(answer.status.code == 401)
    }

    @Test func anOperatorCodeWorksOnceAndARevokedKeyIsCutOffAtOnce() throws {
        let f = try ServerFixture()
        let code = try f.cloud.makeOperatorCode()
        let key = P256.Signing.PrivateKey()
        let keyID = try RemoteOperator.enrol(server: f.server.url, code: code, key: key, name: "ops")
        #expect(throws: CloudError.self) { try RemoteOperator.enrol(server: f.server.url, code: code, key: P256.Signing.PrivateKey(), name: "again") }
        // A device's code makes no operator, and an operator's key enrols as no device.
        #expect(throws: CloudError.self) {
            try RemoteOperator.enrol(server: f.server.url, code: try f.cloud.makeEnrolmentCode(for: f.heather), key: P256.Signing.PrivateKey(), name: "x")
        }
        #expect(throws: CloudError.self) {
            try RemoteCloud.enrol(server: f.server.url, code: try f.cloud.makeEnrolmentCode(for: f.heather), key: key, deviceName: "ops as device")
        }
        let ops = RemoteOperator(server: f.server.url, keyID: keyID, key: key)
        _ = try ops.dump()
        try f.cloud.revokeOperatorKey(keyID: keyID)
        #expect(throws: CloudError.self) { try ops.createAccount(name: "late", email: nil) }
        #expect(throws: CloudError.self) { try f.cloud.account(named: "late") }
    }
}
