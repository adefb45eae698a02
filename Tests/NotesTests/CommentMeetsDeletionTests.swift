import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// A comment typed on a device while its post is deleted elsewhere is never lost without a word: on one's own
/// post it brings the post back, as an edit would; on a post shared with one, it is kept as a post of one's own,
/// and said so.
@Suite struct CommentMeetsDeletionTests {
    /// `fetchFirst`: the device hears of the deletion before it sends the comment (else the cloud refuses it).
    @Test(arguments: [true, false]) func aCommentOnOnesOwnPostDeletedElsewhereBringsItBack(fetchFirst: Bool) throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.store.add(Comment(id: "c0", postID: "p1", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()
        try d.b.store.add(Comment(id: "c1", postID: "p1", zone: d.notes.zone, scope: .private, text: "and a visa"), by: d.heather.id,
                          now: d.test.clock.now())
        let c0 = try #require(try d.b.store.comments(on: try d.b.store.post("p1")).first { $0.id == "c0" })
        try d.b.store.editComment(c0, text: "book early, by Friday", by: d.heather.id, now: d.test.clock.now())
        if fetchFirst { try d.b.engine(.private).fetchChanges() }
        for device in [d.b, d.b, d.a] { try device.syncNow() }

        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(post.content == "tickets")
            #expect(Set(try device.store.comments(on: post).map(\.text)) == ["and a visa", "book early, by Friday"])
            #expect(try device.store.pendingCount() == 0)
        }
        #expect(d.b.takeNews().refusals.isEmpty, "nothing lost, nothing to tell")
    }

    /// Heather, a participant of jermaine's notebook, comments offline on his post while he deletes it.
    @Test(arguments: [true, false]) func aParticipantsCommentOnAPostDeletedMeanwhileIsKeptAsHerOwnPost(fetchFirst: Bool) throws {
        let test = try TestCloud()
        let dir = TemporaryDirectory("comment-deleted")
        let jermaine = try test.cloud.createAccount(name: "jermaine"), heather = try test.cloud.createAccount(name: "heather")
        func device(_ account: Account) throws -> NotesSync {
            let store = try DeviceStore(directory: dir.path(account.name))
            store.keyring = try Keyring(directory: dir.path("\(account.name)-keys"), account: account, cloud: test.cloud)
            _ = try store.ensureDefaultNotebook(owner: account.id)
            return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
        }
        let owner = try device(jermaine), guest = try device(heather)
        let notes = try #require(try owner.store.notebooks().first)
        try owner.store.save(Post(id: "p1", zone: notes.zone, title: "Meeting", content: "A"), by: jermaine.id, now: Date())
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: jermaine)
        // The notebook as a whole: the share outlives the post (a post's own share would end with it).
        _ = try test.cloud.acceptShare(try sharing.share(notebook: "Notes", inviting: ["heather"], permission: .readWrite), as: heather)
        try guest.syncNow()
        try guest.store.add(Comment(id: "c1", postID: "p1", zone: notes.zone, scope: .shared, text: "count me in"), by: heather.id, now: Date())
        try owner.store.delete(try owner.store.post("p1"))
        try owner.syncNow()
        if fetchFirst { try guest.engine(.shared).fetchChanges() }
        try guest.syncNow()

        let told = guest.takeNews().refusals
        #expect(told.contains { $0.outcome?.contains("your comment is kept as a post of your own") == true }, "\(told)")
        let own = try guest.store.posts().filter { $0.scope == .private }
        #expect(own.contains { $0.content.contains("count me in") }, "\(own.map(\.content))")
        #expect(try guest.store.pendingCount() == 0 || (try guest.syncNow(), try guest.store.pendingCount()).1 == 0)
    }
}
