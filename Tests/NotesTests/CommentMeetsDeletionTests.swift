import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// A comment typed on a device while its post is deleted elsewhere (another device of the account, or the owner of a
/// notebook shared with one) is kept as a post of one's own, and said so: not saved below the post's tombstone, where
/// nobody would read it (a tryout lost such a comment without a word).
@Suite struct CommentMeetsDeletionTests {
    /// Heather, a participant of jermaine's notebook, comments offline on his post while he deletes it.
    @Test func aParticipantsCommentOnAPostDeletedMeanwhileIsKeptAsHerOwnPost() throws {
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
        try guest.engine(.shared).fetchChanges()  // heard before the comment is sent (a live front end's fetch)
        try guest.syncNow()

        let told = guest.takeNews().refusals
        #expect(told.contains { $0.outcome?.contains("your comment is kept as a post of your own") == true }, "\(told)")
        let own = try guest.store.posts().filter { $0.scope == .private }
        #expect(own.contains { $0.content.contains("count me in") }, "\(own.map(\.content))")
        #expect(try guest.store.pendingCount() == 0 || (try guest.syncNow(), try guest.store.pendingCount()).1 == 0)
    }

    /// Heather comments offline on her laptop on a post her other device deletes meanwhile, whether or not the
    /// laptop heard of the deletion before sending.
    @Test(arguments: [false, true]) func aCommentOnAPostDeletedOnAnotherDeviceIsKeptAsAPost(heardFirst: Bool) throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.add(Comment(id: "c1", postID: "p1", zone: d.notes.zone, scope: .private, text: "window seat"), by: d.heather.id, now: Date())
        try d.b.store.delete(try d.b.store.post("p1"))
        try d.b.syncNow()
        if heardFirst { try d.a.engine(.private).fetchChanges() }
        try d.a.syncNow()
        try d.b.syncNow()

        let told = d.a.takeNews().refusals
        #expect(told.count == 1 && told.first?.outcome?.contains("your comment is kept as a post of your own") == true, "\(told)")
        for device in [d.a, d.b] {
            #expect(try device.store.posts().map(\.content).contains { $0.contains("window seat") }, "\(device === d.a)")
            #expect(try device.store.pendingCount() == 0)
        }
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(throws: CloudError.self) { try cloud.record(RecordID(name: "c1", zone: d.notes.zone)) }
    }
}
