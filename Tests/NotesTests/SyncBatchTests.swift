import Cloud
import Foundation
import GRDB
@testable import Notes
@testable import Sync
import Testing
import TestSupport

/// What the sync's batching and its savings must not change.
@Suite struct SyncBatchTests {
    @Test func aSendersOwnRecordsComingBackChangeNothingAndItsPostsKeepWhenTheyWereTyped() throws {
        let d = try TwoDevices()
        let edited = Date(timeIntervalSince1970: 1_000)  // long before the send: the cloud's stamp is later
        let posts = (0..<450).map { Post(id: String(format: "p%03d", $0), zone: d.notes.zone, title: "Post \($0)", content: "text") }
        try d.a.store.save(posts, by: d.heather.id, now: edited)
        _ = d.a.takeNews()

        try d.a.syncNow()  // sends two batches, then fetches them back

        #expect(d.a.takeNews().arrivals.isEmpty)
        #expect(try d.a.store.pendingCount() == 0)
        let cloud = try d.test.cloud.database(.private, as: d.heather).record(RecordID(name: "p449", zone: d.notes.zone))
        let local = try d.a.store.post("p449")
        #expect(local.modifiedAt == edited && local.savedAt == cloud.system?.modifiedAt && local.savedAt != edited)
        try d.b.syncNow()
        #expect(try d.b.store.post("p449").modifiedAt == edited)
        #expect(try d.b.store.postCount() == 450)
    }

    @Test func anEditMadeWhileItsEarlierVersionWasSentStillGoesOut() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        var post = try d.a.store.post("p1")
        post.content = "oat milk"
        try d.write(d.a, post)
        try d.a.syncNow()
        try d.b.syncNow()
        #expect(try d.b.store.post("p1").content == "oat milk")
    }

    /// Results of a send for posts changed meanwhile (by another process) settle nothing: those go out again,
    /// unstamped; the rest are settled and take the cloud's stamps (the UPDATE itself compares what was sent).
    @Test func aSendsResultsSettleOnlyPostsThatStillHoldWhatWasSent() throws {
        let d = try TwoDevices()
        let edited = Date(timeIntervalSince1970: 1_000)
        let posts = (0..<250).map { Post(id: String(format: "p%03d", $0), zone: d.notes.zone, title: "Post \($0)", content: "text") }
        try d.a.store.save(posts, by: d.heather.id, now: edited)
        let records = try d.a.store.records(for: posts.map(\.recordID), in: .private)
        let result = try d.test.cloud.database(.private, as: d.heather).modifyRecords(saving: posts.map { records[$0.recordID]! })
        let saved = try posts.map { try result.saveResults[$0.recordID]!.get() }
        let sentAt = try #require(saved.first?.system?.modifiedAt)
        var changed = try d.a.store.post("p120")
        changed.content = "typed while the send was under way"
        try d.write(d.a, changed)

        let (again, _, _, _) = try d.a.store.applySent(.private, SentRecordZoneChanges(savedRecords: saved))

        #expect(again == [.saveRecord(changed.recordID)])
        #expect(try d.a.store.pendingCount() == 1)
        #expect(try d.a.store.post("p120").content == "typed while the send was under way")
        #expect(try d.a.store.post("p120").savedAt != sentAt)
        #expect(try d.a.store.post("p249").savedAt == sentAt && d.a.store.post("p000").savedAt == sentAt)
    }

    @Test func theEngineStateIsSavedByTheEndOfASync() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        let saved = try #require(try d.a.store.savedState(.private))
        let state = try SyncState(saved)
        #expect(state.pendingRecordZoneChanges.isEmpty)
        #expect(!state.zoneTokens.isEmpty)
        #expect(d.a.store.stagedStates.current.isEmpty)
    }

    @Test func aWriteToThePrivateStoreDoesNotWaitForTheSharedOne() throws {
        let d = try TwoDevices()
        // Another process holds the shared store's write lock (say, a command accepting a share).
        let other = try DatabaseQueue(path: d.dir.path("a").appendingPathComponent("shared.sqlite").path)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    held.signal()
                    release.wait()
                    return .commit
                }
            }
        }
        held.wait()
        defer { release.signal() }
        let saved = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
            saved.signal()
        }
        #expect(saved.wait(timeout: .now() + 5) == .success)
        #expect(try d.a.store.pendingCount() == 1)
    }

    @Test(arguments: [[], ["home"], ["a,b", "x y", "Hà Nội", "🎉"], ["say \"hi\"", "back\\slash", "tab\there", ""]])
    func tagsSurviveTheirColumnAndReadAsJSONWould(tags: [String]) throws {
        let text = TagsColumn.text(tags)
        #expect(TagsColumn.tags(from: text) == tags)
        #expect(try JSONDecoder().decode([String].self, from: Data(text.utf8)) == tags)
    }

    @Test func tagsWrittenByJSONAreRead() throws {
        for tags in [["a", "b"], ["q\"uote"], ["\u{1}"]] {
            #expect(TagsColumn.tags(from: String(decoding: try JSONEncoder().encode(tags), as: UTF8.self)) == tags)
        }
        #expect(TagsColumn.tags(from: "[\"]") == [])  // damaged: no tags rather than a guess
    }

    /// The fast reader of plain tags must agree with JSON on everything near its format, damaged text included.
    @Test(arguments: ["[]", "[\"\"]", "[\"a\"", "[\"a\",]", "[\"a\"\"b\"]", "[,\"a\"]", "[\"a\"]x", "[ \"a\" , \"b\" ]",
                      "[\"a\",\"b\"]", "[\"a\",\"\"]", "[", "]", "", "[\"", "[\"a\"]]", "[[\"a\"]]", "[1]", "[\"a\",1]"])
    func tagsNearThePlainFormReadAsJSONWould(text: String) {
        let json = (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
        #expect(TagsColumn.tags(from: text) == json)
    }
}

/// A move is sent in one request, so the cloud sees it whole, however many changes wait before it.
@Suite struct MoveBatchTests {
    @Test func aMoveAtTheEndOfAFullBatchGoesWholeInTheNext() throws {
        let d = try TwoDevices()
        var post = Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets")
        try d.write(d.a, post)
        for (id, text) in [("c1", "note one"), ("c2", "note two")] {
            try d.a.store.add(Comment(id: id, postID: post.id, zone: d.notes.zone, scope: .private, text: text), by: d.heather.id, now: d.test.clock.now())
        }
        try d.a.syncNow()
        post = try d.a.store.post("moving")
        post.content = "tickets, visa"
        try d.write(d.a, post)
        try d.a.syncNow()
        // 398 changes wait, then the move's four (the post and its two comments saved in Travel, the post deleted from
        // Notes): a batch of 400 would end between them.
        try d.a.store.save((0..<398).map { Post(id: String(format: "w%03d", $0), zone: d.notes.zone, title: "Waiting \($0)", content: "") },
                           by: d.heather.id, now: d.test.clock.now())
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        let moved = try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()

        let history = try PostHistory(store: d.a.store, cloud: d.test.cloud, account: d.heather).versions(of: try d.a.store.post(moved.id))
        #expect(history.map(\.post.content) == ["tickets, visa", "tickets"], "\(history.map(\.post.content))")
    }

    @Test func aBatchIsCutOnlyBeforeAMoveItWouldSplit() {
        let notes = ZoneID(name: "Notes", owner: "o"), travel = ZoneID(name: "Travel", owner: "o")
        let waiting = (0..<3).map { PendingRecordZoneChange.saveRecord(RecordID(name: "w\($0)", zone: notes)) }
        let move: [PendingRecordZoneChange] = [.saveRecord(RecordID(name: "m", zone: travel)), .deleteRecord(RecordID(name: "m", zone: notes))]
        #expect(NotesSync.keepingMovesWhole(waiting + move, limit: 4) == waiting)
        #expect(NotesSync.keepingMovesWhole(waiting + move, limit: 5) == waiting + move)
        #expect(NotesSync.keepingMovesWhole(move + waiting, limit: 4) == move + Array(waiting.prefix(2)))
        #expect(NotesSync.keepingMovesWhole(move + waiting, limit: 1) == [move[0]], "a move longer than a batch goes as it comes")
    }
}

/// Both devices hold the post "moving" in Travel alone, with `content` and one comment reading `comment`, and
/// nothing waits to be sent.
func expectMoved(_ d: TwoDevices, content: String, comment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for device in [d.a, d.b] {
        let posts = try device.store.posts()
        #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == content, "\(posts.map { ($0.zone.name, $0.content) })",
                sourceLocation: sourceLocation)
        let moved = try #require(posts.first, sourceLocation: sourceLocation)
        #expect(try device.store.comments(on: moved).map(\.text) == [comment], sourceLocation: sourceLocation)
        #expect(try device.store.pendingCount() == 0, sourceLocation: sourceLocation)
    }
}

/// A device moves the copy it has while another device's edit of it waits in the cloud: the move goes from the
/// edited version, merged, and nothing is left behind.
@Suite struct StaleMoveTests {
    @Test func aPostMovedFromAStaleCopyKeepsTheOtherDevicesEdit() throws {
        let d = try TwoDevices()
        var post = Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets")
        try d.write(d.a, post)
        try d.a.store.add(Comment(id: "c1", postID: post.id, zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        post = try d.b.store.post("moving")
        post.content = "tickets\nvisa"
        try d.write(d.b, post)
        let comment = try #require(try d.b.store.comments(on: post).first)
        try d.b.store.editComment(comment, text: "book early, by Friday", by: d.heather.id, now: d.test.clock.now())
        try d.b.syncNow()

        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        var stale = try d.a.store.post("moving")
        #expect(stale.content == "tickets")
        stale = try d.a.store.move(stale, to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()

        try expectMoved(d, content: "tickets\nvisa", comment: "book early, by Friday")
        #expect(d.a.takeNews().refusals.isEmpty)
    }
}

/// A device edits the copy it has while another device moves the post: the edit follows the post to its notebook.
@Suite struct EditMeetsMoveTests {
    @Test func anEditorOpenWhileThePostMovesSavesItWhereItIsNow() throws {
        let d = try TwoDevices()
        let opened = Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets")
        try d.write(d.a, opened)
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        var typed = opened  // the editor's copy, from before the move
        typed.content = "tickets\nvisa"
        let saved = try d.a.store.saveEdit(typed, from: opened.fields, by: Editor(account: d.heather, device: "laptop"), now: d.test.clock.now())

        #expect(saved.post.zone == travel.zone && !saved.restored)
        let posts = try d.a.store.posts()
        #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
    }

    /// A comment typed on one device while another moves the post, sent before the move or after it: it ends up
    /// on the moved post, on both devices, never deleted with the post's old copy nor left below it.
    @Test(arguments: [true, false]) func aCommentTypedWhileThePostMovesGoesWithIt(commentSentFirst: Bool) throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.syncNow()
        try d.b.syncNow()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.b.store.add(Comment(id: "c1", postID: "moving", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        if commentSentFirst {
            try d.b.syncNow()
            try d.a.syncNow()  // its move had not heard of the comment
        } else {
            try d.a.syncNow()
            try d.b.syncNow()  // its comment had not heard of the move
        }
        try d.b.syncNow()
        try d.a.syncNow()
        try expectMoved(d, content: "tickets", comment: "book early")
    }

    @Test func anEditOfAPostMovedMeanwhileFollowsItThere() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.store.add(Comment(id: "c1", postID: "moving", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()

        var stale = try d.b.store.post("moving")
        #expect(stale.zone == d.notes.zone)
        stale.content = "tickets\nvisa"
        try d.write(d.b, stale)
        let comment = try #require(try d.b.store.comments(on: stale).first)
        try d.b.store.editComment(comment, text: "book early, by Friday", by: d.heather.id, now: d.test.clock.now())
        try d.b.syncNow()
        try d.a.syncNow()

        try expectMoved(d, content: "tickets\nvisa", comment: "book early, by Friday")
        let inCloud = try d.test.cloud.database(.private, as: d.heather).trash(in: d.notes.zone, type: Post.recordType)
        #expect(inCloud.isEmpty, "nothing brought back where it was")
    }
}

/// Fields another client wrote with other types (an INT64 title, a list for text, one string for tags) show what
/// they hold, never a blank, and stay as they are until someone changes them.
@Suite struct OtherTypedFieldTests {
    @Test func aWrongTypedFieldShowsWhatItHoldsAndAnEditElsewhereKeepsIt() throws {
        let d = try TwoDevices()
        let db = d.test.cloud.database(.private, as: d.heather)
        var odd = Record(type: Post.recordType, id: RecordID(name: "odd", zone: d.notes.zone))
        odd["title"] = .int(42)
        odd["content"] = .list([.string("milk"), .int(3)])
        odd["tags"] = .string("solo")
        _ = try db.save(odd)
        try d.a.syncNow()
        var post = try d.a.store.post("odd")
        #expect(post.title == "42" && post.content == "milk\n3" && post.tags == ["solo"], "\(post)")

        post.content += "\neggs"
        try d.write(d.a, post)
        try d.a.syncNow()
        let saved = try db.record(RecordID(name: "odd", zone: d.notes.zone))
        #expect(saved["title"] == .int(42) && saved["tags"] == .string("solo"), "what nobody changed stays as it was")
        #expect(saved["content"] == .string("milk\n3\neggs"))
        try d.b.syncNow()
        #expect(try d.b.store.post("odd").title == "42")
    }
}

/// One post moved on two devices at once, into two notebooks: the move that reaches the cloud second is told
/// where the first took the post, and follows it there with what its device changed: one post, never two copies.
@Suite struct TwoMovesAtOnceTests {
    @Test func aPostMovedOnTwoDevicesAtOnceStaysOnePost() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "plan", zone: d.notes.zone, title: "Plan", content: "dates"))
        try d.a.store.add(Comment(id: "c1", postID: "plan", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        let work = try d.b.store.createNotebook("Work", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("plan"), to: travel, by: d.heather.id, now: d.test.clock.now())
        var moved = try d.b.store.move(try d.b.store.post("plan"), to: work, by: d.heather.id, now: d.test.clock.now())
        moved.content = "dates\nvisa"
        try d.write(d.b, moved)
        for device in [d.a, d.b, d.a] { try device.syncNow() }

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "dates\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.comments(on: try #require(posts.first)).map(\.text) == ["book early"])
            #expect(try device.store.pendingCount() == 0)
        }
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(try cloud.zoneChanges(in: work.zone, since: nil).modified.isEmpty, "no second copy")
    }

    /// Two records of one name in two notebooks (another client saved one): named by its ID, the post is never
    /// guessed at, since an edit could land in a shared copy.
    @Test func aPostInTwoNotebooksIsNamedByNotebookAndIDNeverGuessed() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "plan", zone: d.notes.zone, title: "Plan", content: "dates"))
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("plan"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()
        let cloud = d.test.cloud.database(.private, as: d.heather)
        let work = try cloud.save(zone: ZoneID(name: "Work"))
        _ = try cloud.save(Record.make("plan", in: work, ["title": "Plan", "content": "dates"]))
        try d.a.syncNow()

        let copies = try d.a.store.posts().filter { $0.id == "plan" }
        try #require(copies.count == 2, "\(copies.map(\.zone.name))")
        #expect(throws: StoreError.samePostTwice("plan", ["Travel/plan (heather's)", "Work/plan (heather's)"])) { try d.a.store.post("plan") }
        #expect(try d.a.store.post("Work/plan").zone.name == "Work")
        #expect(try d.a.store.post("work/plan").zone.name == "Work", "a notebook in any case, as elsewhere")
        // By its title or an ID prefix, the advice is the same: the ID alone cannot tell the copies apart.
        for reference in ["Plan", "pla"] {
            #expect(throws: StoreError.samePostTwice("plan", ["Travel/plan (heather's)", "Work/plan (heather's)"])) { try d.a.store.post(reference) }
        }
        #expect(try d.a.store.post("Travel/plan").zone.name == "Travel")
    }
}

/// A notebook renamed on one device while another edits a post in it: the edit follows the post into the renamed
/// notebook, and the old one does not come back.
@Suite struct RenameMeetsEditTests {
    @Test(arguments: [true, false]) func anEditOfAPostInANotebookRenamedMeanwhileFollowsIt(editSentFirst: Bool) throws {
        let d = try TwoDevices()
        let work = try d.a.store.createNotebook("Work", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: work.zone, title: "P1", content: "alpha"))
        try d.a.syncNow()
        try d.b.syncNow()
        var edited = try d.b.store.post("p1")
        let base = edited.fields
        edited.content = "alpha\nedited on b"
        _ = try d.b.store.saveEdit(edited, from: base, by: Editor(account: d.heather, device: "b"), now: d.test.clock.now())
        _ = try d.a.store.renameNotebook(work, to: "Job", by: d.heather.id, now: d.test.clock.now())
        for device in editSentFirst ? [d.b, d.a, d.b, d.a] : [d.a, d.b, d.a, d.b] { try device.syncNow() }

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Job"] && posts.first?.content == "alpha\nedited on b", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.notebooks().map(\.title).sorted() == ["Job", "Notes"])
        }
    }
}
