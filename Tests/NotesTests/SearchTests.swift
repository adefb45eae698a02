import Cloud
import Foundation
import GRDB
import Notes
import Testing
import TestSupport

/// `/` search and the list's filters: what matches, in what order, and the index kept in step with every write.
@Suite struct SearchTests {
    let directory = TemporaryDirectory("search")
    let store: DeviceStore
    let notes: Notebook

    init() throws {
        store = try DeviceStore(directory: directory.url)
        notes = try store.ensureDefaultNotebook(owner: "_me")
    }

    @discardableResult
    func save(_ id: String, _ title: String, _ content: String = "", tags: [String] = [], at second: Double, by: String = "_me",
              zone: ZoneID? = nil, scope: DatabaseScope = .private) throws -> Post {
        let post = Post(id: id, zone: zone ?? notes.zone, scope: scope, title: title, content: content, tags: tags)
        try store.save(post, by: by, now: Date(timeIntervalSince1970: 1_795_000_000 + second))
        return post
    }

    func found(_ text: String, _ filter: PostFilter = .all, people: [String: [String]] = [:]) throws -> [String] {
        var filter = filter
        filter.search = PostSearch(text) { people[$0] ?? [] }
        let count = try store.postCount(filter)
        let ids = try store.listedPosts(filter, offset: 0, limit: 1000).map(\.post.id)
        #expect(ids.count == count, "count and rows agree for \"\(text)\"")
        return ids
    }

    @Test func wordsMatchIgnoringCaseAndDiacriticsAsPrefixes() throws {
        try save("p1", "Phở in Hà Nội", "Tiếng Việt lessons", at: 1)
        try save("p2", "Đà Nẵng beach", "sun", at: 2)
        try save("p3", "Hanover trip", "HANDS on", at: 3)
        #expect(try found("ha noi") == ["p1"])
        #expect(try found("tieng viet") == ["p1"])
        #expect(try found("TIENG") == ["p1"])
        #expect(try found("da nang") == ["p2"])  // đ is not a d with a mark to Unicode: folded on both sides
        #expect(try found("đà") == ["p2"])
        #expect(try found("han") == ["p3"])  // "hands", "Hanover": starts of words, newest first
        #expect(try found("ha") == ["p3", "p1"])
        #expect(try found("noi pho") == ["p1"])  // every word, in any order
        #expect(try found("noi beach") == [])
        #expect(try found("oi") == [])  // not inside a word
        // What would be query syntax is only text.
        #expect(try found("\"ha* (") == ["p3", "p1"])
        #expect(try found("NEAR(ha noi)") == [])
    }

    /// Scripts whose vowel signs are marks (Hindi, Thai) are words whole, as the tokenizer cuts them; text typed
    /// decomposed folds as precomposed does; what would be query syntax inside a grapheme stays text.
    @Test func everyScriptIsSearchedAndNothingTypedBreaksTheQuery() throws {
        try save("p1", "हिन्दी भाषा", "ที่นี่ ok", at: 1)
        try save("p2", "Ha\u{0300} No\u{0302}\u{0323}i", at: 2)  // "Hà Nội", decomposed
        #expect(try found("हिन्दी") == ["p1"] && found("हि") == ["p1"] && found("ที่นี่") == ["p1"])
        #expect(try found("hà nội") == ["p2"])
        try save("p3", "🎉 party", tags: ["👍🏽"], at: 3)
        #expect(try found("🎉") == ["p3"] && found("👍🏽") == ["p3"] && found("party") == ["p3"])
        for hostile in ["\u{0D4E}\"", "\u{0D4E}\"abc\u{0D4E}\"", "a\u{24B6}b", "\"\"", "*", "NOT a", "a:b", "(", "^"] {
            #expect(throws: Never.self) { _ = try found(hostile) }
        }
    }

    @Test func tagsCommentsNotebooksAndPeopleAreSearched() throws {
        let trip = try store.createNotebook("Trip Sài Gòn", owner: "_me")
        try save("p1", "Plain", tags: ["groceries"], at: 1)
        let commented = try save("p2", "Other", at: 2)
        try save("p3", "Third", at: 3, zone: trip.zone)
        try save("p4", "Theirs", at: 4, by: "_heather", zone: ZoneID(name: "Notes", owner: "_heather"), scope: .shared)
        #expect(try found("grocer") == ["p1"])
        var comment = Comment(id: "c1", postID: commented.id, zone: commented.zone, scope: .private, text: "bring the umbrella")
        comment.createdBy = "_me"
        try store.add(comment, by: "_me", now: Date())
        #expect(try found("umbrella") == ["p2"])
        try store.editComment(comment, text: "bring sunscreen", by: "_me", now: Date())
        comment.text = "bring sunscreen"
        #expect(try found("umbrella") == [] && found("sunscreen") == ["p2"])
        try store.deleteComment(comment, by: "_me")
        #expect(try found("sunscreen") == [])
        #expect(try found("sai gon") == ["p3"])  // its notebook's title
        #expect(try found("heat", people: ["heat": ["_heather"]]) == ["p4"])  // by an account whose name matches
        #expect(PostSearch.matches("Heather Lê", "le") && !PostSearch.matches("Heather", "eather"))
    }

    @Test func theIndexFollowsEditsDeletesAndArrivals() throws {
        let post = try save("p1", "Draft", "first words", at: 1)
        var edited = post
        edited.content = "second thoughts"
        try store.save(edited, by: "_me", now: Date(timeIntervalSince1970: 1_795_000_100))
        #expect(try found("first") == [] && found("second") == ["p1"])
        try store.delete(edited)
        #expect(try found("second") == [])
        // Written straight into the table, as sync's apply path does (INSERT OR REPLACE): still in step.
        try save("p2", "Again", "one", at: 5)
        try save("p2", "Again", "two", at: 6)
        #expect(try found("one") == [] && found("two") == ["p2"] && found("again") == ["p2"])
    }

    /// A row written by other code than the store's (another version of the app, a repair by hand) is
    /// found too: the triggers note every write, whoever makes it.
    @Test func aRowWrittenStraightIntoTheTableIsFound() throws {
        try save("p1", "First", at: 1)
        #expect(try found("first") == ["p1"])
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("private.sqlite").path)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO posts(id, zone_name, zone_owner, title, content, tags, modified_at) VALUES ('p2', ?, ?, 'Planted by hand', '', '[]', 1795000009)
                """, arguments: [notes.zone.name, notes.zone.owner])
            try db.execute(sql: "UPDATE posts SET title = 'Renamed' WHERE id = 'p1'")
        }
        try queue.close()
        #expect(try store.searchIsBehind)
        #expect(try found("planted") == ["p2"] && found("first") == [] && found("renamed") == ["p1"])
        #expect(try !store.searchIsBehind)
    }

    /// The searched list's order, windows from either end and positions agree, across both stores and posts
    /// saved in the same millisecond.
    @Test func windowsAndPositionsAgreeInTheSearchedList() throws {
        var ids: [String] = []
        for i in 0..<90 {
            let scope: DatabaseScope = i % 5 == 0 ? .shared : .private
            let zone = scope == .shared ? ZoneID(name: "Notes", owner: "_heather") : notes.zone
            try save(String(format: "p%03d", i), "Post \(i)", i % 2 == 0 ? "needle" : "hay", at: Double(i / 10), zone: zone, scope: scope)
            if i % 2 == 0 { ids.append(String(format: "p%03d", i)) }
        }
        let filter = PostFilter(search: PostSearch("needle"))
        let total = try store.postCount(filter)
        #expect(total == 45)
        let all = try store.listedPosts(filter, offset: 0, limit: 100).map(\.post)
        #expect(Set(all.map(\.id)) == Set(ids))
        // Newest first, to the millisecond.
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.modifiedAt! >= $1.modifiedAt! })
        for offset in stride(from: 0, to: total, by: 4) {
            let front = try store.listedPosts(filter, offset: offset, limit: 6).map(\.post.id)
            let back = try store.listedPosts(filter, offset: offset, limit: 6, total: total).map(\.post.id)
            #expect(front == all[offset..<min(total, offset + 6)].map(\.id))
            #expect(back == front)
        }
        for (index, post) in all.enumerated() { #expect(try store.position(of: post, filter) == index) }
        let hay = try #require(try store.posts().first { $0.content == "hay" })
        #expect(try store.position(of: hay, filter) == nil)
    }

    @Test func filtersCombine() throws {
        let work = try store.createNotebook("Work", owner: "_me")
        try save("p1", "Plan", "milk", tags: ["home"], at: 1)
        try save("p2", "Plan", "milk", tags: ["work"], at: 2, zone: work.zone)
        try save("p3", "Plan", "milk", tags: ["home"], at: 3, by: "_heather", zone: ZoneID(name: "Notes", owner: "_heather"), scope: .shared)
        func ids(_ filter: PostFilter) throws -> [String] {
            let rows = try store.listedPosts(filter, offset: 0, limit: 100).map(\.post.id)
            #expect(try store.postCount(filter) == rows.count)
            return rows
        }
        #expect(try ids(PostFilter(tag: "home")) == ["p3", "p1"])
        #expect(try ids(PostFilter(kind: .sharedWithMe)) == ["p3"])
        #expect(try ids(PostFilter(tag: "home", kind: .sharedWithMe)) == ["p3"])
        #expect(try ids(PostFilter(owner: "_heather")) == ["p3"])
        #expect(try ids(PostFilter(notebook: work, search: PostSearch("milk"))) == ["p2"])
        #expect(try ids(PostFilter(search: PostSearch("plan"), tag: "home", owner: "_me")) == ["p1"])
        #expect(try ids(PostFilter(kind: .waiting)) == ["p3", "p2", "p1"])  // none sent yet
        #expect(try ids(PostFilter(kind: .conflicts)) == [])
        #expect(try ids(PostFilter(kind: .sharedByMe)) == [])
        #expect(try store.tags() == ["home", "work"])
    }

    /// A store from before the index (schema 10) gets one filled from the posts it holds.
    @Test func anOlderStoreIsIndexedWhenOpened() throws {
        try save("p1", "Hà Nội", at: 1)
        let file = directory.url.appendingPathComponent("private.sqlite").path
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in
            try db.execute(sql: """
                DROP TABLE post_words; DROP TABLE post_order; ALTER TABLE pending DROP COLUMN refused;
                ALTER TABLE pending DROP COLUMN refused_at; PRAGMA user_version = 10
                """)
        }
        try queue.close()
        let reopened = try DeviceStore(directory: directory.url)
        #expect(try reopened.postCount(PostFilter(search: PostSearch("ha noi"))) == 1)
    }
}
