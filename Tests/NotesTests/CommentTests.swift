import Cloud
import Foundation
@testable import Notes
import Testing
import TestSupport

/// Comments say who wrote them and when; their authors edit and delete them, everywhere.
@Suite struct CommentTests {
    @Test func anAuthorEditsAndDeletesTheirCommentOnEveryDevice() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip"))
        let post = try d.a.store.post("p1")
        // Typed by a device whose clock is a little behind the cloud's.
        try d.a.store.add(Comment(id: "c1", postID: "p1", zone: post.zone, scope: .private, text: "bring tea"),
                          by: d.heather.id, now: d.test.clock.now().addingTimeInterval(-1.4))
        try d.a.syncNow()
        try d.b.syncNow()
        let arrived = try #require(try d.b.store.comments(on: post).first)
        #expect(arrived.text == "bring tea" && arrived.createdBy == d.heather.id && !arrived.wasEdited)
        let sent = try #require(try d.a.store.comments(on: post).first)
        #expect(sent.createdAt == arrived.createdAt && !sent.wasEdited, "every device shows the cloud's time")

        d.test.clock.advance(by: 120)
        try d.b.store.editComment(arrived, text: "bring green tea", by: d.heather.id, now: d.test.clock.now())
        try d.b.syncNow()
        try d.a.syncNow()
        let edited = try #require(try d.a.store.comments(on: post).first)
        #expect(edited.text == "bring green tea" && edited.wasEdited && edited.createdAt == arrived.createdAt)

        try d.a.store.deleteComment(edited, by: d.heather.id)
        try d.a.syncNow()
        try d.b.syncNow()
        #expect(try d.b.store.comments(on: post).isEmpty)
        let cloud = try d.test.cloud.database(.private, as: d.heather).records([RecordID(name: "c1", zone: d.notes.zone)])
        #expect(cloud.values.allSatisfy { if case .failure = $0 { true } else { false } })
    }

    @Test func nobodyButTheAuthorChangesAComment() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip"))
        let comment = Comment(id: "c1", postID: "p1", zone: d.notes.zone, scope: .private, text: "mine")
        try d.a.store.add(comment, by: "_mary", now: d.test.clock.now())
        let stored = try #require(try d.a.store.comments(on: d.a.store.post("p1")).first)

        #expect(throws: StoreError.self) { try d.a.store.editComment(stored, text: "changed", by: d.heather.id, now: Date()) }
        #expect(throws: StoreError.self) { try d.a.store.deleteComment(stored, by: d.heather.id) }
        #expect(try d.a.store.comments(on: d.a.store.post("p1")).map(\.text) == ["mine"])
    }
}
