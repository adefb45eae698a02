import AsyncHTTPClient
import Cloud
@testable import CloudClient
import CloudPostgres
import Crypto
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// A server whose database stops answering tells its devices to try again later: never that they are signed
/// out (a device told that stops syncing, and its person must sign in again), and nothing typed meanwhile is lost.
@Suite struct DatabaseOutageTests {
    @Test(.enabled(if: PostgresCluster.runs, "needs PostgreSQL")) func whileTheDatabaseIsDownADeviceIsToldToTryLaterAndKeepsItsEdit() throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE DATABASE outage")
        let store = "postgresql://postgres@127.0.0.1:\(cluster.port)/outage"
        let directory = TemporaryDirectory("outage")
        let cloud = try LocalCloud(directory: directory.url, storage: PostgresStorage(url: store), faults: .off, environment: [:])
        let heather = try cloud.createAccount(name: "heather")
        let server = try TestServer(cloud: directory.url, environment: ["CLOUDNOTES_STORE": store, "CLOUDNOTES_POLL_TIMEOUT": "2"])
        defer { server.stop() }
        var remotes: [RemoteCloud] = []
        func device(_ name: String) throws -> NotesSync {
            let credentials = try RemoteCloud.enrol(server: server.url, code: try cloud.makeEnrolmentCode(for: heather),
                                                    key: P256.Signing.PrivateKey(), deviceName: "heather/\(name)")
            remotes.append(RemoteCloud(server: server.url, credentials: credentials, timeout: 5))
            return try NotesSync(store: try DeviceStore(directory: directory.path(name)), cloud: remotes.last!,
                                 account: FixedAccount(credentials.account))
        }
        let laptop = try device("laptop"), phone = try device("phone")
        let notes = try laptop.store.ensureDefaultNotebook(owner: heather.id)
        try laptop.syncNow()
        // The phone's notification URL, long-polled from the first commit on: answered at once while it is good.
        struct Token: Decodable { var webcourierURL: String }
        let token: Token = try remotes[1].call(nil, "tokens/create", ["apnsEnvironment": remotes[1].environment])
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { try? http.syncShutdown() }
        func poll() throws -> (status: UInt, code: String?) {
            let response = try http.get(url: token.webcourierURL + "?since.private=0").wait()
            let body = response.body.map { Data($0.readableBytesView) } ?? Data()
            return (response.status.code, (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["serverErrorCode"] as? String)
        }
        #expect(try poll().status == 200)

        cluster.stop()
        let polled = try poll()
        #expect(polled.status == 503 && polled.code == "TRY_AGAIN_LATER", "not the token's end: \(polled)")
        try laptop.store.save(Post(id: "p1", zone: notes.zone, title: "Outage", content: "typed while the database was down"),
                              by: heather.id, now: Date())
        do {
            try laptop.syncNow()
            Issue.record("synced with the database down")
        } catch let error as CloudError {
            if case .serviceUnavailable(let wait) = error {
                #expect(wait > 0)
            } else {
                Issue.record("told \(error), not to try again later")
            }
        }
        #expect(try laptop.store.pendingCount() > 0, "kept, waiting")

        try cluster.start()
        #expect(eventually(timeout: 20) { (try? laptop.syncNow()) != nil }, "the server answers again once its database does")
        #expect(try laptop.store.pendingCount() == 0)
        #expect(try poll().status == 200, "the notification URL outlived the outage")
        try phone.syncNow()
        #expect(try phone.store.post("Outage").content == "typed while the database was down")
    }
}
