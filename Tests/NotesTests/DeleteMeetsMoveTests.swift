import Cloud
import Foundation
@testable import Notes
@testable import Sync
import Testing
import TestSupport

/// One device deletes a post or a comment while another, not having heard, moves the post: the deletion stands
/// where the moving device changed nothing, and its words come back where it did.
@Suite struct DeleteMeetsMoveTests {
    /// Both devices hold "moving" in Notes with the comment "book early"; returns the Travel notebook, made on a.
    func setUp(_ d: TwoDevices) throws -> Notebook {
        try d.write(d.a, Post(id: "moving", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.store.add(Comment(id: "c1", postID: "moving", zone: d.notes.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        return try d.a.store.createNotebook("Travel", owner: d.heather.id)
    }

    func syncBoth(_ d: TwoDevices) throws {
        for device in [d.a, d.b, d.a] { try device.syncNow() }
    }

    @Test func aPostDeletedElsewhereStaysDeletedWhenAStaleDeviceMovesIt() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.store.delete(try d.b.store.post("moving"))
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try syncBoth(d)

        for device in [d.a, d.b] {
            let titles = try device.store.posts().map(\.title)
            #expect(titles.isEmpty, "\(titles)")
            #expect(try device.store.pendingCount() == 0)
        }
        // Said, once (not for its comment): the post left the list, moved, and never arrived.
        let told = d.a.takeNews().refusals.compactMap(\.outcome)
        #expect(told == ["not moved: \"Trip\" was deleted elsewhere meanwhile (or its notebook was), and stays deleted"], "\(told)")
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(try cloud.trash(in: d.notes.zone, type: Post.recordType).map { $0.last.record.id.name } == ["moving"])
    }

    @Test func aCommentDeletedElsewhereStaysDeletedWhenItsPostMoves() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        let comment = try #require(try d.b.store.comments(on: try d.b.store.post("moving")).first)
        try d.b.store.deleteComment(comment, by: d.heather.id)
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"])
            #expect(try device.store.comments(on: try #require(posts.first)).isEmpty)
            #expect(try device.store.pendingCount() == 0)
        }
        #expect(d.a.takeNews().refusals.isEmpty)
    }

    /// The moving device changed the post after the version deleted elsewhere: its words come back, in the
    /// notebook it moved the post to.
    @Test func aPostChangedOnTheMovingDeviceComesBackWithItsWords() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.store.delete(try d.b.store.post("moving"))
        try d.b.syncNow()
        var moved = try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        moved.content = "tickets\nvisa"
        try d.write(d.a, moved)
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }

    /// A post moved out of a notebook deleted meanwhile on another device, which took its trash (nowhere is left to
    /// find it in): the move stands, as its person asked. The post and its comment arrive where it was moved, changed
    /// here or not, and that is said, as kept. (An older rule let an unchanged one go with its notebook: a tryout
    /// lost a post so, told it "stays deleted".)
    @Test(arguments: [false, true]) func aPostMovedOutOfANotebookDeletedMeanwhile(changed: Bool) throws {
        let d = try TwoDevices()
        let trip = try d.a.store.createNotebook("Trip", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: trip.zone, title: "Day one", content: "Hue"))
        try d.a.store.add(Comment(id: "c1", postID: "p1", zone: trip.zone, scope: .private, text: "book early"), by: d.heather.id,
                          now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.syncNow()
        try d.b.store.deleteNotebook(try d.b.store.notebook(named: "Trip"))
        try d.b.syncNow()
        var moved = try d.a.store.move(try d.a.store.post("p1"), to: d.notes, by: d.heather.id, now: d.test.clock.now())
        if changed {
            moved.content = "Hue\nHoi An"
            try d.write(d.a, moved)
        }
        for device in [d.a, d.a, d.b] { try device.syncNow() }

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map { "\($0.zone.name): \($0.content)" } == ["Notes: " + (changed ? "Hue\nHoi An" : "Hue")])
            let comments = try posts.first.map { try device.store.comments(on: $0).map(\.text) }
            #expect(comments == ["book early"])
            #expect(try device.store.pendingCount() == 0)
            #expect(!(try device.store.notebooks().contains { $0.title == "Trip" }), "the notebook stays deleted")
        }
        let told = d.a.takeNews().refusals
        #expect(Set(told.map(\.id.name)) == ["p1"] && told.allSatisfy { $0.kind == .keptAnotherWay }
                && told.allSatisfy { $0.outcome?.hasPrefix("notebook Trip was deleted elsewhere") == true }, "\(told)")
    }

    /// A move longer than one request (a post with more comments than a batch holds) goes in two: the deletions
    /// of the originals the first one moved are not sent after it (they would follow the post and delete it).
    @Test func aMoveLongerThanARequestKeepsEverything() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "big", zone: d.notes.zone, title: "Big", content: "many comments"))
        let count = RecordZoneChangeBatch.defaultMaxItems + 50
        for index in 0..<count {
            try d.a.store.add(Comment(id: String(format: "c%03d", index), postID: "big", zone: d.notes.zone, scope: .private, text: "comment \(index)"),
                              by: d.heather.id, now: d.test.clock.now())
        }
        try d.a.syncNow()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.a.store.move(try d.a.store.post("big"), to: travel, by: d.heather.id, now: d.test.clock.now())
        for device in [d.a, d.a, d.b] { try device.syncNow() }
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(try cloud.trash(in: travel.zone, type: Comment.recordType).isEmpty)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"])
            let comments = try device.store.comments(on: try #require(posts.first)).count
            let pending = try device.store.pendingCount()
            #expect(comments == count, "\(comments) of \(count); \(pending) pending")
            #expect(try device.store.pendingCount() == 0)
        }
    }

    /// A move made offline of a post another device shared meanwhile: moved, its share would end unheard, so the
    /// post stays where it was, with what was typed into it, and the person is told.
    @Test func aPostSharedMeanwhileStaysWhereItWasWithItsEdit() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        _ = try d.test.cloud.createAccount(name: "mary")
        var moved = try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        moved.content = "tickets\nvisa"
        try d.write(d.a, moved)
        let sharing = PostSharing(store: d.b.store, cloud: d.test.cloud, account: d.heather)
        _ = try sharing.share(try d.b.store.post("moving"), inviting: ["mary"], permission: .readWrite)
        try d.b.syncNow()
        for device in [d.a, d.a, d.b] { try device.syncNow() }

        #expect(d.a.takeNews().refusals.contains { $0.kind == .undoneHere && $0.outcome?.contains("was shared on another device meanwhile") == true })
        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Notes"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.comments(on: try #require(posts.first)).map(\.text) == ["book early"])
            #expect(try device.store.pendingCount() == 0)
        }
        let cloud = d.test.cloud.database(.private, as: d.heather)
        #expect(try cloud.fetchShare(RecordID(name: "share-moving", zone: d.notes.zone)).participants.count == 2, "the share stands")
    }

    /// A post changed on another device while this one moves it, its location sealed with a key this device lacks
    /// (not granted yet): moved, that location would stay sealed for the notebook the post left, and open nowhere
    /// (app seed 100048). The move is undone, what was typed into the copy since stays, and its person is told;
    /// whether the change is heard before the move goes out, or the cloud refuses the move for it. Moved again, it
    /// is refused while the location stays closed to this device.
    @Test(arguments: [false, true]) func aMoveMeetingALocationThisDeviceCannotOpenIsUndone(heardFirst: Bool) throws {
        let d = try TwoDevices(keys: true)
        let travel = try setUp(d)
        var moved = try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        moved.content = "tickets\nvisa"
        try d.write(d.a, moved)
        let cloud = d.test.cloud.database(.private, as: d.heather)
        var record = try cloud.record(RecordID(name: "moving", zone: d.notes.zone))
        let unreadable = Data((0..<60).map { UInt8($0) })
        record.setEncrypted("location", unreadable)
        _ = try cloud.save(record)
        if heardFirst { try d.a.engine(.private).fetchChanges() }
        try d.a.syncNow()

        let told = d.a.takeNews().refusals
        #expect(told.count == 1 && told.first?.outcome?.contains("its location cannot be opened here yet") == true, "\(told)")
        let back = try cloud.record(RecordID(name: "moving", zone: d.notes.zone))
        #expect(back.encrypted("location") == unreadable && back.string("content") == "tickets\nvisa")
        #expect(throws: CloudError.self) { try cloud.record(RecordID(name: "moving", zone: travel.zone)) }
        #expect(try cloud.record(RecordID(name: "c1", zone: d.notes.zone)).string("text") == "book early")
        #expect(throws: CloudError.self) { try cloud.record(RecordID(name: "c1", zone: travel.zone)) }
        let posts = try d.a.store.posts()
        #expect(posts.map(\.zone.name) == ["Notes"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
        #expect(try d.a.store.comments(on: try #require(posts.first)).map(\.text) == ["book early"])
        #expect(try d.a.store.pendingCount() == 0)
        #expect(throws: StoreError.self) { try d.a.store.move(posts[0], to: travel, by: d.heather.id, now: d.test.clock.now()) }
    }

    /// A device that heard of a post's move into Notes but not yet of its leaving Travel holds it in both. Words
    /// typed into the stale Travel copy, then a move of the Notes copy back to Travel: the words stay.
    @Test func aMoveOntoAStaleCopyOfThePostKeepsWhatWasTypedIntoIt() throws {
        let d = try TwoDevices()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.write(d.a, Post(id: "trip", zone: travel.zone, title: "Trip", content: "tickets"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("trip"), to: d.notes, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()
        // Only the Notes half of the news reaches b (its fetch of Travel failed, say).
        let cloud = d.test.cloud.database(.private, as: d.heather)
        try d.b.store.applyFetched(.private, modifications: [try cloud.record(RecordID(name: "trip", zone: d.notes.zone))], deletions: [])
        var stale = try d.b.store.post("Travel/trip")
        let base = stale.fields
        stale.content = "tickets\nvisa"
        _ = try d.b.store.saveEdit(stale, from: base, by: Editor(account: d.heather, device: "b"), now: d.test.clock.now())
        let moved = try d.b.store.move(try d.b.store.post("Notes/trip"), to: travel, by: d.heather.id, now: d.test.clock.now())
        #expect(moved.content == "tickets\nvisa")
        for device in [d.b, d.a, d.b] { try device.syncNow() }

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }
    func edit(_ device: NotesSync, _ id: String, _ d: TwoDevices, adding line: String) throws {
        var post = try device.store.post(id)
        let base = post.fields
        post.content += "\n" + line
        _ = try device.store.saveEdit(post, from: base, by: Editor(account: d.heather, device: "x"), now: d.test.clock.now())
    }

    /// Found by the app simulation (seed 97022): a post moved back where it was, offline, while another device
    /// wrote into it where it is. The move names the version it saw; the cloud refuses it, and the words written
    /// meanwhile go with the post back.
    @Test func aMoveBackWhereItWasKeepsWhatWasWrittenMeanwhile() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.syncNow()
        try d.b.store.move(try d.b.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.b.syncNow()
        try edit(d.a, "Notes/moving", d, adding: "stale")  // typed into the copy where it was; follows it
        try syncBoth(d)
        try d.a.store.move(try d.a.store.post("Travel/moving"), to: d.notes, by: d.heather.id, now: d.test.clock.now())
        try edit(d.b, "Travel/moving", d, adding: "meanwhile")
        try d.b.syncNow()
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Notes"] && posts.first?.content == "tickets\nstale\nmeanwhile",
                    "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }
    /// Found by the app simulation (seed 99013): a post moved, then moved back before the move went out, on a device
    /// that had not heard of another device's edit and move of it. The move back undoes the move here; it used to send
    /// a deletion, naming no version, of the copy the first move would have made, which took the other device's moved
    /// post with the words typed into it. Now nothing is deleted unseen: the post is where the other device moved it,
    /// with every word.
    @Test func aPostMovedBackBeforeItsMoveWentOutTakesNothingAnotherDeviceMoved() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try edit(d.a, "moving", d, adding: "visa")
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.store.move(try d.b.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.b.store.move(try d.b.store.post("Travel/moving"), to: d.notes, by: d.heather.id, now: d.test.clock.now())
        try d.b.loadPending()
        try d.b.engine(.private).sendChanges()  // before it hears of a's move
        try syncBoth(d)
        try d.b.syncNow()

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.count == 1 && posts.first?.content == "tickets\nvisa", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }
    /// A device moving a post hears of an edit of the original before its move is sent (its send failed, its fetch
    /// did not): the edit goes into the moving copy, which then names the version it now holds.
    @Test func anEditHeardWhileAMoveWaitsGoesWithThePost() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try edit(d.b, "moving", d, adding: "meanwhile")
        try d.b.syncNow()
        let cloud = d.test.cloud.database(.private, as: d.heather)
        try d.a.store.applyFetched(.private, modifications: [try cloud.record(RecordID(name: "moving", zone: d.notes.zone))], deletions: [])
        try syncBoth(d)

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets\nmeanwhile",
                    "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
    }
    /// A post moved on one device and deleted, from where it was, on another that had not heard: the deletion
    /// names the version it saw, the cloud says where the post is now, and the deleting device shows it there and
    /// says so; nothing is deleted unseen.
    @Test func aDeletionOfAPostMovedMeanwhileIsToldWhereItWent() throws {
        let d = try TwoDevices()
        let travel = try setUp(d)
        try d.b.syncNow()
        try d.a.store.move(try d.a.store.post("moving"), to: travel, by: d.heather.id, now: d.test.clock.now())
        try d.a.syncNow()
        try d.b.store.delete(try d.b.store.post("moving"))
        try syncBoth(d)
        try d.b.syncNow()

        for device in [d.a, d.b] {
            let posts = try device.store.posts()
            #expect(posts.map(\.zone.name) == ["Travel"] && posts.first?.content == "tickets", "\(posts.map { ($0.zone.name, $0.content) })")
            #expect(try device.store.pendingCount() == 0)
        }
        let told = d.b.takeNews().refusals.map(\.description)
        #expect(told.count == 1 && told.first?.contains("moved to notebook Travel") == true, "\(told)")
        #expect(d.a.takeNews().refusals.isEmpty, "its own move's original: done")
    }
}

extension DeleteMeetsMoveTests {
    /// A comment's save refused with its post's record (the post moved meanwhile, the cloud answers with where it is):
    /// nothing here merged that record, so the post's last known version stays the one this device merges from.
    /// Remembered, the next merge of the post took the words it brought for seen here, and dropped them (app seed 100936).
    @Test func aCommentRefusedWithItsPostLeavesThePostsLastKnownVersionAlone() throws {
        let d = try TwoDevices()
        let id = RecordID(name: "p1", zone: d.notes.zone)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Plan", content: "day one"))
        try d.a.syncNow()
        let known = try #require(try d.a.store.record(for: id, in: .private))
        try d.b.syncNow()
        var edited = try d.b.store.post("p1")
        let base = edited.fields
        edited.content += "\nby the lake"
        _ = try d.b.store.saveEdit(edited, from: base, by: Editor(account: d.heather, device: "b"), now: Date())
        try d.b.syncNow()
        let newer = try d.test.cloud.database(.private, as: d.heather).record(id)
        #expect(newer.changeTag != known.changeTag)

        // a moves the post, not having heard of b's edit: the original's deletion waits with the copy.
        let work = try d.a.store.createNotebook("Work", owner: d.heather.id)
        _ = try d.a.store.move(try d.a.store.post("p1"), to: work, by: d.heather.id, now: d.test.clock.now())
        var comment = Record(type: Comment.recordType, id: RecordID(name: "c1", zone: work.zone))
        comment["text"] = .string("count me in")
        _ = try d.a.store.applySent(.private, SentRecordZoneChanges(failedRecordSaves: [(comment, CloudError.serverRecordChanged(server: newer))]))
        let lastKnown = try d.a.store.knownChangeTags([id], in: .private)[id]
        #expect(lastKnown == known.changeTag, "the post's record is not this comment's news: \(lastKnown ?? "-"), \(known.changeTag ?? "-"), \(newer.changeTag ?? "-")")
        try d.a.syncNow()
        #expect(try d.a.store.post("p1").content == "day one\nby the lake" && d.a.store.post("p1").zone == work.zone)
    }
}
