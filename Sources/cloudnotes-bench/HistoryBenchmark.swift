import ArgumentParser
import Cloud
import Foundation
import FrontEnd
import Notes

/// What a long history costs: a post saved 1,000 times (the cloud told to keep every version) beside one
/// saved once, in the same cloud and run. History is read only when asked for, so an edit's send, a new
/// device's first fetch and the front end's frames must cost what they cost without it; reading the
/// history itself (the `h` view) is the one figure that grows with it.
struct HistoryBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "A post with 1,000 versions beside one with one.")

    @Option(help: "Versions of the long-lived post.") var versions = 1000
    @Option(help: "Edits timed on each post.") var edits = 100
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        let scratch = try Scratch()
        try scratch.cloud.setRetention(Retention(historyVersions: versions + edits + 10, historyDays: 90, trashDays: 30))
        let a = try scratch.device("a")
        let notes = try a.store.ensureDefaultNotebook(owner: scratch.account.id)
        let filler = Scratch.posts(998, in: notes.zone, prefix: "f")
        let long = Post(id: "long", zone: notes.zone, title: "Edited all year", content: "line")
        let fresh = Post(id: "fresh", zone: notes.zone, title: "Written once", content: "line")
        try a.store.save(filler + [long, fresh], by: scratch.account.id, now: Date())
        try a.syncNow()
        for index in 1..<versions { try edit(a, "long", index, scratch) }

        // An edit and its send, alternating between the two posts so both see the same machine.
        var sendLong = Timings(), sendFresh = Timings()
        for index in 0..<edits {
            sendLong.time { try! edit(a, "long", versions + index, scratch) }
            sendFresh.time { try! edit(a, "fresh", index, scratch) }
        }
        // A new device's first fetch of the zone: history is not fetched, so it costs what the same posts
        // cost in a cloud that never kept a version (alternating with it).
        let plain = try Scratch()
        let writer = try plain.device("a")
        let plainNotes = try writer.store.ensureDefaultNotebook(owner: plain.account.id)
        try writer.store.save((filler + [long, fresh]).map { var post = $0; post.zone = plainNotes.zone; return post },
                              by: plain.account.id, now: Date())
        try writer.syncNow()
        var firstFetch = Timings(), plainFetch = Timings()
        for round in 0..<5 {
            firstFetch.time { try! scratch.device("new\(round)").syncNow() }
            plainFetch.time { try! plain.device("new\(round)").syncNow() }
        }

        let history = PostHistory(store: a.store, cloud: scratch.cloud, account: scratch.account)
        var readLong = Timings(), readFresh = Timings()
        for _ in 0..<20 {
            readLong.time { _ = try! history.versions(of: try! a.store.post("long")) }
            readFresh.time { _ = try! history.versions(of: try! a.store.post("fresh")) }
        }
        let count = try history.versions(of: try a.store.post("long")).count
        let freshCount = try history.versions(of: try a.store.post("fresh")).count

        // The front end with the long-lived post selected (edited last, so on top): a frame, and the history view opening.
        try edit(a, "long", versions + edits, scratch)
        let frontEnd = FrontEnd(context: FrontEndContext(
            store: a.store, account: scratch.account, device: "a",
            sharing: StoreSharingProvider(store: a.store, account: scratch.account) { $0 }, names: { $0 },
            postSharing: PostSharing(store: a.store, cloud: scratch.cloud, account: scratch.account)))
        var frame = Timings(), open = Timings()
        for _ in 0..<200 {
            frame.time { frontEnd.handle(.char("g")); _ = frontEnd.frame(width: 200, height: 60) }
        }
        var shown = ""
        for _ in 0..<20 {
            open.time { frontEnd.handle(.char("h")); shown = frontEnd.frame(width: 200, height: 60).text }
            frontEnd.handle(.escape)
        }
        guard shown.contains("History of \"Edited all year\"") else { throw BenchError("the history view did not open on the long-lived post") }
        try report([
            Figure(name: "edit and send, post with \(count) versions", median: sendLong.median, p95: sendLong.p95, unit: "ms", target: "—"),
            Figure(name: "edit and send, post with \(freshCount) versions", median: sendFresh.median, p95: sendFresh.p95, unit: "ms", target: "—"),
            Figure(name: "edit and send, \(count) versions / \(freshCount)", median: sendLong.median / sendFresh.median, unit: "×", target: "≤ 1.2"),
            Figure(name: "first fetch of 1,000 posts, one with \(count) versions", median: firstFetch.median, unit: "ms", target: "—"),
            Figure(name: "first fetch of the same posts, no history kept", median: plainFetch.median, unit: "ms", target: "—"),
            Figure(name: "first fetch, with history / without", median: firstFetch.median / plainFetch.median, unit: "×", target: "≤ 1.2"),
            Figure(name: "read history, \(count) versions (h)", median: readLong.median, p95: readLong.p95, unit: "ms", target: "≤ 100"),
            Figure(name: "read history, \(freshCount) versions", median: readFresh.median, unit: "ms", target: "—"),
            Figure(name: "front end frame, post with \(count) versions selected", median: frame.median, p95: frame.p95, unit: "ms", target: "p95 ≤ 16"),
            Figure(name: "front end h opens \(count) versions", median: open.median, p95: open.p95, unit: "ms", target: "≤ 100"),
        ], json: json, title: "history: a post saved \(versions + edits) times beside one saved \(edits + 1) times")
    }

    private func edit(_ device: NotesSync, _ id: String, _ index: Int, _ scratch: Scratch) throws {
        var post = try device.store.post(id)
        let base = post.fields
        post.content = "line \(index)\nsecond line stays"
        _ = try device.store.saveEdit(post, from: base, by: Editor(account: scratch.account, device: "a"), now: Date())
        try device.syncNow()
    }
}
