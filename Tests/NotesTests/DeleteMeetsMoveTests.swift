import Cloud
import Foundation
import Notes
import Testing
import TestSupport

/// One device deletes a post or a comment while another, not having heard, moves the post: the deletion stands
/// where the moving device changed nothing, and its words come back where it did.
@Suite struct DeleteMeetsMoveTests {
    /// Both devices hold "moving" in Notes with the comment "book early"; returns the Travel notebook, made on a.
    func setUp(_ d: TwoDevices) throws -> Notebook {
        try d.write(d.a, Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.store.add(Comment(id: "c1", postID: "moving", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        return try d.a.store.createNotebook("Travel", owner: d.heather.id)
    }

    func syncBoth(_ d: TwoDevices) throws {
        for device in [d.a, d.b, d.a] { try device.syncNow() }
    }

    @Test func aPostDeletedElsewhereStaysDeletedWhenAStaleDeviceMovesIt() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.store.delete(try d.b.store.post("moving"))
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try syncBoth(d)

        for device in [d.a, d.b] {
            let titles = try device.store.posts().map(\.title)
            #expect(titles.isEmpty, "\(titles)")
            #expect(try device.store.pendingCount() == 0)
        }
        #expect(d.a.takeNews().refusals.isEmpty, "nothing to tell: what was moved was deleted, unchanged")
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(try cloud.trash(in: d.notes.zone, type: Post.recordType).map { $0.last.record.id.name } == ["moving"])
    }

    @Test func aCommentDeletedElsewhereStaysDeletedWhenItsPostMoves() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        let comment = try #require(try d.b.store.comments(on: try d.b.store.post("moving")).first)
        try d.b.store.deleteComment(comment, by: d.heather.id)
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"])
            #expect(try device.store.comments(on: try #require(posts.first)).isEmpty)
            #expect(try device.store.pendingCount() == 0)
        }
        #expect(d.a.takeNews().refusals.isEmpty)
    }

    /// The moving device changed the post after the version deleted elsewhere: its words come back, in the
    /// notebook it moved the post to.
    @Test func aPostChangedOnTheMovingDeviceComesBackWithItsWords() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.store.delete(try d.b.store.post("moving"))
        try d.b.syncNow()
        var moved = try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        moved.content = "tickets\nvisa"
        try d.write(d.a, moved)
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }
}
