import ArgumentParser
import Cloud
import Foundation
import FrontEnd
import Glibc
import Notes
import Terminal

/// The front end over a store of many posts: start to first full frame,
/// key press to frame (moving the selection, opening a post, jumping to the
/// end), and peak memory. Each frame is drawn through ncurses into
/// /dev/null, so the backend's work counts too.
struct FrontEndBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "frontend", abstract: "The front end at 100,000 posts.")

    @Option(help: "Posts in the store.") var posts = 100_000
    @Option(help: "Key presses per measured key.") var presses = 1000
    @Option(help: "Fresh starts measured.") var starts = 20
    @Option(help: "Terminal size, WIDTHxHEIGHT.") var size = "200x60"
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(help: .hidden) var makeStore: String?
    @Option(help: "A store to measure instead of a fresh one: filled with --posts posts if it is new, and kept (a million posts take minutes to write).")
    var store: String?

    func run() throws {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ValidationError("--size is WIDTHxHEIGHT") }
        if let makeStore { return try Self.fill(URL(fileURLWithPath: makeStore), posts: posts) }
        let figures = try Self.measure(posts: posts, presses: presses, starts: starts, width: parts[0], height: parts[1],
                                       store: store.map { URL(fileURLWithPath: $0) })
        try report(figures, json: json, title: "front end: \(posts) posts, \(size), \(presses) presses per key, \(starts) starts")
    }

    static func measure(posts: Int, presses: Int, starts: Int, width: Int, height: Int, store: URL? = nil) throws -> [Figure] {
        let directory = store ?? FileManager.default.temporaryDirectory.appendingPathComponent("cloudnotes-bench-\(getpid())")
        defer { if store == nil { try? FileManager.default.removeItem(at: directory) } }
        // The store is filled by a child process, so the peak memory below is the front end's alone.
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("private.sqlite").path) {
            _ = try runSelf(["frontend", "--posts", String(posts), "--make-store", directory.path])
        }

        // Posts that arrived are indexed for search before the first search reads (see `SearchIndex`): timed
        // once here, so the searches below meet the index as a running front end keeps it.
        let indexing = try Timings.once { try DeviceStore(directory: directory).catchUpSearchIndex() }
        let screen = CursesScreen(environment: ["TERM": "xterm-256color"], output: fopen("/dev/null", "w"))
        defer { screen.end() }
        screen.resize(width: width, height: height)
        var start = Timings()
        var frontEnd: FrontEnd!
        for _ in 0..<starts {
            start.time {
                frontEnd = try! Self.frontEnd(directory)
                screen.resize(width: width, height: height)
                screen.draw(frontEnd.frame(width: width, height: height))
            }
        }
        func keys(_ keys: [Key]) -> Timings {
            var timings = Timings()
            for i in 0..<presses {
                timings.time {
                    frontEnd.handle(keys[i % keys.count])
                    screen.draw(frontEnd.frame(width: width, height: height))
                }
            }
            return timings
        }
        let move = keys([.char("j")])
        var open = Timings()
        for _ in 0..<presses {
            frontEnd.handle(.char("j"))
            screen.draw(frontEnd.frame(width: width, height: height))
            open.time {  // the editor opens with the post's whole text
                frontEnd.handle(.char("e"))
                screen.draw(frontEnd.frame(width: width, height: height))
            }
            frontEnd.handle(.escape)
        }
        let jump = keys([.char("G"), .char("g")])
        let searching = typeSearches(frontEnd, screen: screen, width: width, height: height, presses: presses)
        let store = try DeviceStore(directory: directory)
        let matches = try searches.map { "\"\($0)\" \(try store.postCount(PostFilter(search: PostSearch($0))))" }.joined(separator: ", ")
        // Another account's front end over the same posts: each is new to it, so showing one writes that it was seen.
        frontEnd = try Self.frontEnd(directory, account: "_reader")
        screen.draw(frontEnd.frame(width: width, height: height))
        let unread = keys([.char("j")])
        return [
            Figure(name: "front end \(posts): first frame (open store, query, draw)", median: start.median, p95: start.p95, unit: "ms", target: posts >= 1_000_000 ? "≤ 100" : "≤ 300"),
            Figure(name: "front end \(posts): key to frame, move selection (j)", median: move.median, p95: move.p95, unit: "ms", target: "p95 ≤ 16"),
            Figure(name: "front end \(posts): key to frame, open in editor (e)", median: open.median, p95: open.p95, unit: "ms", target: "p95 ≤ 16"),
            Figure(name: "front end \(posts): key to frame, jump to end and back (G/g)", median: jump.median, p95: jump.p95, unit: "ms", target: "—"),
            Figure(name: "front end \(posts): key to filtered frame, typing a search (/ then each letter; \(matches))",
                   median: searching.median, p95: searching.p95, unit: "ms", target: posts >= 1_000_000 ? "p95 ≤ 50" : "p95 ≤ 16"),
            Figure(name: "front end \(posts): key to frame, move over posts new to you (j, each marked seen)", median: unread.median, p95: unread.p95,
                   unit: "ms", target: "p95 ≤ 16"),
            Figure(name: "front end \(posts): index every post for search (once, as they arrive: off the event loop)",
                   value: indexing, unit: "ms", target: "—"),
            Figure(name: "front end peak resident memory, \(posts) posts", value: peakResidentMiB(), unit: "MiB", target: "< 150"),
        ]
    }

    /// The searches typed, a letter at a time: words common and rare, with and without their marks, one that
    /// matches nothing; each cleared with Esc after. Returns each key's key-to-frame time.
    static let searches = ["ha noi", "tiếng việt", "bado", "milk trip", "lune", "zzzz", "dinh"]

    static func typeSearches(_ frontEnd: FrontEnd, screen: CursesScreen, width: Int, height: Int, presses: Int) -> Timings {
        var timings = Timings()
        func press(_ key: Key) {
            timings.time {
                frontEnd.handle(key)
                screen.draw(frontEnd.frame(width: width, height: height))
            }
        }
        while timings.samples.count < presses {
            for search in searches {
                press(.char("/"))
                for letter in search { press(.char(letter)) }
                press(.escape)
            }
        }
        return timings
    }

    static func frontEnd(_ directory: URL, account id: String = "_bench") throws -> FrontEnd {
        let store = try DeviceStore(directory: directory)
        let account = Account(id: id, name: "bench", email: "bench@example.com", createdAt: Date(timeIntervalSince1970: 0))
        return FrontEnd(context: FrontEndContext(
            store: store, account: account, device: "bench",
            sharing: StoreSharingProvider(store: store, account: account) { $0 }, names: { $0 }))
    }

    /// Writes `posts` posts in batches of 5,000 (one transaction each), a few shared-notebook ones among them:
    /// titles and texts of words drawn from a vocabulary of a few thousand, a few words much commoner than the
    /// rest (as in writing), some Vietnamese with their marks; the same posts for the same count.
    static func fill(_ directory: URL, posts: Int) throws {
        let store = try DeviceStore(directory: directory)
        let notes = try store.ensureDefaultNotebook(owner: "_bench")
        var random = SeededRandom(seed: 21)
        let syllables = ["ba", "do", "ki", "lu", "ne", "mo", "ra", "si", "tu", "ve", "ha", "no", "ti", "en", "vi", "et", "din", "pho", "lan", "mi"]
        var vocabulary = ["Hà Nội", "tiếng Việt", "Đà Nẵng", "phở", "milk", "trip", "meeting", "notes", "plan", "draft", "日本語", "🎉"]
        while vocabulary.count < 4000 {
            vocabulary.append((0..<Int.random(in: 2...3, using: &random)).map { _ in syllables.randomElement(using: &random)! }.joined())
        }
        func word() -> String {  // skewed: the first words of the vocabulary come up far more often
            let u = Double.random(in: 0..<1, using: &random)
            return vocabulary[Int(pow(u, 3) * Double(vocabulary.count))]
        }
        for batch in stride(from: 0, to: posts, by: 5000) {
            let chunk = (batch..<min(posts, batch + 5000)).map { i in
                Post(id: String(format: "p%07d", i), zone: notes.zone, title: "Post \(i) " + (0..<3).map { _ in word() }.joined(separator: " "),
                     content: (0..<24).map { _ in word() }.joined(separator: " ") + "\nline two")
            }
            try store.save(chunk, by: "_bench", now: Date(timeIntervalSince1970: 1_795_000_000 + Double(batch)))
        }
    }
}
