import ArgumentParser
import Cloud
import Foundation
import Notes
import Sync

/// An edit committed on device A until device B's store holds it, with both
/// devices syncing on their own (LiveSync: send shortly after a change, fetch
/// on the cloud's push). The scheduling delay (from the commit until A's sync
/// round begins: the scheduler's coalescing wait) is reported apart from the
/// processing (A's send, the push, B's fetch and apply). Then the same
/// for edits saved by another process of A, which wakes A's syncing one.
struct LiveBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "live", abstract: "Store-to-store latency with automatic sync.")

    @Option(help: "Edits measured.") var edits = 500
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws { try report(try Self.measure(edits: edits), json: json, title: "live") }

    /// What B's rounds saw, shared with the thread that waits for them.
    final class Arrivals: @unchecked Sendable {
        let condition = NSCondition()
        var latest = -1
        /// When the current edit was committed, and when A's first round after it began.
        var committed: UInt64 = 0
        var senderStarted: UInt64?
    }

    static func measure(edits: Int) throws -> [Figure] {
        let scratch = try Scratch()
        return try measure(edits: edits, scratch: scratch, a: try scratch.device("a"), b: try scratch.device("b"))
    }

    /// The same for two devices however they reach the cloud (through a server, say).
    static func measure(edits: Int, scratch: Scratch, a: NotesSync, b: NotesSync) throws -> [Figure] {
        let notes = try a.store.ensureDefaultNotebook(owner: scratch.account.id)
        var post = Scratch.posts(1, in: notes.zone)[0]
        try a.store.save(post, by: scratch.account.id, now: Date())
        try a.syncNow()
        try b.syncNow()
        let seen = Arrivals()
        let store = b.store, postID = post.id
        let liveB = LiveSync(sync: b) { update in
            // The edit number B now holds, read from its store as the front end would.
            let number = (try? store.post(postID))?.content.split(separator: " ").last.flatMap { Int($0) } ?? -1
            seen.condition.lock()
            if number > seen.latest { seen.latest = number }
            seen.condition.broadcast()
            seen.condition.unlock()
        }
        let liveA = LiveSync(sync: a) { update in
            seen.condition.lock()
            if seen.senderStarted == nil, update.started >= seen.committed { seen.senderStarted = update.started }
            seen.condition.broadcast()
            seen.condition.unlock()
        }
        liveA.start()
        liveB.start()
        defer {
            liveA.stop()
            liveB.stop()
        }
        Thread.sleep(forTimeInterval: 0.5)  // both settle their first round
        let roundsBefore = (a: liveA.counts.rounds, b: liveB.counts.rounds)
        var total = Timings(), processing = Timings(), scheduling = Timings()
        for edit in 0..<edits {
            post.content = "edit \(edit)"
            try a.store.save(post, by: scratch.account.id, now: Date())
            seen.condition.lock()
            let started = DispatchTime.now().uptimeNanoseconds
            seen.committed = started
            seen.senderStarted = nil
            seen.condition.unlock()
            liveA.changesAdded()
            seen.condition.lock()
            while seen.latest < edit {
                guard seen.condition.wait(until: Date() + 10) else {
                    seen.condition.unlock()
                    throw ValidationError("edit \(edit) did not reach device B in 10 s")
                }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            // A reports its round when the round ends, which can be after B already holds the edit: wait for
            // that report before splitting the time (taking a missing report as "no wait" put the median at 0).
            while seen.senderStarted == nil {
                guard seen.condition.wait(until: Date() + 10) else {
                    seen.condition.unlock()
                    throw ValidationError("device A did not report the round that sent edit \(edit)")
                }
            }
            let elapsed = Double(now - started) / 1e6
            let waited = Double(seen.senderStarted! - started) / 1e6
            seen.condition.unlock()
            total.samples.append(elapsed)
            scheduling.samples.append(waited)
            processing.samples.append(elapsed - waited)
        }
        Thread.sleep(forTimeInterval: 0.2)  // the last edit's pushes arrive
        let roundsA = Double(liveA.counts.rounds - roundsBefore.a) / Double(edits)
        let roundsB = Double(liveB.counts.rounds - roundsBefore.b) / Double(edits)
        // The same through another process of A (a second front end, a command): it saves to the store
        // and wakes A's syncing process through notify/changed, as they do.
        let other = try DeviceStore(directory: a.store.directory)
        var viaOther = Timings()
        for edit in edits..<(edits + max(1, edits / 5)) {
            post.content = "edit \(edit)"
            let started = DispatchTime.now().uptimeNanoseconds
            try other.save(post, by: scratch.account.id, now: Date())
            DeviceLock.wake(directory: other.directory)
            seen.condition.lock()
            while seen.latest < edit {
                guard seen.condition.wait(until: Date() + 10) else {
                    seen.condition.unlock()
                    throw ValidationError("edit \(edit) from another process did not reach device B in 10 s")
                }
            }
            seen.condition.unlock()
            viaOther.samples.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }
        return [
            Figure(name: "edit on A until B's store holds it (\(edits) edits)", median: total.median, p95: total.p95, p99: total.p99,
                   unit: "ms", target: "p95 ≤ 250"),
            Figure(name: "  of which processing (send, push, fetch)", median: processing.median, p95: processing.p95, p99: processing.p99,
                   unit: "ms", target: "—"),
            Figure(name: "  of which scheduling (wait before A's round)", median: scheduling.median, p95: scheduling.p95, p99: scheduling.p99,
                   unit: "ms", target: "—"),
            Figure(name: "sync rounds per edit on A, which sends it", value: roundsA, unit: "rounds", target: "1 (no echo)"),
            Figure(name: "sync rounds per edit on B, which fetches it", value: roundsB, unit: "rounds", target: "1"),
            Figure(name: "edit saved by another process of A until B holds it (\(viaOther.samples.count) edits)", median: viaOther.median,
                   p95: viaOther.p95, p99: viaOther.p99, unit: "ms", target: "p95 ≤ 250"),
        ]
    }
}
