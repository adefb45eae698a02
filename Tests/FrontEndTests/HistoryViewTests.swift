import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing
import TestSupport

/// `h` lists a post's versions with who, when and the lines each changed, and brings one back as an edit;
/// `T` lists deleted posts and brings one back. Over a real cloud.
@Suite struct HistoryViewTests {
    @Test func historyShowsWhoChangedWhichLinesAndRestoresAVersionAsAnEdit() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let post = Post(id: "p1", zone: try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone, title: "Trip", content: "tickets")
        try jermaine.store.save(post, by: jermaine.account.id, now: Date())
        jermaine.sync.now()
        var edited = post
        edited.content = "tickets\npassports"
        _ = try jermaine.store.saveEdit(edited, from: post.fields, by: Editor(account: jermaine.account, device: "laptop"), now: Date())
        jermaine.sync.now()
        #expect(try jermaine.store.post("p1").content == "tickets\npassports")

        jermaine.frontEnd.press(.char("h"))
        let shown = jermaine.screen
        #expect(shown.contains("History of \"Trip\""), "\(shown)")
        #expect(shown.contains("version 2 · jermaine · now · current") && shown.contains("version 1 · jermaine"))
        #expect(shown.contains("+ passports") && shown.contains("  tickets"))
        jermaine.frontEnd.press(.char("r"))
        #expect(jermaine.screen.contains("version 2 is the current one"))

        jermaine.frontEnd.press(.char("j"), .char("r"), .char("y"))
        #expect(jermaine.screen.contains("brought back version 1 of \"Trip\""))
        #expect(try jermaine.store.post("p1").content == "tickets")
        jermaine.frontEnd.press(.char("h"))
        #expect(jermaine.screen.contains("version 3 · jermaine · now · current") && jermaine.screen.contains("- passports"))
    }

    @Test func theTrashBringsADeletedPostBack() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        jermaine.frontEnd.press(.char("T"))
        #expect(jermaine.screen.contains("the trash is empty"))
        let zone = try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone
        try jermaine.store.save(Post(id: "p1", zone: zone, title: "Keep me", content: "words"), by: jermaine.account.id, now: Date())
        jermaine.sync.now()
        jermaine.frontEnd.press(.char("d"), .char("y"))
        #expect(try jermaine.store.postCount() == 0)

        jermaine.frontEnd.press(.char("T"))
        let trash = jermaine.screen
        #expect(trash.contains("Recently deleted") && trash.contains("Keep me · Notes · deleted now by jermaine") && trash.contains("words"))
        jermaine.frontEnd.press(.char("r"), .char("y"))
        #expect(jermaine.screen.contains("brought back \"Keep me\""))
        #expect(try jermaine.store.post("p1").content == "words")

        // Deleted here and not sent yet: the trash says where it is.
        try jermaine.store.save(Post(id: "p2", zone: zone, title: "Not yet"), by: jermaine.account.id, now: Date())
        jermaine.sync.now()
        try jermaine.store.delete(try jermaine.store.post("p2"))
        try jermaine.store.delete(try jermaine.store.post("p1"))
        jermaine.frontEnd.press(.char("T"))
        #expect(jermaine.screen.contains("the trash is empty for now: 2 deletions are still on the way to the cloud"))
    }
}
