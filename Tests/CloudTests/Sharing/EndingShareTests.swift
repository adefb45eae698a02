import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct EndingShareTests {
    /// Jermaine's post shared read-write with Heather and Mary, both accepted.
    func sharedWithBoth() throws -> (SharingFixture, SavedShare) {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite), (f.mary, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        try f.cloud.acceptShare(saved.url!, as: f.mary)
        return (f, saved)
    }

    @Test func aRemovedParticipantLosesTheZoneOnTheirNextFetch() throws {
        let (f, saved) = try sharedWithBoth()
        let token = try f.shared(f.heather).databaseChanges(since: nil).token

        let share = try f.owner.removeParticipant(f.heather.id, from: saved.share.id)

        #expect(share.participant(f.heather.id)?.status == .removed)
        #expect(try f.shared(f.heather).databaseChanges(since: token).deleted == [ZoneDeletion(zone: f.notes, reason: .deleted)])
        #expect(throws: CloudError.zoneNotFound(f.notes)) { try f.shared(f.heather).zoneChanges(in: f.notes, since: nil) }
        #expect(throws: CloudError.zoneNotFound(f.notes)) { try f.shared(f.heather).save(.make("x", in: f.notes)) }
        #expect(throws: CloudError.participantNotInvited("you are not invited to this share; ask its owner, or request access")) {
            try f.cloud.acceptShare(saved.url!, as: f.heather)
        }
        #expect(try f.visible(to: f.mary).contains("p1"), "only the removed participant loses it")
    }

    @Test func aChangedPermissionTakesEffectOnTheNextRequest() throws {
        let (f, saved) = try sharedWithBoth()
        var post = try f.shared(f.mary).record(f.id("p1"))

        try f.owner.setPermission(.readOnly, for: f.mary.id, on: saved.share.id)

        post["title"] = .string("too late")
        #expect(throws: CloudError.permissionFailure("read-only: shared by jermaine")) { try f.shared(f.mary).save(post) }
        try f.owner.setPermission(.readWrite, for: f.mary.id, on: saved.share.id)
        #expect(throws: Never.self) { try f.shared(f.mary).save(try f.shared(f.mary).record(f.id("p1"))) }
    }

    @Test func stoppingSharingTakesItFromEveryParticipant() throws {
        let (f, saved) = try sharedWithBoth()

        try f.owner.deleteShare(saved.share.id)

        #expect(try f.shared(f.heather).allZones().isEmpty)
        #expect(try f.shared(f.mary).allZones().isEmpty)
        #expect(try f.owner.record(f.post.id).string("title") == "Sharing demo is great", "the owner keeps the post")
        #expect(throws: CloudError.unknownShare) { try f.cloud.acceptShare(saved.url!, as: f.heather) }
        #expect(try f.owner.zoneChanges(in: f.notes, since: nil).modified.allSatisfy { $0.type != Share.recordType })
    }

    @Test func aParticipantWhoLeavesLosesItAlone() throws {
        let (f, saved) = try sharedWithBoth()

        try f.shared(f.heather).deleteShare(saved.share.id)

        #expect(try f.shared(f.heather).allZones().isEmpty)
        #expect(try f.visible(to: f.mary).contains("p1"))
        #expect(try f.owner.fetchShare(saved.share.id).participant(f.heather.id)?.status == .removed)
        #expect(try f.owner.record(f.post.id).id == f.post.id)
    }

    @Test func deletingTheZoneEndsItsSharesWithTheReason() throws {
        let (f, saved) = try sharedWithBoth()
        let token = try f.shared(f.mary).databaseChanges(since: nil).token

        try f.owner.delete(zone: f.notes, reason: .purged)

        #expect(try f.shared(f.mary).databaseChanges(since: token).deleted == [ZoneDeletion(zone: f.notes, reason: .purged)])
        #expect(throws: CloudError.unknownShare) { try f.cloud.fetchShareMetadata(saved.url!, as: f.mary) }
    }

    @Test func theOwnerCannotRemoveThemselvesNorCanAStrangerLeave() throws {
        let (f, saved) = try sharedWithBoth()
        #expect(throws: CloudError.invalidArguments("that account does not take part in this share")) {
            try f.owner.removeParticipant(f.jermaine.id, from: saved.share.id)
        }
        let zoe = try f.cloud.createAccount(name: "zoe")
        #expect(throws: CloudError.zoneNotFound(f.notes)) { try f.shared(zoe).deleteShare(saved.share.id) }
    }
}
