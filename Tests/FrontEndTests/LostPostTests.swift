import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing
import TestSupport

/// An editor open on a shared post that is taken away (or made read-only) keeps what was typed, and offers to
/// save it as a post of one's own.
@Suite struct LostPostTests {
    func sharedWithHeather(_ permission: SharePermission) throws -> (jermaine: Device, heather: Device, keep: [AnyObject]) {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory)
        let zone = try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone
        try jermaine.store.save(Post(id: "p1", zone: zone, title: "Meeting", content: "agenda"), by: jermaine.account.id, now: Date())
        jermaine.sync.now()
        let sharing = PostSharing(store: jermaine.store, cloud: cloud.cloud, account: jermaine.account)
        guard case .shared(let url) = try sharing.share(try jermaine.store.post("p1"), inviting: ["heather"], permission: permission) else {
            throw NotShared()
        }
        _ = try cloud.cloud.acceptShare(url, as: heather.account)
        heather.sync.now()
        return (jermaine, heather, [cloud, directory])
    }

    @Test func removedWhileTypingTheTextIsSavedAsOwnPost() throws {
        let (jermaine, heather, keep) = try sharedWithHeather(.readWrite)
        heather.frontEnd.press(.char("e"), .end)  // the editor opens in the text
        heather.frontEnd.type(" and minutes")
        try PostSharing(store: jermaine.store, cloud: (keep[0] as! TestCloud).cloud, account: jermaine.account)
            .removeParticipant(email: heather.account.email, from: try jermaine.store.post("p1"))
        heather.sync.now()
        #expect(try heather.store.postCount() == 0)

        heather.frontEnd.press(.ctrl("s"))
        let asked = heather.screen
        #expect(asked.contains("\"Meeting\" is no longer shared with you. Save your text") && asked.contains("[ Save as mine ]"), "\(asked)")
        heather.frontEnd.press(.char("n"))
        #expect(heather.screen.contains("Editing"))  // back in the editor, the text still there
        heather.frontEnd.press(.ctrl("s"), .char("y"))
        #expect(heather.screen.contains("saved \"Meeting\" as a post of your own in Notes"))
        let own = try heather.store.posts()
        #expect(own.count == 1 && own.first?.content == "agenda and minutes" && own.first?.scope == .private, "\(own)")
    }

    @Test func madeReadOnlyWhileTypingTheReasonIsSaidAndTheTextKept() throws {
        let (jermaine, heather, keep) = try sharedWithHeather(.readWrite)
        heather.frontEnd.press(.char("e"), .end)  // the editor opens in the text
        heather.frontEnd.type(" and minutes")
        try PostSharing(store: jermaine.store, cloud: (keep[0] as! TestCloud).cloud, account: jermaine.account)
            .setPermission(.readOnly, email: heather.account.email, on: try jermaine.store.post("p1"))
        heather.sync.now()
        heather.frontEnd.press(.ctrl("s"))
        let asked = heather.screen
        #expect(asked.contains("\"Meeting\" is read-only: shared by jermaine. Save your") && asked.contains("[ Save as mine ]"), "\(asked)")
        heather.frontEnd.press(.char("y"))
        let posts = try heather.store.posts()
        #expect(posts.count == 2 && posts.contains { $0.scope == .private && $0.content == "agenda and minutes" }, "\(posts)")
        #expect(posts.contains { $0.scope == .shared && $0.content == "agenda" })
    }
}

/// The share call made no new share (the test cannot go on).
struct NotShared: Error {}
