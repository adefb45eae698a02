import Cloud
import Foundation
@testable import Notes
import Sync
import Testing
import TestSupport

/// One device renames a notebook (its posts move to the new name, then the old one goes) while another, not having
/// heard, writes in it offline: what it wrote follows the posts to the new name, and is told so; the old name does not
/// come back beside the new one (a tryout saw it come back, and the renaming device told it had deleted it).
@Suite struct RenameMeetsWaitingEditTests {
    /// Learnt by sending first (the cloud refuses the new post: no such notebook) or by fetching first.
    @Test(arguments: [false, true]) func whatWasWrittenInARenamedNotebookFollowsItsPosts(fetchingFirst: Bool) throws {
        let d = try TwoDevices()
        let trip = try d.a.store.createNotebook("Trip", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: trip.zone, title: "Day one", content: "Hue"))
        try d.write(d.a, Post(id: "p2", zone: trip.zone, title: "Day two", content: "Hoi An"))
        try d.a.syncNow()
        try d.b.syncNow()
        // Offline on a: a new post with a comment, an edit, and a comment on a post not edited.
        try d.write(d.a, Post(id: "p3", zone: trip.zone, title: "Packing", content: "boots"))
        try d.a.store.add(Comment(id: "c3", postID: "p3", zone: trip.zone, scope: .private, text: "and socks"), by: d.heather.id,
                          now: d.test.clock.now())
        var day = try d.a.store.post("p1")
        let base = day.fields
        day.content += "\nthe lake"
        _ = try d.a.store.saveEdit(day, from: base, by: Editor(account: d.heather, device: "a"), now: d.test.clock.now())
        try d.a.store.add(Comment(id: "c2", postID: "p2", zone: trip.zone, scope: .private, text: "rain"), by: d.heather.id,
                          now: d.test.clock.now())
        _ = try d.b.store.renameNotebook(try #require(try d.b.store.notebooks().first { $0.title == "Trip" }), to: "Journey",
                                         by: d.heather.id, now: d.test.clock.now())
        try d.b.syncNow()

        if fetchingFirst { try d.a.sync(SyncRound(fetch: [.private])) }
        for device in [d.a, d.a, d.b] { try device.syncNow() }

        for device in [d.a, d.b] {
            let posts = try device.store.posts().sorted { $0.id < $1.id }
            #expect(posts.map { "\($0.zone.name) \($0.id): \($0.content)" } == ["Journey p1: Hue\nthe lake", "Journey p2: Hoi An", "Journey p3: boots"])
            let comments = try posts.map { try device.store.comments(on: $0).map(\.text) }
            #expect(comments == [[], ["rain"], ["and socks"]])
            #expect(try device.store.notebooks().map(\.title).sorted() == ["Journey", "Notes"])
            #expect(try device.store.pendingCount() == 0)
        }
        #expect(try d.b.store.notices().isEmpty, "nothing came back to tell of")
        // Told on a, once per post brought along, naming where it went (not as a notebook brought back).
        let told = d.a.takeNews().refusals
        #expect(told.allSatisfy { $0.kind == .keptAnotherWay && $0.outcome?.contains("what was in it is in Journey now") == true }
                && Set(told.map(\.id.name)).isSuperset(of: ["p3"]), "\(told)")
    }

    /// A notebook deleted, not renamed, after one of its posts was moved away: what waited in it brings it back, and
    /// does not follow that one post (only a notebook all of whose posts went to one other is taken for renamed).
    @Test func aNotebookDeletedAfterOnePostMovedOutIsNotTakenForRenamed() throws {
        let d = try TwoDevices()
        let trip = try d.a.store.createNotebook("Trip", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: trip.zone, title: "Day one", content: "Hue"))
        try d.write(d.a, Post(id: "p2", zone: trip.zone, title: "Day two", content: "Hoi An"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.write(d.a, Post(id: "p3", zone: trip.zone, title: "Packing", content: "boots"))
        try d.b.store.move(try d.b.store.post("p1"), to: d.notes, by: d.heather.id, now: d.test.clock.now())
        try d.b.store.deleteNotebook(try #require(try d.b.store.notebooks().first { $0.title == "Trip" }))
        try d.b.syncNow()

        for device in [d.a, d.a, d.b] { try device.syncNow() }
        for device in [d.a, d.b] {
            let posts = try device.store.posts().sorted { $0.id < $1.id }
            #expect(posts.map { "\($0.zone.name) \($0.id)" } == ["Notes p1", "Trip p3"])
        }
    }
}
