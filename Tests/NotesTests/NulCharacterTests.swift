import Cloud
import Foundation
import Notes
import Testing
import TestSupport

/// A NUL (U+0000) in a post's or comment's text, written by another client or read from a file, is kept as U+FFFD:
/// a store's reader ends a text at its first NUL, and kept there it cut every word after it from each later read
/// (app seed 100043: a title eve planted with a NUL took the word a device typed at its end).
@Suite struct NulCharacterTests {
    @Test func aNULFromAnotherClientKeepsTheWordsAfterIt() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Plan", content: "tickets"))
        try d.a.syncNow()
        let cloud = d.test.cloud.database(.private, as: d.heather)
        var record = try cloud.record(RecordID(name: "p1", zone: d.notes.zone))
        record["title"] = .string("Pl\u{0}an")
        record["content"] = .string("tick\u{0}ets")
        _ = try cloud.save(record)
        try d.b.syncNow()
        let seen = try d.b.store.post("p1")
        #expect(seen.title == "Pl\u{FFFD}an" && seen.content == "tick\u{FFFD}ets", "\(seen.title.debugDescription)")
        var edited = seen
        edited.title += " [word]"
        _ = try d.b.store.saveEdit(edited, from: seen.fields, by: Editor(account: d.heather, device: "b"), now: Date())
        try d.b.syncNow()
        try d.a.syncNow()
        for device in [d.a, d.b] {
            #expect(try device.store.post("p1").title == "Pl\u{FFFD}an [word]")
            #expect(try device.store.pendingCount() == 0)
        }
    }

    @Test func aNULTypedHereKeepsTheWordsAfterIt() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Dump", content: "head\u{0}tail"))
        try d.a.store.add(Comment(id: "c1", postID: "p1", zone: d.notes.zone, scope: .private, text: "before\u{0}after"), by: d.heather.id,
                          now: Date())
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(post.content == "head\u{FFFD}tail")
            #expect(try device.store.comments(on: post).map(\.text) == ["before\u{FFFD}after"])
        }
    }
}
