import AsyncHTTPClient
import Cloud
@testable import CloudClient
import CloudWire
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport

/// A cloud directory, an account with one enrolled device key, and a server serving it over loopback.
final class ServerFixture: @unchecked Sendable {
    let directory = TemporaryDirectory("served")
    let cloud: LocalCloud
    let heather: Account
    let key = P256.Signing.PrivateKey()
    let keyID: String
    let server: TestServer
    /// Made last: a client dropped unshut (the server above failed to start) stops the whole test process.
    let http: HTTPClient

    /// `environment`: the server's (its limits, say: see `Serve`).
    init(environment: [String: String] = [:]) throws {
        cloud = try TestStore.open(directory: directory.url, faults: nil)
        heather = try cloud.createAccount(name: "heather")
        let code = try cloud.makeEnrolmentCode(for: heather)
        keyID = try cloud.enrol(code: code, publicKey: key.publicKey.derRepresentation, deviceName: "heather/laptop").key.keyID
        server = try TestServer(cloud: directory.url, environment: environment)
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    deinit { try? http.syncShutdown() }

    func path(_ scope: DatabaseScope, _ operation: String) -> String {
        WirePath(container: LocalCloud.defaultContainer, scope: scope, operation: operation).path
    }

    /// Signs as the enrolled device would, with what the caller chooses to sign.
    func signed(_ body: Data, path: String, key: P256.Signing.PrivateKey? = nil, date: Date = Date()) throws -> [String: String] {
        try RequestSignature.headers(keyID: keyID, key: key ?? self.key, date: date, body: body, path: path)
    }

    /// One raw POST (to the fixture's server unless `to` names another): status and decoded error code (if any).
    func post(_ path: String, query: String? = nil, body: Data, headers: [String: String] = [:], to other: URL? = nil) throws -> (status: Int, code: String?) {
        var request = try HTTPClient.Request(url: (other ?? server.url).absoluteString + path + (query.map { "?" + $0 } ?? ""), method: .POST,
                                             body: .bytes(body))
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try http.execute(request: request, deadline: .now() + .seconds(10)).wait()
        let data = response.body.map { Data($0.readableBytesView) } ?? Data()
        let code = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["serverErrorCode"] as? String
        return (Int(response.status.code), code)
    }

    /// A body that would create zone `name` in heather's private database.
    func createZone(_ name: String) throws -> Data {
        try JSONEncoder().encode(ZonesModifyRequest(operations: [.init(operationType: "create", zone: .init(zoneID: WireZoneID(ZoneID(name: name))))],
                                                    deletionReason: nil))
    }

    func zones() throws -> [String] { try cloud.database(.private, as: heather).allZones().map(\.name).sorted() }

    /// The enrolled device as a `Cloud`, through the server.
    func remote() -> RemoteCloud {
        RemoteCloud(server: server.url, credentials: .init(keyID: keyID, key: key, account: heather))
    }
}
