import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct SharedDatabaseTests {
    @Test func aReadWriteParticipantCreatesChangesAndDeletesInsideTheShare() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let heather = f.shared(f.heather)

        var reply = Record.make("c2", in: f.notes, type: "Comment", ["text": "from heather"])
        reply.setParent("p1")
        let created = try heather.save(reply)
        var post = try heather.record(f.id("p1"))
        post["title"] = .string("Edited by heather")
        try heather.save(post)
        try heather.delete(f.id("c1"))

        #expect(created.system?.createdBy == f.heather.id)
        #expect(try f.owner.record(f.post.id).string("title") == "Edited by heather")
        #expect(try f.owner.record(f.post.id).system?.modifiedBy == f.heather.id)
        #expect(try f.owner.record(reply.id).string("text") == "from heather")
        #expect(throws: CloudError.unknownItem(f.comment.id)) { try f.owner.record(f.comment.id) }
    }

    @Test func aNewRecordMustSitInsideTheSharedHierarchy() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let heather = f.shared(f.heather)
        let outside = CloudError.permissionFailure("a new record must sit inside the shared hierarchy")

        #expect(throws: outside) { try heather.save(.make("loose", in: f.notes)) }
        var underPrivate = Record.make("sneaky", in: f.notes)
        underPrivate.setParent("p2")
        #expect(throws: outside) { try heather.save(underPrivate) }
        var moved = try heather.record(f.id("c1"))
        moved.setParent("p2")
        #expect(throws: CloudError.permissionFailure("record c1 cannot move outside what is shared with you")) { try heather.save(moved) }
        #expect(try f.owner.record(f.comment.id).parent == "p1")
    }

    @Test func aReadOnlyParticipantsWritesAreRefusedByTheCloud() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.mary, .readOnly)]).url!, as: f.mary)
        let mary = f.shared(f.mary)
        let readOnly = CloudError.permissionFailure("read-only: shared by jermaine")

        var post = try mary.record(f.id("p1"))
        post["title"] = .string("defaced")
        #expect(throws: readOnly) { try mary.save(post) }
        #expect(throws: readOnly) { try mary.save(post, policy: .allKeys) }
        #expect(throws: readOnly) { try mary.delete(f.id("c1")) }
        var reply = Record.make("c2", in: f.notes, type: "Comment")
        reply.setParent("p1")
        #expect(throws: readOnly) { try mary.save(reply) }
        #expect(try f.owner.record(f.post.id).string("title") == "Sharing demo is great")
    }

    @Test func onlyTheOwnerDeletesTheRootChangesTheShareOrDeletesTheZone() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        let heather = f.shared(f.heather)

        #expect(throws: CloudError.permissionFailure("only the owner deletes the root of a share")) { try heather.delete(f.id("p1")) }
        var share = try heather.fetchShare(saved.share.id)
        share.title = "mine now"
        #expect(throws: CloudError.permissionFailure("only the owner or an administrator changes a share")) { try heather.saveShare(share) }
        #expect(throws: CloudError.self) { try heather.delete(zone: f.notes) }
        #expect(throws: CloudError.self) { try heather.save(zone: ZoneID(name: "Mine", owner: f.jermaine.id)) }
        var forged = try heather.record(saved.share.id)
        forged["publicPermission"] = .string("readWrite")
        #expect(throws: CloudError.invalidArguments("shares are saved with saveShare, not as plain records")) {
            try heather.save(forged, policy: .allKeys)
        }
        #expect(try f.owner.fetchShare(saved.share.id).title == "Sharing demo is great")
    }

    @Test func theOwnerDeletingTheRootEndsTheShare() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)

        try f.owner.delete(f.post.id)

        #expect(try f.shared(f.heather).allZones().isEmpty)
        #expect(try f.owner.shares(in: f.notes).isEmpty)
        #expect(throws: CloudError.unknownShare) { try f.cloud.fetchShareMetadata(saved.url!, as: f.heather) }
    }

    @Test func aParticipantsZoneTokenExpiresWhenWhatTheySeeChanges() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let token = try f.shared(f.heather).zoneChanges(in: f.notes, since: nil).token
        let second = try f.owner.saveShare(
            { var s = Share(rootRecord: f.otherPost.id, title: "p2"); s.addParticipant(try f.owner.lookUpParticipant(email: f.heather.email), permission: .readOnly); return s }(),
            rootRecord: try f.owner.record(f.otherPost.id))

        try f.cloud.acceptShare(second.url!, as: f.heather)

        #expect(throws: CloudError.changeTokenExpired) { try f.shared(f.heather).zoneChanges(in: f.notes, since: token) }
        #expect(try f.visible(to: f.heather) == ["p1", "c1", "p2", "share-p1", "share-p2"])
    }

    @Test func theSharedDatabaseListsZonesFromSeveralOwners() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let mary = f.cloud.database(.private, as: f.mary)
        let marysZone = try mary.save(zone: ZoneID(name: "Recipes"))
        var share = Share(zoneWide: marysZone, title: "Recipes")
        share.addParticipant(try mary.lookUpParticipant(accountName: "heather"), permission: .readWrite)
        try f.cloud.acceptShare(try mary.saveShare(share).url!, as: f.heather)

        let zones = try f.shared(f.heather).allZones()
        #expect(Set(zones) == [f.notes, marysZone])
        #expect(Set(try f.shared(f.heather).databaseChanges(since: nil).modified) == [f.notes, marysZone])
        #expect(throws: CloudError.zoneNotFound(ZoneID(name: "Notes", owner: f.heather.id))) {
            try f.shared(f.heather).zoneChanges(in: ZoneID(name: "Notes", owner: f.heather.id), since: nil)
        }
    }
}

@Suite struct HierarchyMoveTests {
    @Test func aRecordMovedOutOfASharedHierarchyMakesParticipantsLookAgain() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let token = try f.shared(f.heather).zoneChanges(in: f.notes, since: nil).token

        var comment = try f.owner.record(f.comment.id)
        comment.setParent("p2")
        try f.owner.save(comment)

        #expect(throws: CloudError.changeTokenExpired) { try f.shared(f.heather).zoneChanges(in: f.notes, since: token) }
        #expect(!(try f.visible(to: f.heather)).contains("c1"))
    }

    /// A tombstone keeps its parent, so what hangs below it stays shared until
    /// the record comes back somewhere else and takes it along.
    @Test func aDeletedRecordRecreatedElsewhereTakesWhatHangsBelowItAlong() throws {
        let (f, token) = try Self.replyBelowADeletedComment()
        #expect(try f.visible(to: f.heather).contains("c2"))

        try f.owner.save(Self.comment("c1", under: "p2"))

        #expect(throws: CloudError.changeTokenExpired) { try f.shared(f.heather).zoneChanges(in: f.notes, since: token) }
        #expect(!(try f.visible(to: f.heather)).contains("c2"))
    }

    /// Its deletion is no longer in the feed once the record is back, so the
    /// participant who has not fetched since must look again.
    @Test func aDeletedRecordRecreatedOutOfViewLeavesIt() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let token = try f.shared(f.heather).zoneChanges(in: f.notes, since: nil).token
        try f.owner.delete(f.comment.id)

        try f.owner.save(Self.comment("c1", under: "p2"))

        #expect(throws: CloudError.changeTokenExpired) { try f.shared(f.heather).zoneChanges(in: f.notes, since: token) }
        #expect(!(try f.visible(to: f.heather)).contains("c1"))
    }

    @Test func aRecordCreatedAboveOthersBringsThemIntoView() throws {
        let f = try SharingFixture()
        try f.owner.save(Self.comment("c3", under: "c9"))  // c9 does not exist yet
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        let token = try f.shared(f.heather).zoneChanges(in: f.notes, since: nil).token
        #expect(!(try f.visible(to: f.heather)).contains("c3"))

        try f.owner.save(Self.comment("c9", under: "p1"))

        #expect(throws: CloudError.changeTokenExpired) { try f.shared(f.heather).zoneChanges(in: f.notes, since: token) }
        #expect(try f.visible(to: f.heather).isSuperset(of: ["c3", "c9"]))
    }

    @Test func aRecordRecreatedWhereItWasLeavesTokensValid() throws {
        let (f, token) = try Self.replyBelowADeletedComment()

        try f.owner.save(Self.comment("c1", under: "p1"))

        #expect(try f.shared(f.heather).zoneChanges(in: f.notes, since: token).modified.map(\.id.name) == ["c1"])
    }

    @Test func aPurgeKeepsTombstonesOthersStillHangBelow() throws {
        let (f, token) = try Self.replyBelowADeletedComment()
        f.test.clock.advance(by: 3600)

        #expect(try f.cloud.purgeTombstones(olderThan: 60).records == 0)
        #expect(try f.visible(to: f.heather).contains("c2"))
        #expect(try f.shared(f.heather).zoneChanges(in: f.notes, since: token).deleted.isEmpty)

        try f.owner.delete(f.id("c2"))
        f.test.clock.advance(by: 3600)
        let purged = try f.cloud.purgeTombstones(olderThan: 60).records + f.cloud.purgeTombstones(olderThan: 60).records
        #expect(purged == 2, "once nothing hangs below c1, both tombstones go")
    }

    /// The post shared with heather (read-only), reply c2 under comment c1,
    /// c1 deleted; and heather's token after fetching all of it.
    private static func replyBelowADeletedComment() throws -> (SharingFixture, ChangeToken) {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        try f.owner.save(comment("c2", under: "c1"))
        try f.owner.delete(f.comment.id)
        return (f, try f.shared(f.heather).zoneChanges(in: f.notes, since: nil).token)
    }

    private static func comment(_ name: String, under parent: String) -> Record {
        var comment = Record.make(name, in: ZoneID(name: "Notes"), type: "Comment", ["text": name])
        comment.setParent(parent)
        return comment
    }
}

/// Who hears of a write in a shared zone: each participant's shared database while the share stands, and
/// nobody's once it has ended.
@Suite struct SharedZonePushTests {
    @Test func aWriteInASharedZoneReachesItsParticipantsUntilTheShareEnds() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        let heard = PushLog()
        let subscription = f.cloud.subscribe(to: [.database(.shared, of: f.heather.id)], handler: heard.record)
        defer { subscription.cancel() }

        var post = try f.owner.record(f.post.id)
        post["title"] = .string("edited by its owner")
        try f.owner.save(post)
        #expect(eventually { heard.all.contains(.database(.shared, of: f.heather.id)) }, "the participant hears the owner's write")

        try f.owner.deleteShare(saved.share.id)
        Thread.sleep(forTimeInterval: 0.2)
        let before = heard.all.count
        post = try f.owner.record(f.post.id)
        post["title"] = .string("edited again, shared with nobody")
        try f.owner.save(post)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(heard.all.count == before, "nobody else hears of a zone shared with nobody")
    }
}
