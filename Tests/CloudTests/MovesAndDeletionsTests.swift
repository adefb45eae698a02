import Cloud
import Foundation
import Testing
import TestSupport

/// A move and a deletion sent by devices that had not heard of each other: whichever reaches the cloud first, the
/// record stays deleted, and nothing typed below a moved or deleted record hides below its tombstone.
@Suite struct MovesAndDeletionsTests {
    /// Jermaine's Notes shared with heather (read-write), and his Trips notebook shared with nobody.
    func fixture() throws -> (SharingFixture, trips: ZoneID) {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.shareZone(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        return (f, try f.owner.save(zone: ZoneID(name: "Trips")))
    }

    /// The owner's move of p1 with its comment c1, from the versions `seen`, as the app sends it.
    func move(_ f: SharingFixture, to trips: ZoneID, post seen: Record, comment: Record) throws -> ModifyResult {
        var copy = Record.make("p1", in: trips, ["title": seen.string("title") ?? ""])
        copy.restoreSystemFields(seen.system)
        copy.movedFrom = seen.id
        var moved = Record.make("c1", in: trips, type: "Comment", ["text": comment.string("text") ?? ""])
        moved.setParent("p1")
        moved.restoreSystemFields(comment.system)
        moved.movedFrom = comment.id
        return try f.owner.modifyRecords(saving: [copy, moved], deleting: [seen.id, comment.id])
    }

    /// Heather, read-write in Notes, plants a record under the name of the owner's post in Trips: the owner's move of
    /// that post into Notes is refused, not merged into hers (the post would take her as author and lose its history).
    @Test func aMoveOntoAnotherAccountsRecordOfTheSameNameIsRefused() throws {
        let (f, trips) = try fixture()
        let mine = try f.owner.save(.make("q1", in: trips, ["title": "Groceries"]))
        _ = try f.shared(f.heather).save(.make("q1", in: f.notes, ["title": "planted"]))
        var copy = Record.make("q1", in: f.notes, ["title": "Groceries"])
        copy.restoreSystemFields(mine.system)
        copy.movedFrom = mine.id
        let result = try f.owner.modifyRecords(saving: [copy], deleting: [mine.id])

        #expect { try result.saveResults[copy.id]!.get() } throws: { error in
            (error as? CloudError).map { "\($0)" }?.contains("another account's record named q1") == true
        }
        #expect(try f.owner.record(mine.id).string("title") == "Groceries", "the original stays")
        #expect(try f.owner.record(copy.id).string("title") == "planted")
    }

    /// Heather deletes her comment; the owner's device, not having heard, moves the post with it: the comment
    /// stays deleted (refused as an edit of a deleted record is), and the post moves.
    @Test func aCommentDeletedBeforeItsPostMovesStaysDeleted() throws {
        let (f, trips) = try fixture()
        try f.shared(f.heather).delete(f.comment.id)
        let result = try move(f, to: trips, post: f.post, comment: f.comment)

        #expect(throws: Never.self) { try result.saveResults[RecordID(name: "p1", zone: trips)]!.get() }
        #expect(throws: CloudError.unknownItem(f.comment.id)) { try result.saveResults[RecordID(name: "c1", zone: trips)]!.get() }
        #expect(throws: CloudError.self) { try f.owner.record(RecordID(name: "c1", zone: trips)) }
        #expect(try f.owner.zoneChanges(in: trips, since: nil).modified.map(\.id.name) == ["p1"])
    }

    /// The other order: the move lands first, then heather's deletion of the comment's old copy. It follows the
    /// comment where she may read it; where she may not, it is unknown to her and the comment stays.
    @Test func aDeletionOfAMovedRecordsOldCopyFollowsItWhereTheCallerMayRead() throws {
        let (f, trips) = try fixture()
        _ = try move(f, to: trips, post: f.post, comment: f.comment)
        #expect(throws: CloudError.unknownItem(f.comment.id)) { try f.shared(f.heather).delete(f.comment.id) }
        #expect(try f.owner.record(RecordID(name: "c1", zone: trips)).string("text") == "nice", "out of her reach")

        var tripsShare = Share(zoneWide: trips, title: "Trips", type: "Notebook")
        tripsShare.addParticipant(try f.owner.lookUpParticipant(accountName: f.heather.name), permission: .readWrite)
        try f.cloud.acceptShare(try f.owner.saveShare(tripsShare).url!, as: f.heather)
        try f.shared(f.heather).delete(f.comment.id)
        #expect(throws: CloudError.self) { try f.owner.record(RecordID(name: "c1", zone: trips)) }
        #expect(try f.owner.trash(in: trips, type: "Comment").map { $0.last.record.string("text") } == ["nice"])
        // The owner's devices send a move's original's deletion, perhaps after the move: it takes nothing.
        #expect(throws: CloudError.unknownItem(f.post.id)) { try f.owner.delete(f.post.id) }
        #expect(try f.owner.record(RecordID(name: "p1", zone: trips)).string("title") == "Sharing demo is great")
    }

    /// A post its owner moved out of heather's reach is not made again where it was by her device sending its old
    /// copy as new (rebuilding a cloud put back): refused as unknown, the post stays where its owner put it.
    @Test func aPostMovedOutOfReachIsNotMadeAgainWhereItWas() throws {
        let (f, trips) = try fixture()
        _ = try move(f, to: trips, post: f.post, comment: f.comment)
        let oldCopy = Record.make("p1", in: f.post.id.zone, ["title": "Sharing demo is great"])
        #expect(throws: CloudError.unknownItem(f.post.id)) { try f.shared(f.heather).save(oldCopy) }
        #expect(try f.owner.zoneChanges(in: f.post.id.zone, since: nil).modified.filter { $0.id.name == "p1" }.isEmpty)
        #expect(try f.owner.record(RecordID(name: "p1", zone: trips)).string("title") == "Sharing demo is great")
    }

    /// A comment heather types below a post its owner moved out of her reach, or deleted, is refused (her device
    /// keeps her words), not saved below a tombstone where nobody would read it.
    @Test func aRecordBelowOneDeletedOrMovedOutOfTheCallersReachIsRefused() throws {
        let (f, trips) = try fixture()
        _ = try move(f, to: trips, post: f.post, comment: f.comment)
        var late = Record.make("c3", in: f.notes, type: "Comment", ["text": "count me in"])
        late.setParent("p1")
        #expect(throws: CloudError.unknownItem(f.post.id)) { try f.shared(f.heather).save(late) }
        #expect(!(try f.owner.zoneChanges(in: f.notes, since: nil).modified.contains { $0.id.name == "c3" }))

        // Below a post deleted since, the same, for its owner too; below a record that never was, a record is saved
        // as any client may.
        try f.owner.delete(f.otherPost.id)
        var below = Record.make("c4", in: f.notes, type: "Comment", ["text": "still here?"])
        below.setParent("p2")
        #expect(throws: CloudError.unknownItem(f.otherPost.id)) { try f.shared(f.heather).save(below) }
        #expect(throws: CloudError.unknownItem(f.otherPost.id)) { try f.owner.save(below) }
        below.setParent("p9")
        #expect(try f.owner.save(below).parent == "p9")
    }

    /// Two devices move one post into two notebooks: the second move is told where the first took it (its device
    /// follows it there), and no second copy is made.
    @Test func aStaleMoveOfARecordMovedMeanwhileIsToldWhereItWent() throws {
        let (f, trips) = try fixture()
        _ = try move(f, to: trips, post: f.post, comment: f.comment)
        let work = try f.owner.save(zone: ZoneID(name: "Work"))
        let now = try f.owner.record(RecordID(name: "p1", zone: trips))
        let stale = try move(f, to: work, post: f.post, comment: f.comment)
        #expect(throws: CloudError.serverRecordChanged(server: now)) { try stale.saveResults[RecordID(name: "p1", zone: work)]!.get() }
        #expect(try f.owner.zoneChanges(in: work, since: nil).modified.isEmpty)
    }
}
