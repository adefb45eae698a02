import Cloud
import Foundation
import Testing
import TestSupport

/// The cloud keeps each record's earlier versions, bounded by its retention, for whoever can read the record,
/// and deleted records for the trash's time.
@Suite struct HistoryTests {
    /// Saves new text over `record` `times` times, a minute apart; returns the last saved.
    func edit(_ f: SharingFixture, _ record: Record, times: Int, as db: CloudDatabase? = nil) throws -> Record {
        var current = record
        for index in 1...times {
            f.test.clock.advance(by: 60)
            current["title"] = .string("edit \(index)")
            current = try (db ?? f.owner).save(current)
        }
        return current
    }

    @Test func everySaveKeepsTheVersionItReplacedNewestFirst() throws {
        let f = try SharingFixture()
        _ = try edit(f, f.otherPost, times: 4)
        let history = try f.owner.history(of: f.otherPost.id)
        #expect(history.map(\.number) == [5, 4, 3, 2, 1])
        #expect(history.map { $0.record.string("title") } == ["edit 4", "edit 3", "edit 2", "edit 1", "private thoughts"])
        #expect(history.allSatisfy { $0.record.system?.modifiedBy == f.jermaine.id })
        #expect(history[0].record == (try f.owner.record(f.otherPost.id)))
        // A record saved once has one version, its current: creating keeps nothing more (a first sync costs no more).
        #expect(try f.owner.history(of: f.comment.id).map(\.number) == [1])
    }

    @Test func historyIsBoundedByCountAndByAge() throws {
        let f = try SharingFixture()
        try f.cloud.setRetention(Retention(historyVersions: 3, historyDays: 1, trashDays: 30))
        _ = try edit(f, f.otherPost, times: 5)
        #expect(try f.owner.history(of: f.otherPost.id).map(\.number) == [6, 5, 4])

        f.test.clock.advance(by: 2 * 86_400)  // everything earlier is now past a day
        let latest = try edit(f, try f.owner.record(f.otherPost.id), times: 1)
        let history = try f.owner.history(of: latest.id)
        #expect(history.map(\.number) == [7, 6])  // the version just replaced stays, however old: it was current until now
        #expect(throws: CloudError.self) { try f.cloud.setRetention(Retention(historyVersions: 0, historyDays: 1, trashDays: 1)) }
    }

    @Test func whoeverReadsARecordReadsItsHistoryAndNobodyElse() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let post = try f.shared(f.heather).record(f.id("p1"))
        _ = try edit(f, post, times: 2, as: f.shared(f.heather))

        let hers = try f.shared(f.heather).history(of: f.id("p1"))
        let owners = try f.owner.history(of: f.post.id)
        // Her two saves and the version she found when she joined; what it replaced before she joined is not hers.
        #expect(owners.count == 4 && hers == Array(owners.prefix(3)))
        #expect(hers.first?.record.system?.modifiedBy == f.heather.id)
        #expect(throws: CloudError.self) { try f.shared(f.heather).history(of: f.id("p2")) }  // not shared with her
        #expect(throws: CloudError.self) { try f.shared(f.mary).history(of: f.id("p1")) }  // not a participant
        #expect(throws: CloudError.self) { try f.cloud.database(.private, as: f.mary).history(of: RecordID(name: "p1", zone: ZoneID(name: "Notes"))) }
    }

    @Test func aDeletedRecordStaysInTheTrashForItsTimeForEveryReader() throws {
        let f = try SharingFixture()
        try f.cloud.setRetention(Retention(historyVersions: 100, historyDays: 90, trashDays: 2))
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let edited = try edit(f, f.otherPost, times: 1)
        try f.shared(f.heather).delete(f.id("p2"))

        for db in [f.owner, f.shared(f.heather)] {
            let trash = try db.trash(in: f.notes, type: "Post")
            #expect(trash.map(\.last.record.id.name) == ["p2"])
            #expect(trash.first?.last.record.string("title") == edited.string("title") && trash.first?.deletedBy == f.heather.id)
        }
        #expect(try f.owner.trash(in: f.notes, type: "Comment").isEmpty)

        f.test.clock.advance(by: 3 * 86_400)
        #expect(try f.owner.trash(in: f.notes, type: "Post").isEmpty)
    }

    @Test func onlyTheOwnerEmptiesTheTrash() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        try f.owner.delete(f.otherPost.id)
        #expect(throws: CloudError.self) { try f.shared(f.heather).emptyTrash(in: f.notes) }
        #expect(try f.shared(f.heather).trash(in: f.notes, type: "Post").count == 1)
        #expect(try f.owner.emptyTrash(in: f.notes) == 1)
        #expect(try f.owner.trash(in: f.notes, type: "Post").isEmpty)
        #expect(try f.owner.history(of: f.otherPost.id).isEmpty)
    }
}

/// Restoring from the trash brings a record back whole (its age, author and history), for whoever may save it there,
/// and only what that reader's trash shows.
@Suite struct RestoreDeletedTests {
    @Test func aRestoredRecordKeepsItsAgeAuthorAndHistoryAndItsCommentComesBackAfterIt() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let before = try f.owner.record(f.post.id)
        var comment = Record.make("c2", in: f.notes, type: "Comment", ["text": "nice"])
        comment.setParent("p1")
        comment["post"] = .reference(Reference(recordName: "p1", action: .deleteSelf))  // as the app's: it goes with its post
        comment = try f.owner.save(comment)
        try f.shared(f.heather).delete(f.post.id)
        #expect(throws: CloudError.unknownItem(RecordID(name: "p1", zone: f.notes))) { try f.owner.restoreDeleted(["c2"], in: f.notes) }

        let back = try f.shared(f.heather).restoreDeleted([f.post.id.name, "c2"], in: f.notes)
        #expect(back.map(\.id.name) == [f.post.id.name, "c2"])
        let post = try f.owner.record(f.post.id)
        #expect(post.string("title") == before.string("title") && post.system?.createdAt == before.system?.createdAt)
        #expect(post.system?.createdBy == before.system?.createdBy && post.system?.modifiedBy == before.system?.modifiedBy)
        #expect(post.system?.modifiedAt == before.system?.modifiedAt, "not changed by whoever restored it")
        #expect(try f.owner.record(comment.id).string("text") == "nice" && f.owner.record(comment.id).system?.createdBy == f.owner.caller.id)
        #expect(try f.owner.history(of: f.post.id).count == 2, "the version deleted, and the one restored")
        #expect(try f.owner.trash(in: f.notes, type: "Post").isEmpty)
        #expect(throws: CloudError.unknownItem(f.post.id)) { try f.owner.restoreDeleted([f.post.id.name], in: f.notes) }  // live
    }

    /// Heather, read-write, writes the owner's post over with a parent that never was, then deletes it: the post comes
    /// back at the top of the zone (kept below a parent nobody can restore, it could never come back).
    @Test func aRecordWrittenBelowAParentThatNeverWasComesBackAtTheTop() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        var planted = try f.shared(f.heather).record(f.otherPost.id)
        planted.setParent("pghost")
        _ = try f.shared(f.heather).save(planted)
        try f.shared(f.heather).delete(f.otherPost.id)

        let back = try f.owner.restoreDeleted([f.otherPost.id.name], in: f.notes)
        #expect(back.map(\.parent) == [nil] && back.first?.string("title") == "private thoughts")
        #expect(try f.owner.record(f.otherPost.id).parent == nil)
    }

    @Test func onlyWhoeverMaySaveThereRestoresAndOnlyWhatTheirTrashShows() throws {
        let f = try SharingFixture()
        try f.owner.delete(f.otherPost.id)  // before she joined
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readOnly)]).url!, as: f.heather)
        #expect(throws: CloudError.unknownItem(f.otherPost.id)) { try f.shared(f.heather).restoreDeleted([f.otherPost.id.name], in: f.notes) }
        try f.owner.delete(f.post.id)
        #expect(throws: CloudError.self) { try f.shared(f.heather).restoreDeleted([f.post.id.name], in: f.notes) }
        #expect(throws: CloudError.self) { try f.owner.record(f.post.id) }
        #expect(try f.owner.restoreDeleted([f.post.id.name, f.otherPost.id.name], in: f.notes).count == 2)
    }
}

/// A participant whose part in a share ended is told how, and by whom; nobody else learns anything.
@Suite struct EndedShareTests {
    @Test func removedEndedAndLeftAreToldApart() throws {
        let f = try SharingFixture()
        let post = try f.sharePost(inviting: [(f.heather, .readWrite), (f.mary, .readWrite)])
        try f.cloud.acceptShare(post.url!, as: f.heather)
        try f.cloud.acceptShare(post.url!, as: f.mary)
        #expect(try f.shared(f.heather).endedShares(in: f.notes).isEmpty)

        _ = try f.owner.removeParticipant(f.heather.id, from: post.share.id)
        try f.shared(f.mary).deleteShare(post.share.id)
        let heathers = try f.shared(f.heather).endedShares(in: f.notes)
        #expect(heathers.map(\.reason) == [.removed] && heathers.first?.by == f.jermaine.id)
        #expect(try f.shared(f.mary).endedShares(in: f.notes).map(\.reason) == [.left])

        let trip = try f.owner.save(zone: ZoneID(name: "Trip"))
        var whole = Share(zoneWide: trip, title: "Trip", type: "Notebook")
        whole.addParticipant(try f.owner.lookUpParticipant(accountName: "heather"), permission: .readOnly)
        let notebook = try f.owner.saveShare(whole)
        try f.cloud.acceptShare(notebook.url!, as: f.heather)
        try f.owner.deleteShare(notebook.share.id)
        let after = try f.shared(f.heather).endedShares(in: trip)
        #expect(after.map(\.reason) == [.ended] && after.first?.by == f.jermaine.id)
        // Deleting the notebook a new share was of: told as a deletion.
        let again = try f.owner.saveShare(Share(zoneWide: trip, title: "Trip", type: "Notebook"))
        _ = try f.owner.addParticipant(try f.owner.lookUpParticipant(accountName: "heather"), permission: .readOnly, to: again.share.id)
        try f.cloud.acceptShare(again.url!, as: f.heather)
        try f.owner.delete(zone: trip)
        #expect(try f.shared(f.heather).endedShares(in: trip).map(\.reason) == [.ended, .deleted])
        // Jermaine's own view of his zone and a stranger's tell nothing.
        let stranger = try f.cloud.createAccount(name: "zoe")
        #expect(try f.cloud.database(.shared, as: stranger).endedShares(in: f.notes).isEmpty)
    }
}

/// Invitations wait in the invited account's inbox, to accept or decline without a URL; nobody else sees or takes them.
@Suite struct InboxTests {
    @Test func anInvitationIsListedAcceptedOrDeclinedOnlyByItsInvitee() throws {
        let f = try SharingFixture()
        _ = try f.sharePost(inviting: [(f.heather, .readWrite)])
        let inbox = try f.cloud.invitations(for: f.heather)
        #expect(inbox.map(\.metadata.title) == ["Sharing demo is great"] && inbox.first?.metadata.ownerName == "jermaine")
        #expect(try f.cloud.invitations(for: f.mary).isEmpty)
        let id = try #require(inbox.first?.id)
        #expect(throws: CloudError.self) { try f.cloud.acceptInvitation(id, as: f.mary) }
        #expect(throws: CloudError.self) { try f.cloud.acceptInvitation("inv-999", as: f.heather) }

        try f.cloud.acceptInvitation(id, as: f.heather)
        #expect(try f.visible(to: f.heather).contains("p1"))
        #expect(try f.cloud.invitations(for: f.heather).isEmpty)
        #expect(throws: CloudError.self) { try f.cloud.acceptInvitation(id, as: f.heather) }  // answered

        let trip = try f.owner.save(zone: ZoneID(name: "Trip"))
        var whole = Share(zoneWide: trip, title: "Trip", type: "Notebook")
        whole.addParticipant(try f.owner.lookUpParticipant(accountName: "mary"), permission: .readOnly)
        let saved = try f.owner.saveShare(whole)
        let marys = try #require(try f.cloud.invitations(for: f.mary).first)
        try f.cloud.declineInvitation(marys.id, as: f.mary)
        #expect(try f.cloud.invitations(for: f.mary).isEmpty)
        #expect(try f.owner.fetchShare(saved.share.id).participant(f.mary.id)?.status == .removed)
        #expect(throws: CloudError.self) { try f.shared(f.mary).zoneChanges(in: trip, since: nil) }
    }
}

/// A participant reads the history and trash of what they were shared from when they joined, not before.
@Suite struct HistoryBeforeJoiningTests {
    @Test func versionsAndDeletionsFromBeforeJoiningAreNotShown() throws {
        let f = try SharingFixture()
        var post = try f.owner.record(f.post.id)
        post["title"] = .string("password: hunter2")
        post = try f.owner.save(post)
        post["title"] = .string("Sharing demo is great")
        post = try f.owner.save(post)
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        var hers = try f.shared(f.heather).record(f.id("p1"))
        hers["title"] = .string("after she joined")
        _ = try f.shared(f.heather).save(hers)

        let owners = try f.owner.history(of: f.post.id).map { $0.record.string("title") }
        #expect(owners.contains("password: hunter2"))
        let seen = try f.shared(f.heather).history(of: f.id("p1")).map { $0.record.string("title") }
        #expect(!seen.contains("password: hunter2") && seen.first == "after she joined", "\(seen)")

        // A notebook shared as a whole: what was deleted before she joined is not in her trash; what is deleted after is.
        let trip = try f.owner.save(zone: ZoneID(name: "Trip"))
        _ = try f.owner.save(.make("old", in: trip, ["title": "deleted before"]))
        _ = try f.owner.save(.make("new", in: trip, ["title": "deleted after"]))
        try f.owner.delete(RecordID(name: "old", zone: trip))
        var whole = Share(zoneWide: trip, title: "Trip", type: "Notebook")
        whole.addParticipant(try f.owner.lookUpParticipant(accountName: "heather"), permission: .readOnly)
        try f.cloud.acceptShare(try f.owner.saveShare(whole).url!, as: f.heather)
        try f.owner.delete(RecordID(name: "new", zone: trip))
        #expect(try f.shared(f.heather).trash(in: trip, type: "Post").map { $0.last.record.string("title") } == ["deleted after"])
        #expect(try f.owner.trash(in: trip, type: "Post").count == 2)
    }
}

/// History shows a participant only versions from while they could read the record, whatever the owner did before:
/// a private record moved under a shared post, or a deleted private record's name used again for a shared one.
@Suite struct HistoryVisibilityTests {
    @Test func aPrivateRecordMovedUnderASharedPostShowsNoVersionFromBefore() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        var secret = try f.owner.save(.make("secret", in: f.notes, type: "Comment", ["text": "password: hunter2"]))
        secret["text"] = .string("nothing to see")
        secret = try f.owner.save(secret)
        secret.setParent("p1")  // into the share
        secret = try f.owner.save(secret)

        let hers = try f.shared(f.heather).history(of: f.id("secret"))
        #expect(hers.count == 1 && hers.allSatisfy { $0.record.string("text") == "nothing to see" }, "\(hers.map { $0.record.string("text") ?? "" })")
        #expect(try f.owner.history(of: f.id("secret")).count == 3)  // the owner's own, all of them
    }

    @Test func aNameUsedAgainShowsNoneOfTheDeletedRecordsVersions() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        var old = try f.owner.save(.make("note", in: f.notes, type: "Comment", ["text": "password: hunter2"]))
        old["text"] = .string("password: hunter3")
        _ = try f.owner.save(old)
        try f.owner.delete(f.id("note"))
        f.test.clock.advance(by: 1)
        var again = Record.make("note", in: f.notes, type: "Comment", ["text": "agenda"])
        again.setParent("p1")
        _ = try f.owner.save(again)

        for db in [f.owner, f.shared(f.heather)] {
            let texts = try db.history(of: f.id("note")).map { $0.record.string("text") ?? "" }
            #expect(texts == ["agenda"], "\(texts)")
        }
    }
}

/// A record its owner saves into one zone and deletes from another in one request was moved (a post to another
/// notebook): it keeps its history and its age, leaves nothing in the first zone's trash, and the new zone's
/// participants see none of the versions it brought.
@Suite struct MovedRecordTests {
    @Test func aRecordMovedInOneRequestKeepsItsVersionsAndItsAgeAndLeavesNoTrash() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        var tripsShare = Share(zoneWide: trips, title: "Trips", type: "Notebook")
        tripsShare.addParticipant(try f.owner.lookUpParticipant(accountName: f.mary.name), permission: .readOnly)
        try f.cloud.acceptShare(try f.owner.saveShare(tripsShare).url!, as: f.mary)
        let edited = try HistoryTests().edit(f, f.otherPost, times: 2)
        f.test.clock.advance(by: 60)

        var copy = Record.make("p2", in: trips, ["title": "edit 2"])
        copy.restoreSystemFields(edited.system)  // the version it moves
        copy.movedFrom = f.otherPost.id
        let result = try f.owner.modifyRecords(saving: [copy], deleting: [f.otherPost.id])
        let moved = try #require(try result.saveResults[RecordID(name: "p2", zone: trips)]?.get())
        #expect(moved.system?.createdAt == f.otherPost.system?.createdAt && moved.system?.createdBy == f.jermaine.id)
        #expect(try f.owner.record(moved.id).system?.createdAt == f.otherPost.system?.createdAt)
        let titles = try f.owner.history(of: moved.id).map { $0.record.string("title") ?? "" }
        #expect(titles == ["edit 2", edited.string("title"), "edit 1", "private thoughts"], "\(titles)")
        for db in [f.owner, f.shared(f.heather)] {
            #expect(try db.trash(in: f.notes, type: "Post").isEmpty, "a moved post is not deleted")
        }
        // Mary reads Trips: the post from when it came, not what it was in Notes.
        let hers = try f.shared(f.mary).history(of: RecordID(name: "p2", zone: ZoneID(name: "Trips", owner: f.jermaine.id)))
        #expect(hers.map(\.number) == [4], "\(hers.map(\.number))")
    }

    /// A move sent by a device that had not heard of a comment added since (heather's, in a notebook shared with
    /// her) takes the comment with it, hers still: the deletion of the original takes nothing acknowledged. A
    /// comment added afterwards below the old copy is told where the post is now, so it follows.
    @Test func aMoveTakesWhatHangsBelowItsOriginalAndTellsLaterChildrenWhereItWent() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        let seen = f.post  // what the moving device last fetched: p1, and its comment c1
        f.test.clock.advance(by: 60)
        var hers = Record.make("c2", in: f.notes, type: "Comment", ["text": "count me in"])
        hers.setParent("p1")
        _ = try f.shared(f.heather).save(hers)
        // As the app writes one: also deleted with its post (a delete-self reference).
        var deleteSelf = Record.make("c4", in: f.notes, type: "Comment", ["text": "me too"])
        deleteSelf["post"] = .reference(Reference(recordName: "p1", action: .deleteSelf))
        deleteSelf.setParent("p1")
        _ = try f.shared(f.heather).save(deleteSelf)

        let copy = try Self.moveThePost(f, as: seen, to: trips)

        for (name, text) in [("c2", "count me in"), ("c4", "me too")] {
            let carried = try f.owner.record(RecordID(name: name, zone: trips))
            #expect(carried.string("text") == text && carried.parent == "p1")
            #expect(carried.system?.createdBy == f.heather.id && carried.system?.modifiedBy == f.heather.id, "still hers")
        }
        #expect(try f.owner.zoneChanges(in: f.notes, since: nil).modified.filter { $0.type == "Comment" }.isEmpty)
        #expect(try f.owner.trash(in: f.notes, type: "Comment").isEmpty, "moved, not deleted")

        // A comment typed below the old copy afterwards (on a device that had not heard): told where the post is.
        var late = Record.make("c3", in: f.notes, type: "Comment", ["text": "late"])
        late.setParent("p1")
        let moved = try f.owner.record(copy.id)
        #expect(throws: CloudError.serverRecordChanged(server: moved)) { try f.owner.save(late) }
    }

    /// The owner's device moves p1 (as it last fetched it, `seen`) and its comment c1 into `trips`, as the app sends a
    /// move: copies naming their originals' versions, the originals' deletions beside them. Returns the post's copy.
    private static func moveThePost(_ f: SharingFixture, as seen: Record, to trips: ZoneID) throws -> Record {
        var copy = Record.make("p1", in: trips, ["title": "Sharing demo is great"])
        copy.restoreSystemFields(seen.system)
        copy.movedFrom = seen.id
        var comment = Record.make("c1", in: trips, type: "Comment", ["text": "nice"])
        comment.setParent("p1")
        comment.restoreSystemFields(f.comment.system)
        comment.movedFrom = f.comment.id
        let result = try f.owner.modifyRecords(saving: [copy, comment], deleting: [seen.id, f.comment.id])
        #expect(throws: Never.self) { try result.saveResults[copy.id]!.get() }
        return copy
    }

    /// A record with encrypted fields below a moving original (a post heather planted below p1, its location sealed
    /// for Notes) stays where it is, with what hangs below it: sealed for its place under a key the cloud never
    /// holds, a copy in Trips would never open. The move's deletion of the original spares them.
    @Test func aMoveLeavesASealedRecordBelowItsOriginalWhereItIs() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        let seen = f.post
        var planted = Record.make("p9", in: f.notes, ["title": "below p1"])
        planted.setParent("p1")
        planted.setEncrypted("location", Data("sealed for Notes".utf8))
        _ = try f.shared(f.heather).save(planted)
        var below = Record.make("c9", in: f.notes, type: "Comment", ["text": "on p9"])
        below.setParent("p9")
        _ = try f.shared(f.heather).save(below)
        var plain = Record.make("c2", in: f.notes, type: "Comment", ["text": "count me in"])
        plain.setParent("p1")
        _ = try f.shared(f.heather).save(plain)

        let copy = try Self.moveThePost(f, as: seen, to: trips)

        let stayed = try f.owner.record(planted.id)
        #expect(stayed.encrypted("location") == Data("sealed for Notes".utf8) && stayed.parent == "p1")
        #expect(try f.owner.record(below.id).string("text") == "on p9", "what hangs below it stays with it")
        for name in ["p9", "c9"] {
            #expect(throws: CloudError.unknownItem(RecordID(name: name, zone: trips))) { try f.owner.record(RecordID(name: name, zone: trips)) }
        }
        #expect(try f.owner.record(RecordID(name: "c2", zone: trips)).string("text") == "count me in", "a plain comment is carried")
    }

    /// A participant's save of a post its owner moved to another notebook they share is told where it is (so the
    /// edit follows it); one who does not share that notebook is told nothing of it: the post is unknown to them.
    @Test func aParticipantIsToldWhereAPostMovedOnlyIfTheyMayReadItThere() throws {
        let f = try SharingFixture()
        let notes = try f.shareZone(inviting: [(f.heather, .readWrite), (f.mary, .readWrite)]).url!
        try f.cloud.acceptShare(notes, as: f.heather)
        try f.cloud.acceptShare(notes, as: f.mary)
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        var tripsShare = Share(zoneWide: trips, title: "Trips", type: "Notebook")
        tripsShare.addParticipant(try f.owner.lookUpParticipant(accountName: f.heather.name), permission: .readWrite)
        try f.cloud.acceptShare(try f.owner.saveShare(tripsShare).url!, as: f.heather)
        var copy = Record.make("p2", in: trips, ["title": "private thoughts"])
        copy.restoreSystemFields(f.otherPost.system)
        copy.movedFrom = f.otherPost.id
        _ = try f.owner.modifyRecords(saving: [copy], deleting: [f.otherPost.id]).saveResults[copy.id]!.get()
        let moved = try f.owner.record(copy.id)

        var stale = f.otherPost  // as both participants last fetched it, edited
        stale["title"] = .string("private thoughts, edited")
        #expect(throws: CloudError.serverRecordChanged(server: moved)) { try f.shared(f.heather).save(stale) }
        #expect(throws: CloudError.unknownItem(f.otherPost.id)) { try f.shared(f.mary).save(stale) }
    }

    @Test func aMoveNamesTheVersionItMovesAndAStaleOneWaits() throws {
        let f = try SharingFixture()
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        let seen = f.otherPost  // what the moving device last fetched
        let edited = try HistoryTests().edit(f, seen, times: 1)  // another device's edit since
        var copy = Record.make("p2", in: trips, ["title": "private thoughts"])
        copy.restoreSystemFields(seen.system)
        copy.movedFrom = seen.id

        let stale = try f.owner.modifyRecords(saving: [copy], deleting: [seen.id])
        #expect(throws: CloudError.serverRecordChanged(server: edited)) { try stale.saveResults[copy.id]!.get() }
        #expect(throws: CloudError.batchRequestFailed) { try stale.deleteResults[seen.id]!.get() }
        #expect(try f.owner.record(seen.id) == edited, "nothing moved")
        #expect(throws: CloudError.self) { try f.owner.record(copy.id) }
        // A copy that names no version (its device knew none) waits too.
        var blind = copy
        blind.restoreSystemFields(nil)
        #expect(throws: CloudError.serverRecordChanged(server: edited)) {
            try f.owner.modifyRecords(saving: [blind], deleting: [seen.id]).saveResults[copy.id]!.get()
        }

        copy["title"] = edited["title"]  // merged, and moved from the version it now names
        copy.restoreSystemFields(edited.system)
        let moved = try f.owner.modifyRecords(saving: [copy], deleting: [seen.id])
        #expect(try moved.saveResults[copy.id]!.get().string("title") == "edit 1")
        #expect(try f.owner.history(of: copy.id).count == 3)

        // Moved back from a version deleted meanwhile (on another device): the move does not bring it back.
        try f.owner.delete(copy.id)
        var back = Record.make("p2", in: f.notes, ["title": "edit 1"])
        back.restoreSystemFields(edited.system)
        back.movedFrom = copy.id
        let again = try f.owner.modifyRecords(saving: [back], deleting: [copy.id])
        #expect(throws: CloudError.unknownItem(copy.id)) { try again.saveResults[back.id]!.get() }
        #expect(throws: CloudError.self) { try again.deleteResults[copy.id]!.get() }  // already gone (unknown item)
        #expect(throws: CloudError.self) { try f.owner.record(back.id) }
        #expect(try f.owner.trash(in: trips, type: "Post").map { $0.last.record.string("title") } == ["edit 1"])
    }

    @Test func aCopyThatNamesNoOriginalIsANewRecordBesideADeletion() throws {
        let f = try SharingFixture()
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        _ = try HistoryTests().edit(f, f.otherPost, times: 1)
        f.test.clock.advance(by: 60)
        // In one request or apart, as any CloudKit client may: two records that share a name are two records.
        let result = try f.owner.modifyRecords(saving: [.make("p2", in: trips, ["title": "edit 1"])], deleting: [f.otherPost.id])
        let copy = try result.saveResults[RecordID(name: "p2", zone: trips)]!.get()

        #expect(try f.owner.trash(in: f.notes, type: "Post").map(\.last.record.id.name) == ["p2"])
        #expect(try f.owner.history(of: copy.id).count == 1 && copy.system?.createdAt != f.otherPost.system?.createdAt)
        var again = try f.owner.record(copy.id)
        again["title"] = .string("edit 2")
        #expect(try f.owner.save(again).string("title") == "edit 2", "nothing sends a save of it elsewhere")
    }

    @Test func onlyItsOwnerMovesARecordAndUnderItsName() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        let trips = try f.owner.save(zone: ZoneID(name: "Trips"))
        var renamed = Record.make("p3", in: trips, ["title": "x"])
        renamed.movedFrom = f.otherPost.id
        #expect(throws: CloudError.self) { try f.owner.modifyRecords(saving: [renamed]).saveResults[renamed.id]!.get() }
        var hers = Record.make("p2", in: ZoneID(name: "Notes", owner: f.jermaine.id), ["title": "x"])
        hers.movedFrom = RecordID(name: "p2", zone: ZoneID(name: "Other", owner: f.jermaine.id))
        #expect(throws: CloudError.self) { try f.shared(f.heather).modifyRecords(saving: [hers]).saveResults[hers.id]!.get() }
        #expect(try f.owner.record(f.otherPost.id) == f.otherPost, "nothing moved")
    }
}
