import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// Edits carry the copy the person started from: saving merges three ways
/// with whatever the device holds by then, so edits made meanwhile (fetched
/// from others, or saved by another process) are never overwritten.
@Suite struct EditFromBaseTests {
    let hour = Date(timeIntervalSince1970: 1_795_000_000)

    func editor(_ d: TwoDevices, _ device: String) -> Editor { Editor(account: d.heather, device: device) }

    @Test func anEditFromACopyFetchedOverSinceKeepsTheFetchedLine() throws {
        // The command line's repro: b fetches a's edit of line 1, then saves the text its person typed from
        // the copy b showed before (line 3 changed).
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "M", content: "L1\nL2\nL3\nL4"))
        try d.a.syncNow()
        try d.b.syncNow()
        let seenOnB = try d.b.store.post("p1")
        var onA = try d.a.store.post("p1")
        onA.content = "L1-by-a\nL2\nL3\nL4"
        _ = try d.a.store.saveEdit(onA, from: try d.a.store.post("p1").fields, by: editor(d, "a"), now: hour)
        try d.a.syncNow()
        try d.b.syncNow()  // b now holds L1-by-a

        var typed = seenOnB
        typed.content = "L1\nL2\nL3-by-b\nL4"
        let saved = try d.b.store.saveEdit(typed, from: seenOnB.fields, by: editor(d, "b"), now: hour)
        try d.b.syncNow()
        try d.a.syncNow()

        #expect(saved.mergedWith?.device == "a")
        #expect(!saved.conflicted)
        for device in [d.a, d.b] { #expect(try device.store.post("p1").content == "L1-by-a\nL2\nL3-by-b\nL4") }
    }

    @Test func anEditorOpenForAnHourMergesEverySaveMadeMeanwhile() throws {
        let d = try TwoDevices(keys: true)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Meeting", content: "A\nB\nC", location: "Hanoi"))
        let opened = try d.a.store.post("p1")  // the editor opens here and stays open
        for minute in 1...5 {  // others keep editing: appended lines, a tag, the location
            try d.a.syncNow()
            try d.b.syncNow()
            var other = try d.b.store.post("p1")
            other.content += "\nline \(minute) by b"
            if minute == 3 { other.tags = ["work"] }
            if minute == 4 { other.location = "Hue" }
            _ = try d.b.store.saveEdit(other, from: try d.b.store.post("p1").fields, by: editor(d, "b"),
                                       now: hour.addingTimeInterval(Double(minute) * 60))
            try d.b.syncNow()
        }
        try d.a.syncNow()
        var typed = opened
        typed.title = "Meeting (moved)"
        typed.content = "A\nB\nC\nmy line"
        let saved = try d.a.store.saveEdit(typed, from: opened.fields, by: editor(d, "a"), now: hour.addingTimeInterval(3600))
        try d.a.syncNow()
        try d.b.syncNow()

        #expect(!saved.conflicted)
        let expected = PostFields(title: "Meeting (moved)", content: "A\nB\nC\n" + (1...5).map { "line \($0) by b" }.joined(separator: "\n") + "\nmy line",
                                  tags: ["work"], location: "Hue")
        for device in [d.a, d.b] {
            let fields = try device.store.post("p1").fields
            #expect(fields == expected)
        }
    }

    @Test func anOverlappingEditKeepsBothAndEitherSideCanBeKept() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk\neggs"))
        try d.a.syncNow()
        try d.b.syncNow()
        let base = try d.b.store.post("p1")
        var onA = base
        onA.content = "milk\nduck eggs"
        _ = try d.a.store.saveEdit(onA, from: base.fields, by: editor(d, "a"), now: hour)
        try d.a.syncNow()
        try d.b.syncNow()
        var onB = base
        onB.content = "milk\nno eggs"
        let saved = try d.b.store.saveEdit(onB, from: base.fields, by: editor(d, "b"), now: hour.addingTimeInterval(60))
        #expect(saved.conflicted)
        try d.b.syncNow()
        try d.a.syncNow()

        let onBoth = try d.a.store.post("p1")
        #expect(onBoth.conflicted && onBoth.content.contains("duck eggs") && onBoth.content.contains("no eggs"))
        #expect(ConflictBlock.find(in: onBoth.fields).first?.sides.map(\.author.device) == ["a", "b"])
        _ = try d.a.store.resolve(onBoth, keeping: .mine, by: editor(d, "a"), now: hour.addingTimeInterval(120))
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(post.content == "milk\nduck eggs")
            #expect(!post.conflicted)
        }
    }

    @Test func anEditOfAPostDeletedMeanwhileBringsItBack() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Gone", content: "text"))
        let opened = try d.a.store.post("p1")
        try d.a.store.delete(opened)
        var typed = opened
        typed.content = "text\nmore"
        let saved = try d.a.store.saveEdit(typed, from: opened.fields, by: editor(d, "a"), now: hour)
        #expect(saved.restored)
        #expect(try d.a.store.post("p1").content == "text\nmore")
    }

    @Test func aSecondProcessSavingMeanwhileIsMergedNotOverwritten() throws {
        // The front end and `cloudnotes edit` on one device: two stores over the same files.
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "T", content: "one\ntwo\nthree"))
        let other = try DeviceStore(directory: d.a.store.directory)
        let opened = try d.a.store.post("p1")
        let seenByOther = try other.post("p1")
        var fromOther = seenByOther
        fromOther.content = "one\ntwo\nthree\nfour"
        _ = try other.saveEdit(fromOther, from: seenByOther.fields, by: editor(d, "a"), now: hour)
        var typed = opened
        typed.content = "zero\none\ntwo\nthree"
        _ = try d.a.store.saveEdit(typed, from: opened.fields, by: editor(d, "a"), now: hour)
        let merged = try d.a.store.post("p1").content
        #expect(merged == "zero\none\ntwo\nthree\nfour")
    }
}
