import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// A change the cloud refuses for what it is never passes for sent: it stays on its post, marked, counted apart,
/// until an edit fixes it or the person discards it.
@Suite struct RefusedChangeTests {
    /// A cloud whose records hold at most 2 KB, so a post of a few thousand characters is refused by the cloud
    /// itself (the device's own check goes by CloudKit's 1 MB).
    static func smallRecords() -> CloudLimits {
        var limits = CloudLimits()
        limits.maxRecordBytes = 2048
        return limits
    }

    @Test func aPostTheCloudRefusesStaysMarkedUntilAnEditMakesItFit() throws {
        let d = try TwoDevices(limits: Self.smallRecords())
        let long = String(repeating: "words typed on the train. ", count: 200)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Diary", content: long))

        try d.a.syncNow()

        #expect(try d.a.store.pendingCount() == 0)  // nothing more will be tried as it is...
        let refused = try d.a.store.refusedChanges()
        #expect(refused.map(\.id.name) == ["p1"] && refused.first?.title == "Diary")  // ...but it is not sent, and says so
        #expect(refused.first?.reason.contains("refused by the cloud") == true, "\(refused)")
        #expect(try d.a.store.post("p1").content == long)
        let listed = try d.a.store.listedPosts(offset: 0, limit: 10)
        #expect(listed.map(\.refused) == [true] && listed.map(\.pending) == [false])
        #expect(try d.a.store.postCount(PostFilter(kind: .notSent)) == 1)
        #expect(try d.test.cloud.database(.private, as: d.heather).records([RecordID(name: "p1", zone: d.notes.zone)])
                    .values.allSatisfy { if case .failure = $0 { true } else { false } })

        // Another round does not send it again (nothing new is refused), and does not forget it.
        #expect(d.a.takeNews().refusals.count == 1)
        try d.a.syncNow()
        #expect(d.a.takeNews().refusals.isEmpty)
        #expect(try d.a.store.refusedChanges().count == 1)

        // An edit that fits sends it, and the mark goes.
        var post = try d.a.store.post("p1")
        post.content = "words typed on the train."
        try d.write(d.a, post)
        #expect(try d.a.store.refusedChanges().isEmpty && d.a.store.pendingCount() == 1)
        try d.a.syncNow()
        try d.b.syncNow()
        #expect(try d.b.store.post("p1").content == "words typed on the train.")
        #expect(try d.a.store.refusedChanges().isEmpty && d.a.store.pendingCount() == 0)
    }

    @Test func aRefusedChangeIsReportedAsNotSentWithItsReason() throws {
        let d = try TwoDevices(limits: Self.smallRecords())
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Diary", content: String(repeating: "x", count: 5000)))
        try d.a.syncNow()
        let told = d.a.takeNews().refusals
        #expect(told.map(\.id.name) == ["p1"])
        #expect(told.first?.description.contains("not sent") == true, "\(told)")
        #expect(LiveSync.settled(waiting: 0, refused: try d.a.store.refusedChanges())
                    == .notSent(1, reason: try d.a.store.refusedChanges()[0].reason))
    }

    @Test func discardingGoesBackToTheCloudsCopyOrDropsAPostItNeverHad() throws {
        let d = try TwoDevices(limits: Self.smallRecords())
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Short", content: "fits"))
        try d.a.syncNow()
        var grown = try d.a.store.post("p1")
        grown.content = String(repeating: "y", count: 5000)
        try d.write(d.a, grown)
        try d.write(d.a, Post(id: "p2", zone: d.notes.zone, title: "Never sent", content: String(repeating: "z", count: 5000)))
        try d.a.syncNow()
        #expect(Set(try d.a.store.refusedChanges().map(\.id.name)) == ["p1", "p2"])
        #expect(throws: StoreError.self) { try d.a.store.discardRefused(RecordID(name: "p3", zone: d.notes.zone), in: .private) }

        try d.a.store.discardRefused(RecordID(name: "p1", zone: d.notes.zone), in: .private)
        try d.a.store.discardRefused(RecordID(name: "p2", zone: d.notes.zone), in: .private)

        #expect(try d.a.store.post("p1").content == "fits")
        #expect(throws: StoreError.self) { try d.a.store.post("p2") }
        #expect(try d.a.store.refusedChanges().isEmpty && d.a.store.pendingCount() == 0)
    }

    @Test func aPostThatCannotFitARecordIsRefusedAtOnceAndNothingOfItIsSaved() throws {
        let d = try TwoDevices()
        let huge = String(repeating: "long paste ", count: 110_000)  // 1.2 MB
        #expect {
            try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Paste", content: huge))
        } throws: { error in
            "\(error)".contains("too large for the cloud (1.2 MB of 1 MB)") && "\(error)".contains("nothing was saved")
        }
        #expect(throws: StoreError.self) { try d.a.store.post("p1") }

        // An import of several is kept whole or not at all.
        let fine = Post(id: "p2", zone: d.notes.zone, title: "Fine")
        #expect(throws: StoreError.self) {
            try d.a.store.save([fine, Post(id: "p3", zone: d.notes.zone, title: "Paste", content: huge)], by: d.heather.id, now: Date())
        }
        #expect(try d.a.store.posts().isEmpty && d.a.store.pendingCount() == 0)

        // An edit that grows past it is refused the same way, the post left as it was.
        try d.write(d.a, fine)
        var grown = try d.a.store.post("p2")
        grown.content = huge
        #expect(throws: StoreError.self) { try d.a.store.saveEdit(grown, from: fine.fields, by: Editor(account: d.heather, device: "a"), now: Date()) }
        #expect(try d.a.store.post("p2").content == "")

        // A comment too.
        let comment = Comment(id: "c1", postID: "p2", zone: d.notes.zone, scope: .private, text: huge)
        #expect(throws: StoreError.self) { try d.a.store.add(comment, by: d.heather.id, now: Date()) }
        #expect(try d.a.store.comments(on: d.a.store.post("p2")).isEmpty)
    }
}

extension RefusedChangeTests {
    @Test func aTitleLongerThanTheLimitIsRefusedAtOnce() throws {
        let d = try TwoDevices()
        #expect {
            try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: String(repeating: "t", count: Post.maxTitleLength + 1)))
        } throws: { "\($0)".contains("a title holds at most 1000 characters") }
        try d.write(d.a, Post(id: "p2", zone: d.notes.zone, title: String(repeating: "t", count: Post.maxTitleLength)))
        #expect(try d.a.store.posts().map(\.id) == ["p2"])
    }

    /// A longer title another client wrote is not this device's to refuse: its tags and text are edited, the post
    /// moves; only a title typed longer is refused.
    @Test func aLongerTitleAnotherClientWroteDoesNotBlockOtherEdits() throws {
        let d = try TwoDevices()
        let long = String(repeating: "t", count: 5 * Post.maxTitleLength)
        _ = try d.test.cloud.database(.private, as: d.heather).save(Record.make("p3", in: d.notes.zone, ["title": long, "content": "x"]))
        try d.a.syncNow()
        var post = try d.a.store.post("p3")
        let base = post.fields
        post.tags = ["home"]
        _ = try d.a.store.saveEdit(post, from: base, by: Editor(account: d.heather, device: "a"), now: d.test.clock.now())
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        let moved = try d.a.store.move(try d.a.store.post("p3"), to: travel, by: d.heather.id, now: d.test.clock.now())
        #expect(moved.title == long && moved.tags == ["home"])
        var longer = moved
        longer.title += "t"
        #expect(throws: StoreError.self) { try d.a.store.saveEdit(longer, from: moved.fields, by: Editor(account: d.heather, device: "a"), now: Date()) }
    }
}
