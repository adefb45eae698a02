import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct ChangeTokenTests {
    /// Only tokens the cloud printed parse: no other spelling of a number reads as a place in the history.
    @Test func onlyTheCloudsOwnSpellingOfATokenParses() throws {
        for text in ["ct1-ZZ", "ct1-0x10", "ct1-+1", "ct1-01", "ct1- 1", "ct1-", "ct2-1", "ct1-1\n"] {
            #expect(throws: CloudError.self, "\(text.debugDescription)") { try ChangeToken(parsing: text) }
        }
        #expect(try ChangeToken(parsing: "ct1-zz").description == "ct1-zz")
    }

    /// A token from past the cloud's history (damaged, or kept from before the cloud was put back to an
    /// older copy) has expired, in a zone and in the database, rather than answering "no changes".
    @Test func aTokenFromTheFutureHasExpired() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("r1", in: zone))
        let now = try db.zoneChanges(in: zone, since: nil).token
        #expect(try db.zoneChanges(in: zone, since: now).modified.isEmpty, "the latest token is fine")
        let ahead = try ChangeToken(parsing: "ct1-zzzzzzzzzzzz")
        #expect(throws: CloudError.changeTokenExpired) { try db.zoneChanges(in: zone, since: ahead) }
        #expect(throws: CloudError.changeTokenExpired) { try db.databaseChanges(since: ahead) }
    }

    @Test func zoneChangesComeInBatchesUntilNoMoreAreComing() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.modifyRecords(saving: (0..<10).map { Record.make("r\($0)", in: zone) }).throwIfFailed()

        var token: ChangeToken?
        var batches: [[String]] = []
        var more = true
        while more {
            let batch = try db.zoneChanges(in: zone, since: token, limit: 4)
            batches.append(batch.modified.map(\.id.name))
            token = batch.token
            more = batch.moreComing
        }

        #expect(batches.map(\.count) == [4, 4, 2])
        #expect(Set(batches.joined()).count == 10)
        #expect(try db.zoneChanges(in: zone, since: token).modified.isEmpty)
    }

    @Test func aTokenYieldsOnlyWhatChangedAfterIt() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let r1 = try db.save(.make("r1", in: zone)), r2 = try db.save(.make("r2", in: zone))
        let token = try db.zoneChanges(in: zone, since: nil).token

        var edit = r1
        edit["title"] = .string("new")
        try db.save(edit)
        try db.delete(r2.id)
        try db.save(.make("r3", in: zone))

        let changes = try db.zoneChanges(in: zone, since: token)
        #expect(changes.modified.map(\.id.name) == ["r1", "r3"])
        #expect(changes.deleted.map(\.id.name) == ["r2"])
        #expect(!changes.moreComing)
    }

    /// Like a conditional request: versions the caller says it holds are left out, and the token still moves past them.
    @Test func versionsTheCallerAlreadyHoldsAreLeftOut() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let token = try db.zoneChanges(in: zone, since: nil).token
        let r1 = try db.save(.make("r1", in: zone)), r2 = try db.save(.make("r2", in: zone)), r3 = try db.save(.make("r3", in: zone))
        var edit = r2
        edit["title"] = .string("edited elsewhere")
        try db.save(edit)
        try db.delete(r3.id)
        let known = [r1.id.name: r1.changeTag!, r2.id.name: r2.changeTag!, r3.id.name: r3.changeTag!]

        let changes = try db.zoneChanges(in: zone, since: token, known: known)

        #expect(changes.modified.map(\.id.name) == ["r2"], "r1 is held as it is; r2 changed since")
        #expect(changes.deleted.map(\.id.name) == ["r3"])
        #expect(try db.zoneChanges(in: zone, since: changes.token).modified.isEmpty)
        // Known versions are not sent, so they do not count against the limit.
        let limited = try db.zoneChanges(in: zone, since: token, limit: 1, known: known)
        #expect(limited.modified.map(\.id.name) == ["r2"] && limited.deleted.isEmpty && limited.moreComing)
        let rest = try db.zoneChanges(in: zone, since: limited.token, limit: 1, known: known)
        #expect(rest.modified.isEmpty && rest.deleted.map(\.id.name) == ["r3"] && !rest.moreComing)
        #expect(try db.zoneChanges(in: zone, since: token, limit: .max).modified.map(\.id.name) == ["r1", "r2"], "a limit past any zone")
    }

    @Test func databaseChangesListZonesChangedSinceTheToken() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let a = try db.save(zone: ZoneID(name: "A")), b = try db.save(zone: ZoneID(name: "B"))
        try db.save(zone: ZoneID(name: "C"))
        #expect(try db.databaseChanges(since: nil).modified.map(\.name) == ["A", "B", "C"])
        let token = try db.databaseChanges(since: nil).token

        try db.save(.make("r", in: b))
        try db.delete(zone: a)

        let changes = try db.databaseChanges(since: token)
        #expect(changes.modified == [b])
        #expect(changes.deleted == [ZoneDeletion(zone: a, reason: .deleted)])

        let firstBatch = try db.databaseChanges(since: nil, limit: 1)
        #expect(firstBatch.moreComing && firstBatch.modified.count == 1)
    }

    @Test func purgedTombstonesExpireOlderTokens() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        let r1 = try db.save(.make("r1", in: zone))
        let oldToken = try db.zoneChanges(in: zone, since: nil).token
        try db.delete(r1.id)
        let afterDelete = try db.zoneChanges(in: zone, since: oldToken).token
        test.clock.advance(by: 3600)

        #expect(try test.cloud.purgeTombstones(olderThan: 60) == PurgeSummary(records: 1, zones: 0))

        #expect(throws: CloudError.changeTokenExpired) { try db.zoneChanges(in: zone, since: oldToken) }
        #expect(try db.zoneChanges(in: zone, since: afterDelete).deleted.isEmpty)
        #expect(try db.zoneChanges(in: zone, since: nil).modified.isEmpty)
    }

    @Test func purgedZoneTombstonesExpireOlderDatabaseTokens() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Old"))
        let oldToken = try db.databaseChanges(since: nil).token
        try db.delete(zone: zone)
        test.clock.advance(by: 10)
        #expect(try test.cloud.purgeTombstones(olderThan: 60) == PurgeSummary(records: 0, zones: 0), "young tombstones stay")
        test.clock.advance(by: 100)

        #expect(try test.cloud.purgeTombstones(olderThan: 60).zones == 1)
        #expect(throws: CloudError.changeTokenExpired) { try db.databaseChanges(since: oldToken) }
    }

    @Test func tokensPrintAndParseAndRejectGarbage() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        try db.save(zone: ZoneID(name: "A"))
        let token = try db.databaseChanges(since: nil).token
        #expect(try ChangeToken(parsing: token.description) == token)
        for bad in ["", "ct1-", "ct2-5", "ct1-!!", "5"] {
            #expect(throws: CloudError.self) { try ChangeToken(parsing: bad) }
        }
    }
}

@Suite struct RecreatedZoneTests {
    @Test func aTokenFromBeforeAZoneWasDeletedAndCreatedAgainHasExpired() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(.make("old", in: zone))
        let token = try db.zoneChanges(in: zone, since: nil).token

        try db.delete(zone: zone)
        try db.save(zone: zone)
        try db.save(.make("new", in: zone))

        #expect(throws: CloudError.changeTokenExpired) { try db.zoneChanges(in: zone, since: token) }
        #expect(try db.zoneChanges(in: zone, since: nil).modified.map(\.id.name) == ["new"])
    }
}

/// A fetch from scratch, page by page, while what expires older tokens (purged tombstones, a share
/// accepted) happened before it began: each page's token marks a place among records older than that,
/// and must still read on.
@Suite struct PagingFromScratchTests {
    /// Every batch of a zone's changes from scratch, `limit` at a time, by name.
    private static func everyPage(_ db: CloudDatabase, _ zone: ZoneID, limit: Int) throws -> [String] {
        var token: ChangeToken?
        var names: [String] = []
        var more = true
        while more {
            let batch = try db.zoneChanges(in: zone, since: token, limit: limit)
            names += batch.modified.map(\.id.name)
            (token, more) = (batch.token, batch.moreComing)
        }
        return names
    }

    @Test func aZoneWithPurgedTombstonesPagesFromScratch() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.modifyRecords(saving: (0..<10).map { Record.make("r\($0)", in: zone) }).throwIfFailed()
        try db.delete(try db.save(.make("gone", in: zone)).id)
        test.clock.advance(by: 3600)
        #expect(try test.cloud.purgeTombstones(olderThan: 60).records == 1)

        #expect(try Self.everyPage(db, zone, limit: 4) == (0..<10).map { "r\($0)" })
    }

    /// A deleted zone that held records, versions and a share is purged whole: nothing left refers to it.
    @Test func aPurgeForgetsADeletedZoneThatWasShared() throws {
        let f = try SharingFixture()
        try f.owner.modifyRecords(saving: (0..<3).map { Record.make("r\($0)", in: f.notes) }).throwIfFailed()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        try f.owner.delete(zone: f.notes)
        f.test.clock.advance(by: 3600)
        #expect(try f.cloud.purgeTombstones(olderThan: 60).zones == 1)
        #expect(try f.cloud.integrityCheck() == "ok")
        #expect(try f.owner.databaseChanges(since: nil).modified.allSatisfy { $0.name != f.notes.name })
    }

    @Test func aParticipantPagesFromScratchThroughRecordsOlderThanTheirAcceptance() throws {
        let f = try SharingFixture()
        try f.owner.modifyRecords(saving: (0..<10).map { Record.make("r\($0)", in: f.notes) }).throwIfFailed()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)

        let names = try Self.everyPage(f.shared(f.heather), f.notes, limit: 4)
        #expect(Set(names) == Set(["p1", "c1", "p2", Share.zoneWideRecordName] + (0..<10).map { "r\($0)" }))
    }

    @Test func aDatabaseWithPurgedZoneTombstonesListsFromScratch() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        for name in ["A", "B", "C", "D", "E"] { try db.save(zone: ZoneID(name: name)) }
        try db.delete(zone: try db.save(zone: ZoneID(name: "Gone")))
        test.clock.advance(by: 3600)
        #expect(try test.cloud.purgeTombstones(olderThan: 60).zones == 1)

        var token: ChangeToken?
        var names: [String] = []
        var more = true
        while more {
            let batch = try db.databaseChanges(since: token, limit: 2)
            names += batch.modified.map(\.name)
            (token, more) = (batch.token, batch.moreComing)
        }
        #expect(names == ["A", "B", "C", "D", "E"])
    }

    /// A page's token printed and parsed is the same token, and reads on the same.
    @Test func aPagesTokenPrintsAndParses() throws {
        let f = try SharingFixture()
        try f.owner.modifyRecords(saving: (0..<10).map { Record.make("r\($0)", in: f.notes) }).throwIfFailed()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let page = try f.shared(f.heather).zoneChanges(in: f.notes, since: nil, limit: 4)
        #expect(page.moreComing)
        let parsed = try ChangeToken(parsing: page.token.description)
        #expect(parsed == page.token)
        #expect(try f.shared(f.heather).zoneChanges(in: f.notes, since: parsed, limit: 100).modified.count == 10)
    }
}
