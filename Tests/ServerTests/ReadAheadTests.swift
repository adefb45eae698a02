import Cloud
@testable import CloudClient
import Foundation
import Testing
import TestSupport

/// A zone's next page of changes is asked for while the caller applies the one before, and handed over only to
/// the request it answers.
@Suite struct ReadAheadTests {
    /// heather's zone of `count` records, changed one by one, and the cloud through the server with every
    /// exchange's path heard.
    private func zone(of count: Int) throws -> (ServerFixture, ZoneID, RemoteCloud, Paths) {
        let f = try ServerFixture()
        let local = f.cloud.database(.private, as: f.heather)
        let zone = ZoneID(name: "Notes", owner: f.heather.id)
        _ = try local.save(zone: zone)
        for start in stride(from: 0, to: count, by: 100) {
            let records = (start..<min(start + 100, count)).map { i in
                var record = Record(type: "Post", id: RecordID(name: "p\(i)", zone: zone))
                record["title"] = .string("Post \(i)")
                return record
            }
            _ = try local.modifyRecords(saving: records, deleting: [])
        }
        let paths = Paths()
        let remote = RemoteCloud(server: f.server.url, credentials: .init(keyID: f.keyID, key: f.key, account: f.heather),
                                 observer: { path, _, _ in paths.add(path) })
        return (f, zone, remote, paths)
    }

    @Test func everyPageArrivesOnceAndInOrder() throws {
        let (f, zone, remote, paths) = try zone(of: 250)
        let database = CloudDatabase(cloud: remote, scope: .private, caller: f.heather)
        var token: ChangeToken?
        var names: [String] = []
        var pages = 0
        repeat {
            let page = try database.zoneChanges(in: zone, since: token, limit: 60)
            names += page.modified.map(\.id.name)
            token = page.token
            pages += 1
            if !page.moreComing { break }
        } while true
        #expect(names == (0..<250).map { "p\($0)" })
        // One exchange per page: each after the first was read ahead and used, none asked for twice.
        #expect(pages == 5)
        #expect(paths.take().filter { $0.hasSuffix("changes/zone") }.count == pages)
    }

    @Test func aPageReadAheadIsNotHandedToAnotherRequest() throws {
        let (f, zone, remote, _) = try zone(of: 100)
        let database = CloudDatabase(cloud: remote, scope: .private, caller: f.heather)
        let first = try database.zoneChanges(in: zone, since: nil, limit: 40)
        #expect(first.moreComing)
        // Page two is on its way; a fetch from scratch, or with another limit, still gets what it asked for.
        let again = try database.zoneChanges(in: zone, since: nil, limit: 40)
        #expect(again.modified.map(\.id.name) == first.modified.map(\.id.name))
        let wider = try database.zoneChanges(in: zone, since: first.token, limit: 100)
        #expect(wider.modified.map(\.id.name) == (40..<100).map { "p\($0)" })
        #expect(!wider.moreComing)
    }

    /// A fetch cut short leaves a page read ahead; another device then edits the zone. The next fetch asks for
    /// the database's changes first (which cover the edit), so the old page must not stand in for the zone's:
    /// the edit arrives.
    @Test func aPageReadAheadBeforeTheDatabasesChangesIsNotUsed() throws {
        let (f, zone, remote, paths) = try zone(of: 100)
        let database = CloudDatabase(cloud: remote, scope: .private, caller: f.heather)
        var token = try database.zoneChanges(in: zone, since: nil, limit: 50).token
        // The read-ahead of page two has its answer before the edit.
        let deadline = Date() + 30
        while paths.count(endingWith: "changes/zone") < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try #require(paths.count(endingWith: "changes/zone") == 2)
        var edited = Record(type: "Post", id: RecordID(name: "p3", zone: zone))
        edited["title"] = .string("edited")
        _ = try f.cloud.database(.private, as: f.heather).modifyRecords(saving: [edited], deleting: [], policy: .allKeys)
        _ = try database.databaseChanges(since: nil)
        var later: [Record] = []
        var moreComing = true
        while moreComing {
            let page = try database.zoneChanges(in: zone, since: token, limit: 50)
            later += page.modified
            token = page.token
            moreComing = page.moreComing
        }
        #expect(later.last?.id.name == "p3")
        #expect(later.last?["title"] == .string("edited"))
    }
}
