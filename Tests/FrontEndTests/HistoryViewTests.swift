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

    /// A restore moves its post to the top (it was changed now): the selection goes with it, so the next `e`
    /// edits the post just brought back, not the one that took its row.
    @Test func theSelectionFollowsARestoredPost() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let zone = try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone
        let start = Date().addingTimeInterval(-600)
        for (minute, title) in ["Oldest", "Middle", "Newest"].enumerated() {
            try jermaine.store.save(Post(id: title, zone: zone, title: title, content: "first"), by: jermaine.account.id,
                                    now: start.addingTimeInterval(Double(minute) * 60))
        }
        jermaine.sync.now()
        var edited = try jermaine.store.post("Oldest")
        edited.content = "second"
        _ = try jermaine.store.saveEdit(edited, from: try jermaine.store.post("Oldest").fields,
                                        by: Editor(account: jermaine.account, device: "laptop"), now: start.addingTimeInterval(180))
        var middle = try jermaine.store.post("Middle")
        middle.content = "moved up"
        _ = try jermaine.store.saveEdit(middle, from: try jermaine.store.post("Middle").fields,
                                        by: Editor(account: jermaine.account, device: "laptop"), now: start.addingTimeInterval(240))
        jermaine.sync.now()
        // Middle, Oldest, Newest: select Oldest (the second row) and bring back its first version.
        _ = jermaine.screen
        jermaine.frontEnd.press(.char("j"))
        #expect(jermaine.frontEnd.selectedPost?.id == "Oldest")
        jermaine.frontEnd.press(.char("h"))
        _ = jermaine.screen  // the versions arrive
        jermaine.frontEnd.press(.char("j"), .char("r"), .char("y"))
        #expect(jermaine.screen.contains("brought back version 1 of \"Oldest\""))
        #expect(jermaine.frontEnd.selectedPost?.id == "Oldest", "the restored post, now at the top")

        // From the trash: the post brought back is the one selected.
        jermaine.frontEnd.press(.char("j"), .char("j"))
        #expect(jermaine.frontEnd.selectedPost?.id == "Newest")
        jermaine.frontEnd.press(.char("d"), .char("y"))
        jermaine.sync.now()
        _ = jermaine.screen
        jermaine.frontEnd.press(.char("g"))
        #expect(jermaine.frontEnd.selectedPost?.id == "Oldest")
        jermaine.frontEnd.press(.char("T"))
        _ = jermaine.screen
        jermaine.frontEnd.press(.char("r"), .char("y"))
        #expect(jermaine.screen.contains("brought back \"Newest\""))
        #expect(jermaine.frontEnd.selectedPost?.id == "Newest")
    }

    /// The cloud may be a server a round trip (or a timeout) away: `h`, `T` and `I` ask it off the screen's
    /// thread, the screen keeps answering meanwhile, and an answer that comes after the person left the list
    /// is dropped rather than thrown over what they are doing.
    @Test func theScreenKeepsAnsweringWhileTheCloudIsAsked() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let held = HeldWork()
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory, background: held.add)
        let zone = try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone
        try jermaine.store.save(Post(id: "p1", zone: zone, title: "Trip", content: "tickets"), by: jermaine.account.id, now: Date())
        jermaine.sync.now()

        jermaine.frontEnd.press(.char("h"))
        #expect(jermaine.screen.contains("asking the cloud…"))
        #expect(!jermaine.screen.contains("History of"))
        held.runAll()
        #expect(jermaine.screen.contains("History of \"Trip\""), "\(jermaine.screen)")

        jermaine.frontEnd.press(.char("q"), .char("T"), .char("a"))  // the trash asked for, then a new post begun
        held.runAll()
        #expect(!jermaine.screen.contains("the trash is empty") && !jermaine.screen.contains("Recently deleted"), "\(jermaine.screen)")

        // Emptying the trash is an action: its outcome is said whenever it comes.
        jermaine.frontEnd.press(.escape)
        try jermaine.store.delete(try jermaine.store.post("p1"))
        jermaine.sync.now()
        jermaine.frontEnd.press(.char(":"))
        jermaine.frontEnd.type("empty-trash")
        jermaine.frontEnd.press(.enter, .char("y"))
        #expect(jermaine.screen.contains("asking the cloud…"))
        held.runAll()
        #expect(jermaine.screen.contains("emptied the trash: 1 post can no longer be brought back"), "\(jermaine.screen)")
    }
}

/// Work a test lets run when it chooses.
final class HeldWork: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []
    func add(_ job: @escaping @Sendable () -> Void) { lock.withLock { jobs.append(job) } }
    func runAll() { for job in lock.withLock({ defer { jobs = [] }; return jobs }) { job() } }
}
