import Cloud
import Foundation
@testable import Notes
import Sync
import Testing
import TestSupport

/// A post's "modified at/by" says who last changed its content, and when: sharing it does not, nor does a
/// participant's claim that someone else typed what they saved.
@Suite struct LastEditTests {
    let test: TestCloud
    let dir = TemporaryDirectory("last-edit")
    let jermaine: Account, heather: Account
    let owner: NotesSync, participant: NotesSync
    let notes: Notebook
    let typed = Date(timeIntervalSince1970: 1_700_000_000), later = Date(timeIntervalSince1970: 1_700_000_600)

    init() throws {
        test = try TestCloud()
        jermaine = try test.cloud.createAccount(name: "jermaine")
        heather = try test.cloud.createAccount(name: "heather")
        owner = try NotesSync(store: try DeviceStore(directory: dir.path("j")), cloud: test.cloud, account: FixedAccount(jermaine))
        participant = try NotesSync(store: try DeviceStore(directory: dir.path("h")), cloud: test.cloud, account: FixedAccount(heather))
        notes = try owner.store.ensureDefaultNotebook(owner: jermaine.id)
        try owner.store.save(Post(id: "p1", zone: notes.zone, title: "Trip", content: "tickets"), by: jermaine.id, now: typed)
        try owner.store.save(Post(id: "p2", zone: notes.zone, title: "Later"), by: jermaine.id, now: later)
        try owner.syncNow()
    }

    /// Shares p1 with Heather (saving a share saves its root record again) and brings both devices up to date.
    func share() throws {
        test.clock.advance(by: 3_600)
        let db = test.cloud.database(.private, as: jermaine)
        var share = Share(rootRecord: RecordID(name: "p1", zone: notes.zone), title: "Trip")
        share.addParticipant(try db.lookUpParticipant(accountName: "heather"), permission: .readWrite)
        let url = try db.saveShare(share, rootRecord: try db.record(RecordID(name: "p1", zone: notes.zone))).url!
        try test.cloud.acceptShare(url, as: heather)
        try owner.syncNow()
        try participant.syncNow()
    }

    @Test func sharingAPostNeitherMovesItsModificationNorReordersTheList() throws {
        let root = try test.cloud.database(.private, as: jermaine).record(RecordID(name: "p1", zone: notes.zone))
        try share()
        let saved = try test.cloud.database(.private, as: jermaine).record(RecordID(name: "p1", zone: notes.zone))
        #expect(saved.changeTag != root.changeTag && saved.system?.modifiedAt != root.system?.modifiedAt)  // the cloud did save it

        for (device, scope) in [(owner, DatabaseScope.private), (participant, .shared)] {
            let post = try #require(try device.store.post(id: "p1", zone: notes.zone, scope: scope))
            #expect(post.modifiedAt == typed && post.modifiedBy == jermaine.id)
        }
        #expect(try owner.store.listedPosts(offset: 0, limit: 2).map(\.post.id) == ["p2", "p1"])
        #expect(owner.takeNews().arrivals.allSatisfy { $0.kind != .edited })
    }

    @Test func aParticipantsEditIsTheirsAndMovesThePostUp() throws {
        try share()
        var post = try #require(try participant.store.post(id: "p1", zone: notes.zone, scope: .shared))
        let base = post.fields
        post.content = "tickets, passports"
        let edited = later.addingTimeInterval(60)
        _ = try participant.store.saveEdit(post, from: base, by: Editor(account: heather, device: "laptop"), now: edited)
        try participant.syncNow()
        try owner.syncNow()

        let seen = try owner.store.post("p1")
        #expect(seen.content == "tickets, passports" && seen.modifiedBy == heather.id && seen.modifiedAt == edited)
        #expect(try owner.store.listedPosts(offset: 0, limit: 2).map(\.post.id) == ["p1", "p2"])
    }

    /// A participant who sends a raw save naming someone else as its editor is still the one shown.
    @Test func aRecordCannotNameAnotherEditorThanTheOneWhoSavedIt() throws {
        try share()
        let shared = test.cloud.database(.shared, as: heather)
        var record = try shared.record(RecordID(name: "p1", zone: notes.zone))
        record["content"] = .string("planted")
        record["editor"] = .string(jermaine.id)
        record["edited"] = .date(Date(timeIntervalSince1970: 4_000_000_000))  // and in the future, to stay on top
        _ = try shared.modifyRecords(saving: [record])
        try owner.syncNow()

        let seen = try owner.store.post("p1")
        #expect(seen.content == "planted" && seen.modifiedBy == heather.id)
        #expect(try #require(seen.modifiedAt) < Date(timeIntervalSince1970: 4_000_000_000))
    }

    /// Heather typed her edit offline an hour before it reached the cloud; jermaine looked in between. The
    /// post is still new to him: what counts is when her change reached his device, not when she typed it.
    @Test func anEditTypedLongAgoIsNewWhenItArrivesAfterYouLooked() throws {
        try share()
        var post = try #require(try participant.store.post(id: "p1", zone: notes.zone, scope: .shared))
        let base = post.fields
        post.content = "tickets, visas"
        let typed = test.clock.now().addingTimeInterval(-3_600)
        _ = try participant.store.saveEdit(post, from: base, by: Editor(account: heather, device: "laptop"), now: typed)
        owner.store.now = { [clock = test.clock] in clock.now() }
        try owner.store.markSeen(try owner.store.post("p1"), now: test.clock.now().addingTimeInterval(-60))  // he looked a minute ago
        try participant.syncNow()
        try owner.syncNow()

        let listed = try #require(try owner.store.listedPosts(offset: 0, limit: 5).first { $0.post.id == "p1" })
        #expect(listed.post.modifiedAt == typed && listed.isUnread(by: jermaine.id))
        try owner.store.markSeen(listed.post, now: test.clock.now().addingTimeInterval(1))
        #expect(try owner.store.listedPosts(offset: 0, limit: 5).first { $0.post.id == "p1" }?.isUnread(by: jermaine.id) == false)
    }
}
