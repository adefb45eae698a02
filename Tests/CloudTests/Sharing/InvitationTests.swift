import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct InvitationTests {
    @Test func lookingUpAnEmailWithNoAccountNeedsVerification() throws {
        let f = try SharingFixture()
        #expect(try f.owner.lookUpParticipant(email: "MARY@corp.test").userRecordID == f.mary.id)
        #expect(throws: CloudError.participantNeedsVerification("nobody@example.com")) {
            try f.owner.lookUpParticipant(email: "nobody@example.com")
        }
        #expect(throws: CloudError.unknownAccount("nobody")) { try f.owner.lookUpParticipant(accountName: "nobody") }
    }

    @Test func theURLCarries256RandomBitsAndTheCloudKeepsOnlyAHash() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost().url)
        let token = String(url.absoluteString.split(separator: "/").last!)

        #expect(token.count == 43)
        #expect(!url.description.contains(token), "descriptions redact the token")
        let stored = try TestStore.storedBytes(of: f.test.directory.url)
        #expect(!stored.isEmpty)
        #expect(stored.range(of: Data(token.utf8)) == nil)
        #expect(try ShareURL(parsing: url.absoluteString) == url)
    }

    @Test func metadataTellsAnInviteeWhatTheyAreInvitedTo() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost(inviting: [(f.heather, .readWrite)]).url)

        let metadata = try f.cloud.fetchShareMetadata(url, as: f.heather)

        #expect(metadata.title == "Sharing demo is great" && metadata.type == "Post")
        #expect(metadata.ownerName == "jermaine" && metadata.ownerEmail == "jermaine@example.com")
        #expect(metadata.rootRecord == f.post.id && metadata.zone == f.notes)
        #expect([metadata.role.rawValue, metadata.permission.rawValue, metadata.status.rawValue] == ["privateUser", "readWrite", "pending"])
        #expect(try f.cloud.fetchShareMetadata(url, as: f.jermaine).role == .owner)
    }

    @Test func someoneNotInvitedLearnsNothingAndCannotAccept() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost(inviting: [(f.heather, .readWrite)]).url)
        let refusal = CloudError.participantNotInvited("you are not invited to this share; ask its owner, or request access")

        #expect(throws: refusal) { try f.cloud.fetchShareMetadata(url, as: f.mary) }
        #expect(throws: refusal) { try f.cloud.acceptShare(url, as: f.mary) }
        #expect(try f.shared(f.mary).allZones().isEmpty)
    }

    @Test func tamperedAndMalformedLinksAreRefused() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost(inviting: [(f.heather, .readWrite)]).url)
        var text = url.absoluteString
        let last = text.removeLast()
        text.append(last == "A" ? "B" : "A")

        #expect(throws: CloudError.unknownShare) { try f.cloud.acceptShare(try ShareURL(parsing: text), as: f.heather) }
        for bad in ["", "https://example.com", "cloudnotes://share/", "cloudnotes://share/iCloud.cloudnotes/short",
                    url.absoluteString + "x", url.absoluteString.replacingOccurrences(of: "share/", with: "share//")] {
            #expect(throws: CloudError.self) { try ShareURL(parsing: bad) }
        }
    }

    @Test func acceptingMakesTheZoneAppearMovesTheTokenAndPushes() throws {
        let f = try SharingFixture()
        let url = try #require(try f.sharePost(inviting: [(f.heather, .readWrite)]).url)
        let before = try f.shared(f.heather).databaseChanges(since: nil)
        #expect(before.modified.isEmpty)
        let heard = Mutex(0)
        let subscription = f.shared(f.heather).subscribe { _ in heard.withLock { $0 += 1 } }
        defer { subscription.cancel() }

        let metadata = try f.cloud.acceptShare(url, as: f.heather)

        #expect(metadata.status == .accepted)
        let after = try f.shared(f.heather).databaseChanges(since: before.token)
        #expect(after.modified == [f.notes])
        #expect(after.token != before.token)
        #expect(try f.shared(f.heather).allZones() == [f.notes])
        #expect(eventually { heard.withLock { $0 } > 0 })
        #expect(try f.owner.fetchShare(RecordID(name: "share-p1", zone: f.notes)).participant(f.heather.id)?.status == .accepted)
        #expect(try f.cloud.acceptShare(url, as: f.heather).status == .accepted, "accepting again changes nothing")
    }

    @Test func aOneTimeLinkAdmitsExactlyOneAccountOnce() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost()
        let third = try f.cloud.createAccount(name: "zoe")
        let (share, oneTime) = try f.owner.makeOneTimeInvitation(for: saved.share.id, permission: .readOnly)
        #expect(share.participants.contains { $0.userRecordID == nil && $0.oneTimeID != nil && $0.status == .pending })
        #expect(oneTime != saved.url)

        let metadata = try f.cloud.acceptShare(oneTime, as: f.mary)

        #expect(metadata.permission == .readOnly && metadata.status == .accepted)
        #expect(try f.visible(to: f.mary).contains("p1"))
        #expect(throws: CloudError.participantNotInvited("this one-time link was already used")) {
            try f.cloud.acceptShare(oneTime, as: third)
        }
        #expect(try f.shared(third).allZones().isEmpty)
        #expect(try f.cloud.acceptShare(oneTime, as: f.mary).status == .accepted, "its holder may open it again")
    }

    @Test func accessRequestsAreApprovedDeniedOrBlocked() throws {
        let f = try SharingFixture()
        let saved = try f.sharePost()
        let url = try #require(saved.url)
        let zoe = try f.cloud.createAccount(name: "zoe")

        try f.cloud.requestAccess(url, as: f.heather)
        try f.cloud.requestAccess(url, as: f.mary)
        try f.cloud.requestAccess(url, as: zoe)
        #expect(try f.owner.accessRequests(for: saved.share.id).map(\.name) == ["heather", "mary", "zoe"])
        #expect(throws: CloudError.permissionFailure("only the owner reads or writes a private database")) {
            try f.cloud.database(.private, as: f.heather).accessRequests(for: saved.share.id)
        }
        #expect(throws: CloudError.zoneNotFound(f.notes)) { try f.shared(f.heather).accessRequests(for: saved.share.id) }

        try f.owner.respond(to: f.heather.id, requestingAccessTo: saved.share.id, with: .approve(.readWrite))
        try f.owner.respond(to: f.mary.id, requestingAccessTo: saved.share.id, with: .deny)
        try f.owner.respond(to: zoe.id, requestingAccessTo: saved.share.id, with: .block)

        #expect(try f.shared(f.heather).allZones() == [f.notes], "approved: in, no further step")
        #expect(try f.owner.accessRequests(for: saved.share.id).map { "\($0.name) \($0.status)" } == ["zoe blocked"])
        #expect(throws: Never.self) { try f.cloud.requestAccess(url, as: f.mary) }
        #expect(throws: CloudError.participantNotInvited("you may not join this share")) { try f.cloud.requestAccess(url, as: zoe) }
        #expect(throws: CloudError.participantNotInvited("you may not join this share")) { try f.cloud.fetchShareMetadata(url, as: zoe) }
    }
}
