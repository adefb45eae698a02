import Cloud
import Foundation
import GRDB
import Notes
import Testing
import TestSupport

/// Reading posts a screenful at a time, across both stores.
@Suite struct ListingTests {
    @Test func windowsReadFromEitherEndAgreeWithTheWholeList() throws {
        let directory = TemporaryDirectory("listing")
        let store = try DeviceStore(directory: directory.url)
        let notes = try store.ensureDefaultNotebook(owner: "_me")
        for i in 0..<120 {
            let post = Post(id: String(format: "p%03d", i), zone: notes.zone, title: "Post \(i)", content: i % 9 == 0 ? "needle" : "")
            try store.save(post, by: "_me", now: Date(timeIntervalSince1970: Double(i / 3)))  // ties broken by ID
        }
        let shared = Post(id: "s1", zone: ZoneID(name: "Notes", owner: "_heather"), scope: .shared, title: "Shared one")
        try store.save(shared, by: "_heather", now: Date(timeIntervalSince1970: 20.5))
        let all = try store.posts().map(\.id)
        let total = try store.postCount()
        #expect(total == 121 && all.count == 121)
        for offset in stride(from: 0, to: 121, by: 7) {
            let front = try store.listedPosts(offset: offset, limit: 10).map(\.post.id)
            let back = try store.listedPosts(offset: offset, limit: 10, total: total).map(\.post.id)
            #expect(front == Array(all[offset..<min(121, offset + 10)]))
            #expect(back == front)
        }
        #expect(try store.listedPosts(offset: 0, limit: 1)[0].pending)
        #expect(try store.position(of: shared) == all.firstIndex(of: "s1"))
        let book = PostFilter(notebook: notes)
        #expect(try store.postCount(book) == 120)
        #expect(try store.position(of: shared, book) == nil)
    }

    /// Posts with no modification time (as an old record may come) list last, by ID, and each is found where it stands.
    @Test func postsWithoutATimeListLastAndKeepTheirPlaces() throws {
        let directory = TemporaryDirectory("listing-null")
        let store = try DeviceStore(directory: directory.url)
        let notes = try store.ensureDefaultNotebook(owner: "_me")
        try store.save(Post(id: "d", zone: notes.zone, title: "Dated"), by: "_me", now: Date(timeIntervalSince1970: 5))
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("private.sqlite").path)
        try queue.write { db in
            for id in ["a", "b", "c"] {
                try db.execute(sql: "INSERT INTO posts(id, zone_name, zone_owner, title, content, tags) VALUES (?, ?, ?, ?, '', '[]')",
                               arguments: [id, notes.zone.name, notes.zone.owner, "Undated \(id)"])
            }
        }
        try queue.close()
        let listed = try store.listedPosts(offset: 0, limit: 10).map(\.post)
        #expect(listed.map(\.id) == ["d", "c", "b", "a"])
        for (index, post) in listed.enumerated() { #expect(try store.position(of: post) == index) }
        #expect(try store.listedPosts(offset: 4, limit: 10, total: 4).isEmpty)  // past the end: nothing
    }
}
