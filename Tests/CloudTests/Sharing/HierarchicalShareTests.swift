import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct HierarchicalShareTests {
    @Test func aShareIsSavedWithItsRootAndReturnsAnInvitationURL() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite), (f.mary, .readWrite)])

        #expect(saved.url != nil)
        #expect(saved.rootRecord?.id == f.post.id)
        #expect(saved.share.rootRecord == "p1" && saved.share.title == "Sharing demo is great" && saved.share.type == "Post")
        #expect(saved.share.participants.map(\.name) == ["jermaine", "heather", "mary"])
        #expect(saved.share.participants.map(\.role) == [.owner, .privateUser, .privateUser])
        #expect(saved.share.participants.map(\.status) == [.accepted, .pending, .pending])
        #expect(try f.owner.fetchShare(saved.share.id) == saved.share)
        let inZone = try f.owner.zoneChanges(in: f.notes, since: nil).modified.filter { $0.type == Share.recordType }
        #expect(try inZone.map { try Share(record: $0) } == [saved.share], "the share travels as a record of its zone")
    }

    @Test func aNewShareSavedWithoutItsRootFails() throws {
        let f = try SharingFixture()
        let share = Share(rootRecord: f.post.id, title: "alone")
        #expect(throws: CloudError.invalidArguments("a new share must be saved together with its root record in one request")) {
            try f.owner.saveShare(share)
        }
        #expect(throws: CloudError.self) { try f.owner.saveShare(share, rootRecord: f.otherPost) }
        #expect(try f.owner.shares(in: f.notes).isEmpty)
    }

    @Test func aNewRootIsSavedTogetherWithItsShareOrNotAtAll() throws {
        let f = try SharingFixture()
        let fresh = Record.make("p9", in: f.notes, ["title": "brand new"])
        let saved = try f.owner.saveShare(Share(rootRecord: fresh.id, title: "new"), rootRecord: fresh)
        #expect(try f.owner.record(fresh.id).string("title") == "brand new")
        #expect(saved.share.rootRecord == "p9")

        var stale = try f.owner.record(f.otherPost.id)
        stale.restoreSystemFields(f.post.system)  // a wrong change tag: the root's save fails...
        #expect(throws: CloudError.self) { try f.owner.saveShare(Share(rootRecord: stale.id, title: "x"), rootRecord: stale) }
        #expect(try f.owner.shares(in: f.notes).count == 1, "...and so does the share")
    }

    @Test func aRecordBelongsToAtMostOneShare() throws {
        let f = try SharingFixture()
        _ = try f.sharePost()
        var again = Share(rootRecord: f.post.id, title: "again")
        again.id = RecordID(name: "share-again", zone: f.notes)
        #expect(throws: CloudError.alreadyShared(f.post.id)) { try f.owner.saveShare(again, rootRecord: try f.owner.record(f.post.id)) }
        #expect(throws: CloudError.alreadyShared(f.comment.id), "a comment already travels with its post") {
            try f.owner.saveShare(Share(rootRecord: f.comment.id, title: "c"), rootRecord: try f.owner.record(f.comment.id))
        }
        var parent = Record.make("folder", in: f.notes)
        parent = try f.owner.save(parent)
        var moved = try f.owner.record(f.post.id)
        moved.setParent("folder")
        try f.owner.save(moved)
        #expect(throws: CloudError.alreadyShared(parent.id), "a share above a shared record would nest") {
            try f.owner.saveShare(Share(rootRecord: parent.id, title: "folder"), rootRecord: try f.owner.record(parent.id))
        }
    }

    @Test func reparentingCannotNestOneSharedHierarchyInAnother() throws {
        let f = try SharingFixture()
        _ = try f.sharePost()
        _ = try f.owner.saveShare(Share(rootRecord: f.otherPost.id, title: "p2"), rootRecord: try f.owner.record(f.otherPost.id))
        var moved = try f.owner.record(f.otherPost.id)
        moved.setParent("p1")
        #expect(throws: CloudError.alreadyShared(f.otherPost.id)) { try f.owner.save(moved) }
    }

    @Test func participantsSeeOnlyTheSharedHierarchy() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)

        #expect(try f.visible(to: f.heather) == ["p1", "c1", saved.share.id.name])
        #expect(throws: CloudError.unknownItem(f.otherPost.id)) { try f.shared(f.heather).record(f.id("p2")) }
        #expect(try f.shared(f.heather).record(f.id("c1")).string("text") == "nice")
    }

    @Test func recordsAddedUnderTheRootLaterAreSharedToo() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readOnly)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        var reply = Record.make("c2", in: f.notes, type: "Comment")
        reply.setParent("c1")
        try f.owner.save(reply)
        #expect(try f.visible(to: f.heather).contains("c2"))
    }
}

@Suite struct RepeatedShareTests {
    @Test func sharingTheSameRootOrZoneTwiceIsAlreadyShared() throws {
        let f = try SharingFixture()
        _ = try f.sharePost()
        #expect(throws: CloudError.alreadyShared(f.post.id)) { try f.sharePost() }
        let g = try SharingFixture()
        _ = try g.shareZone()
        #expect(throws: CloudError.alreadyShared(RecordID(name: Share.zoneWideRecordName, zone: g.notes))) { try g.shareZone() }
    }
}
