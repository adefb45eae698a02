import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct PublicPermissionTests {
    @Test func anyoneWithTheLinkJoinsAPublicShareAsAPublicUser() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost(publicPermission: .readOnly).url)

        let metadata = try f.cloud.fetchShareMetadata(url, as: f.mary)
        #expect(metadata.role == .publicUser && metadata.permission == .readOnly && metadata.status == .unknown)
        try f.cloud.acceptShare(url, as: f.mary)

        #expect(try f.visible(to: f.mary).contains("p1"))
        let share = try f.owner.fetchShare(RecordID(name: "share-p1", zone: f.notes))
        #expect(share.participant(f.mary.id)?.role == .publicUser)
        var post = try f.shared(f.mary).record(f.id("p1"))
        post["title"] = .string("x")
        #expect(throws: CloudError.permissionFailure("read-only: shared by jermaine")) { try f.shared(f.mary).save(post) }
    }

    @Test func turningPublicDropsPendingInvitationsAndKeepsAcceptedOnes() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(inviting: [(f.heather, .readWrite), (f.mary, .readOnly)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)

        let share = try f.owner.setPublicPermission(.readOnly, on: saved.share.id)

        #expect(share.participant(f.heather.id)?.status == .accepted)
        #expect(share.participant(f.mary.id)?.status == .removed)
        #expect(throws: CloudError.invalidArguments("a public share takes no invitations: anyone with its link may join")) {
            try f.owner.addParticipant(try f.owner.lookUpParticipant(accountName: "mary"), permission: .readOnly, to: saved.share.id)
        }
    }

    @Test func turningPrivateRemovesEveryPublicUser() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost(publicPermission: .readWrite)
        try f.cloud.acceptShare(saved.url!, as: f.mary)
        #expect(try f.visible(to: f.mary).contains("p1"))

        let share = try f.owner.setPublicPermission(.none, on: saved.share.id)

        #expect(share.participant(f.mary.id)?.status == .removed)
        #expect(try f.shared(f.mary).allZones().isEmpty)
        #expect(throws: CloudError.self) { try f.cloud.acceptShare(saved.url!, as: f.mary) }
    }

    @Test func aShareHoldsAtMostItsLimitOfParticipants() throws {
        var limits = CloudLimits()
        limits.maxParticipants = 1
        let f = try SharingFixture(limits: limits)
        #expect(throws: CloudError.tooManyParticipants(limit: 1)) {
            try f.sharePost(inviting: [(f.heather, .readOnly), (f.mary, .readOnly)])
        }
        let saved = try f.sharePost(inviting: [(f.heather, .readOnly)])
        #expect(throws: CloudError.tooManyParticipants(limit: 1)) {
            try f.owner.addParticipant(try f.owner.lookUpParticipant(accountName: "mary"), permission: .readOnly, to: saved.share.id)
        }
    }

    @Test func aStaleShareIsRefusedWithTheServersVersion() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost()
        try f.owner.setPublicPermission(.readOnly, on: saved.share.id)
        var stale = saved.share
        stale.title = "renamed"
        #expect {
            try f.owner.saveShare(stale)
        } throws: { error in
            guard case .serverRecordChanged(let server)? = error as? CloudError else { return false }
            return (try? Share(record: server))?.publicPermission == .readOnly
        }
    }
}

@Suite struct AdministratorTests {
    @Test func anAdministratorManagesParticipantsButNotTheShareItself() throws {
        let f = try SharingFixture()
        var share = Share(rootRecord: f.post.id, title: "t")
        var admin = try f.owner.lookUpParticipant(accountName: "heather")
        admin.role = .administrator
        share.participants.append(admin)
        share.participants[0].permission = .readWrite
        let saved = try f.owner.saveShare(share, rootRecord: try f.owner.record(f.post.id))
        #expect(saved.share.participant(f.heather.id)?.role == .administrator)
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        let heather = f.shared(f.heather)

        let added = try heather.addParticipant(try heather.lookUpParticipant(accountName: "mary"), permission: .readOnly,
                                               to: saved.share.id)
        #expect(added.participant(f.mary.id)?.status == .pending)
        #expect(throws: CloudError.permissionFailure("only the owner changes a share's title, type or public permission")) {
            try heather.setPublicPermission(.readWrite, on: saved.share.id)
        }
        #expect(try heather.accessRequests(for: saved.share.id).isEmpty)
    }
}
