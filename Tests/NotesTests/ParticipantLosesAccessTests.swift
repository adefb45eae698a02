import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// What heather typed offline into jermaine's notebook, shared with her, when it goes away: each change is kept as
/// a post of her own and told once, for what it was, with the reason that is true.
@Suite struct ParticipantLosesAccessTests {
    let test: TestCloud
    let dir = TemporaryDirectory("loses-access")
    let jermaine: Account, heather: Account
    let owner: NotesSync, guest: NotesSync
    let notes: Notebook

    init() throws {
        let test = try TestCloud(), dir = dir
        self.test = test
        jermaine = try test.cloud.createAccount(name: "jermaine")
        heather = try test.cloud.createAccount(name: "heather")
        func device(_ account: Account) throws -> NotesSync {
            let store = try DeviceStore(directory: dir.path(account.name))
            store.keyring = try Keyring(directory: dir.path("\(account.name)-keys"), account: account, cloud: test.cloud)
            _ = try store.ensureDefaultNotebook(owner: account.id)
            return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
        }
        owner = try device(jermaine)
        guest = try device(heather)
        notes = try #require(try owner.store.notebooks().first)
        try owner.store.save(Post(id: "p1", zone: notes.zone, title: "Meeting", content: "agenda"), by: jermaine.id, now: Date())
        try owner.syncNow()
        let url = try PostSharing(store: owner.store, cloud: test.cloud, account: jermaine)
            .share(notebook: "Notes", inviting: ["heather"], permission: .readWrite)
        _ = try test.cloud.acceptShare(url, as: heather)
        try guest.syncNow()
        // Offline, heather edits the post and comments on it.
        var edited = try guest.store.post("p1")
        let base = edited.fields
        edited.content = "agenda\nheather's point"
        _ = try guest.store.saveEdit(edited, from: base, by: Editor(account: heather, device: "guest"), now: Date())
        try guest.store.add(Comment(id: "c1", postID: "p1", zone: notes.zone, scope: .shared, text: "count me in"), by: heather.id, now: Date())
    }

    @Test func removedShesToldOfEachChangeOnceAndKeepsBoth() throws {
        _ = try test.cloud.database(.private, as: jermaine).removeParticipant(heather.id, from: RecordID(name: Share.zoneWideRecordName, zone: notes.zone))
        try guest.syncNow()

        let told = guest.takeNews().refusals
        #expect(told.count == 2 && Set(told.map(\.id.name)) == ["p1", "c1"], "\(told)")
        #expect(told.allSatisfy { $0.outcome == "it is no longer shared with you; what you wrote is kept as a post of your own" }, "\(told)")
        let own = try guest.store.posts().filter { $0.scope == .private }.map(\.content)
        #expect(own.contains { $0.contains("heather's point") } && own.contains { $0.contains("count me in") }, "\(own)")
        // And she hears that she was removed, as she would without changes waiting.
        let notices = try guest.store.notices().map { $0.text(names: guest.store.names) }
        #expect(notices.contains { $0.contains("jermaine removed you") }, "\(notices)")
    }

    @Test func aPostDeletedByItsOwnerIsNotSaidToBeNoLongerShared() throws {
        try owner.store.delete(try owner.store.post("p1"))
        try owner.syncNow()
        try guest.syncNow()

        let told = guest.takeNews().refusals.compactMap(\.outcome)
        #expect(told.contains("it was deleted, or is no longer shared with you; your edit is kept as a post of your own"), "\(told)")
        let kept = try guest.store.posts().filter { $0.scope == .private }.map(\.content)
        #expect(kept.contains { $0.contains("heather's point") && $0.contains("(kept here: deleted, or no longer shared with you, by jermaine)") },
                "\(kept)")
    }

    /// Heather plants a post under the ID of jermaine's post in his notebook Trip, shared with her: his device refuses
    /// to move his post there (merged, it would take her as author and lose its history), naming her.
    @Test func aMoveOntoAPostAParticipantPlantedUnderItsIDIsRefused() throws {
        let trip = try owner.store.createNotebook("Trip", owner: jermaine.id)
        try owner.store.save(Post(id: "p2", zone: notes.zone, title: "Groceries", content: "milk"), by: jermaine.id, now: Date())
        try owner.syncNow()
        let url = try PostSharing(store: owner.store, cloud: test.cloud, account: jermaine)
            .share(notebook: "Trip", inviting: ["heather"], permission: .readWrite)
        _ = try test.cloud.acceptShare(url, as: heather)
        var planted = Record(type: Post.recordType, id: RecordID(name: "p2", zone: trip.zone))
        planted["title"] = .string("Groceries")
        _ = try test.cloud.database(.shared, as: heather).save(planted)
        try owner.syncNow()

        #expect { try owner.store.move(try owner.store.post(id: "p2", zone: notes.zone, scope: .private)!, to: trip, by: jermaine.id, now: Date()) }
            throws: { "\($0)".contains("holds another post with this one's ID (p2), written by heather") }
        #expect(try owner.store.post(id: "p2", zone: notes.zone, scope: .private)?.content == "milk")
    }
}
