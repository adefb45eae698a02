@testable import Cloud
import CloudWire
import Foundation
import Synchronization
import Testing
import TestSupport

/// A failure of the cloud's store is answered in general words, with the `uuid` the server's log files its own
/// under: what the store said (where the cloud moved: a database's host, user and name; PostgreSQL's message) is
/// the operator's, not any caller's.
@Suite struct StoreFailureTests {
    @Test func aStoreFailureIsAnsweredWithoutTheStoresWords() throws {
        let directory = TemporaryDirectory("moved")
        let cloud = try LocalCloud(directory: directory.url, environment: [:])
        let ada = try cloud.createAccount(name: "ada")
        let file = try #require(try LocalCloud.fileStorage(in: directory.url) as? SQLiteStorage)
        try file.retire(movedTo: "postgresql://notes@db.internal.example:6543/secrets", intoEmpty: true, at: Date())
        let heard = Mutex<[String]>([])
        let service = WireService(cloud: cloud, uuids: { "u1" }, storageFailed: { uuid, failure in heard.withLock { $0.append("\(uuid) \(failure)") } })
        let answer = service.handle(WirePath(container: cloud.container, scope: .private, operation: "zones/modify"),
                                    body: Data(#"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#.utf8),
                                    caller: ada)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(!text.contains("db.internal.example") && text.contains("under u1"), "\(text)")
        #expect(heard.withLock { $0 }.contains { $0.hasPrefix("u1 ") && $0.contains("db.internal.example") }, "\(heard.withLock { $0 })")
    }
}
