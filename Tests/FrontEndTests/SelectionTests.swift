import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing

/// The selection stays on its post however the list moves under it.
@Suite struct SelectionTests {
    /// 300 posts arrive newer than the selected one (as a `cn new` loop in another terminal makes them), each
    /// followed by a store change, with frames far fewer than changes: the selection is on the same post.
    @Test func aBurstOfLiveInsertsDoesNotMoveTheSelectionOffItsPost() throws {
        let fixture = try Fixture()
        for minute in 0..<30 { try fixture.post("Post \(minute)", minute: minute) }
        let frontEnd = fixture.frontEnd()
        for _ in 0..<5 { frontEnd.press(.down) }
        _ = frontEnd.frame(width: 100, height: 30)
        let chosen = try #require(frontEnd.selectedPost)
        #expect(chosen.title == "Post 24")

        for index in 0..<300 {
            try fixture.post("Burst \(index)", minute: 100 + index)
            frontEnd.storeChanged()
            if index % 50 == 49 { _ = frontEnd.frame(width: 100, height: 30) }
        }
        let screen = frontEnd.frame(width: 100, height: 30)
        #expect(frontEnd.selectedPost?.id == chosen.id)
        #expect(frontEnd.state.selection == 305)
        #expect(screen.text.contains("Post 24"))
    }

    @Test func whenTheSelectedPostGoesItsNeighbourIsSelectedAndANoticeSaysWhy() throws {
        let fixture = try Fixture()
        for minute in 0..<10 { try fixture.post("Post \(minute)", minute: minute) }
        let frontEnd = fixture.frontEnd()
        for _ in 0..<3 { frontEnd.press(.down) }
        _ = frontEnd.frame(width: 100, height: 30)
        let chosen = try #require(frontEnd.selectedPost)
        #expect(chosen.title == "Post 6")

        try fixture.store.delete(chosen)  // as a sync applying heather's deletion would
        frontEnd.storeChanged(LiveSync.Update(arrivals: [Arrival(kind: .deleted, postID: chosen.id, title: chosen.title, by: "_heather")]))
        let screen = frontEnd.frame(width: 100, height: 30)
        #expect(frontEnd.selectedPost?.title == "Post 5")
        #expect(screen.lines[screen.height - 2].hasPrefix("\"Post 6\" was deleted · the next post is selected"))
    }
}
