import Cloud
import Foundation
@testable import FrontEnd
@testable import Notes
import Testing

/// A post whose change the cloud refused is marked in the list, says why in its detail, keeps the top line off
/// "synced", and `:discard` gives the change up after asking.
@Suite struct RefusedPostTests {
    @Test func aRefusedPostIsMarkedExplainedAndCanBeDiscarded() throws {
        let fixture = try Fixture()
        let post = try fixture.post("Diary", "typed on the train", minute: 1)
        try fixture.store.write { db in
            try DeviceStore.markRefused(db, .private, post.recordID, reason: "too large for the cloud (1.2 MB of 1 MB)", at: Fixture.moment)
        }
        let sync = StandInSync()
        sync.current = .notSent(1, reason: "too large for the cloud (1.2 MB of 1 MB)")
        let frontEnd = fixture.frontEnd(sync: sync)
        let screen = frontEnd.frame(width: 100, height: 24).text
        #expect(screen.contains("! not sent: too large for the cloud (1.2 MB of 1 MB)"), "\(screen)")
        #expect(screen.contains("!  Diary"), "\(screen)")  // the list's mark, where ↑ stood while it waited
        #expect(screen.contains("Not sent  too large for the cloud"), "\(screen)")

        frontEnd.runCommandLine("discard")
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("the cloud never had it, and the text typed"))
        frontEnd.press(.char("y"))
        #expect(try fixture.store.refusedChanges().isEmpty)
        #expect(try fixture.store.posts().isEmpty)  // the cloud never had it
        frontEnd.runCommandLine("discard")
        #expect(frontEnd.frame(width: 100, height: 24).text.contains("no post selected"))
    }
}
