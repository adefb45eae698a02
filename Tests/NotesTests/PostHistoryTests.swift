import Cloud
import Foundation
@testable import Notes
import Testing
import TestSupport

/// History and trash through the app: versions fold what did not change, a restore is an edit that merges,
/// and a deleted post comes back on every device.
@Suite struct PostHistoryTests {
    func history(_ d: TwoDevices, _ device: NotesSync) -> PostHistory {
        PostHistory(store: device.store, cloud: d.test.cloud, account: d.heather)
    }

    func edit(_ d: TwoDevices, _ device: NotesSync, _ id: String, _ change: (inout Post) -> Void) throws {
        d.test.clock.advance(by: 60)
        var post = try device.store.post(id)
        let base = post.fields
        change(&post)
        _ = try device.store.saveEdit(post, from: base, by: Editor(account: d.heather, device: "laptop"), now: d.test.clock.now())
    }

    @Test func versionsListEachChangeOfContentWithItsDiffAndARestoreMergesLikeAnEdit() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.syncNow()
        try edit(d, d.a, "p1") { $0.content = "tickets\npassports" }
        try d.a.syncNow()
        try edit(d, d.a, "p1") { $0.title = "Trip to Hà Nội" }
        try d.a.syncNow()
        // Saved again with the same content (as saving a share does): not a version of its own.
        let db = d.test.cloud.database(.private, as: d.heather)
        _ = try db.save(try db.record(RecordID(name: "p1", zone: d.notes.zone)), policy: .allKeys)
        try d.b.syncNow()

        let versions = try history(d, d.b).versions(of: try d.b.store.post("p1"))
        #expect(versions.map(\.post.title) == ["Trip to Hà Nội", "Trip", "Trip"])
        #expect(versions.map(\.isCurrent) == [true, false, false] && versions.map(\.number) == [4, 2, 1],
                "a run of saves is named by its last, as every reader sees it")
        #expect(versions[0].numbers == 3...4)
        #expect(DiffLine.lines(from: versions[2].post.content, to: versions[1].post.content) == [.same("tickets"), .added("passports")])

        // Device a types a line it has not sent; device b restores the first version meanwhile.
        try edit(d, d.a, "p1") { $0.content = "Monday:\n" + $0.content }
        let first = try #require(versions.last)
        _ = try history(d, d.b).restore(try d.b.store.post("p1"), version: first.number, by: Editor(account: d.heather, device: "phone"),
                                        now: d.test.clock.now())
        try d.b.syncNow()
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(post.title == "Trip" && post.content == "Monday:\ntickets" && !post.conflicted, "\(post.content)")
        }
        #expect(try history(d, d.a).versions(of: try d.a.store.post("p1")).count == 5)
    }

    @Test func aDeletedPostIsInTheTrashAndComesBackEverywhere() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Keep me", content: "words", tags: ["x"]))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()
        try d.b.syncNow()
        #expect(try d.b.store.postCount() == 0)

        let trash = try history(d, d.b).trash()
        #expect(trash.map(\.post.title) == ["Keep me"] && trash.first?.deletedBy == d.heather.id)
        _ = try history(d, d.b).restoreDeleted(try #require(trash.first))
        try d.b.syncNow()
        try d.a.syncNow()
        let back = try d.a.store.post("p1")
        #expect(back.content == "words" && back.tags == ["x"])
        #expect(try history(d, d.a).trash().isEmpty)
        #expect(try history(d, d.a).emptyTrash() == 0)
    }

    /// A restored post is the post it was: its comments deleted with it come back (not one deleted before it), with
    /// their authors, and the post keeps its age and its history.
    @Test func aRestoredPostBringsBackItsCommentsItsAgeAndItsHistory() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Keep me", content: "words"))
        for (id, text) in [("c1", "first"), ("c2", "second")] {
            try d.a.store.add(Comment(id: id, postID: "p1", zone: d.notes.zone, scope: .private, text: text), by: d.heather.id, now: d.test.clock.now())
        }
        try d.a.syncNow()
        try edit(d, d.a, "p1") { $0.content = "more words" }
        try d.a.syncNow()
        let created = try d.a.store.post("p1").createdAt
        try d.a.store.deleteComment(try #require(try d.a.store.comments(on: try d.a.store.post("p1")).first { $0.id == "c2" }), by: d.heather.id)
        try d.a.syncNow()
        d.test.clock.advance(by: 60)
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()
        try d.b.syncNow()

        let restored = try history(d, d.b).restoreDeleted(try #require(try history(d, d.b).trash().first))
        #expect(restored.content == "more words")
        for device in [d.b, d.a] {
            try device.syncNow()
            let post = try device.store.post("p1")
            #expect(post.createdAt == created)
            let comments = try device.store.comments(on: post)
            #expect(comments.map(\.text) == ["first"] && comments.first?.createdBy == d.heather.id, "\(comments.map(\.text))")
            #expect(comments.first?.wasEdited == false, "brought back, not edited")
            #expect(try device.store.pendingCount() == 0)
        }
        let versions = try history(d, d.a).versions(of: try d.a.store.post("p1")).map(\.post.content)
        #expect(versions.contains("words") && versions.contains("more words"), "\(versions)")
        #expect(try history(d, d.a).trash().isEmpty)
    }
}

/// A diff of long texts rewritten throughout is a true diff (its kept and removed lines are the old text, its kept
/// and added lines the new one, in order) and never builds a table the size of both: 40,000 lines a side would
/// need one of 1.6 billion cells.
@Suite struct LongTextDiffTests {
    @Test func aLongRewrittenTextDiffsWholeAndTrue() {
        let old = (0..<40_000).map { $0 % 3 == 0 ? "line \($0)" : "same" }
        let new = (0..<40_000).map { $0 % 5 == 0 ? "line \($0)" : $0 % 7 == 0 ? "new \($0)" : "same" }
        let diff = DiffLine.lines(from: old.joined(separator: "\n"), to: new.joined(separator: "\n"))
        let before = diff.compactMap { line -> String? in
            switch line { case .same(let s), .removed(let s): s; case .added: nil }
        }
        let after = diff.compactMap { line -> String? in
            switch line { case .same(let s), .added(let s): s; case .removed: nil }
        }
        #expect(before == old && after == new)
        // Lines present once on each side are matched, not all removed and added again.
        #expect(diff.filter { if case .same(let s) = $0 { s.hasPrefix("line ") } else { false } }.count == 40_000 / 15 + 1)
    }

    @Test func smallTextsStillGetTheLongestMatch() {
        let diff = DiffLine.lines(from: "a\nb\nc\nd", to: "a\nc\nb\nd")
        #expect(diff.filter { if case .same = $0 { true } else { false } }.count == 3)
    }
}
