import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// Edits waiting on a device outlive what happens to their post elsewhere:
/// a deletion, a deleted notebook, a share made read-only.
@Suite struct EditMeetsDeletionTests {
    @Test func aFetchedDeletionKeepsAnEditWaitingHereAndTheEditBringsThePostBack() throws {
        let d = try TwoDevices(keys: true)
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk", location: "Hanoi"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.b.store.delete(try d.b.store.post("p1"))
        try d.b.syncNow()
        let seen = try d.a.store.post("p1")
        var edited = seen
        edited.content = "milk\neggs"
        _ = try d.a.store.saveEdit(edited, from: seen.fields, by: Editor(account: d.heather, device: "a"), now: Date())
        try d.a.engine(.private).fetchChanges()  // the deletion arrives before the edit is sent
        #expect(try d.a.store.post("p1").content == "milk\neggs")
        try d.a.syncNow()
        try d.b.syncNow()
        let back = try d.b.store.post("p1")
        #expect(back.content == "milk\neggs" && back.location == "Hanoi")
    }

    /// The other way round: a deletion made on a device that had not heard of an edit is refused by the cloud (it
    /// names the version its person deleted), and the post comes back with the edit, its person told; also when
    /// the edit reaches the device before its deletion is sent.
    @Test(arguments: [false, true]) func aDeletionOfAVersionEditedSinceBringsThePostBackWithTheEdit(heardFirst: Bool) throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.delete(try d.a.store.post("p1"))
        let seen = try d.b.store.post("p1")
        var edited = seen
        edited.content = "milk\neggs"
        _ = try d.b.store.saveEdit(edited, from: seen.fields, by: Editor(account: d.heather, device: "b"), now: Date())
        try d.b.syncNow()
        if heardFirst { try d.a.engine(.private).fetchChanges() }
        try d.a.syncNow()
        try d.b.syncNow()

        for device in [d.a, d.b] {
            #expect(try device.store.posts().map(\.content) == ["milk\neggs"])
            #expect(try device.store.pendingCount() == 0)
        }
        let told = d.a.takeNews().refusals.map(\.description)
        #expect(told.count == 1 && told.first?.contains("not deleted") == true, "\(told)")
        // Deleted again, now that its person has seen the edit: it goes.
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] { #expect(try device.store.posts().isEmpty) }
    }

    /// A post deleted on a device that had not heard of a comment added to it elsewhere: the deletion would take the
    /// comment unseen (the post itself is unchanged), so the cloud refuses it, and the post comes back with the new
    /// comment, its person told, and with the comment they saw: nothing of it is deleted apart from it (a tryout lost
    /// that comment for good). Deleted again, the post goes.
    @Test(arguments: [false, true]) func aDeletionOfAPostCommentedSinceBringsItBackWithTheComment(heardFirst: Bool) throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.store.add(Comment(id: "c1", postID: "p1", zone: d.notes.zone, scope: .private, text: "seen"), by: d.heather.id, now: Date())
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.b.store.add(Comment(id: "c2", postID: "p1", zone: d.notes.zone, scope: .private, text: "unseen"), by: d.heather.id, now: Date())
        try d.b.syncNow()
        if heardFirst { try d.a.engine(.private).fetchChanges() }
        try d.a.syncNow()
        try d.b.syncNow()

        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(try device.store.comments(on: post).map(\.text).sorted() == ["seen", "unseen"])
            #expect(try device.store.pendingCount() == 0)
        }
        let told = d.a.takeNews().refusals.map(\.description)
        #expect(told.count == 1 && told.first?.contains("its comments changed after you saw them") == true, "\(told)")
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] { #expect(try device.store.posts().isEmpty) }
        let cloud = try d.test.cloud.database(.private, as: d.heather)
        #expect(throws: CloudError.self) { try cloud.record(RecordID(name: "c2", zone: d.notes.zone)) }
    }

    /// A record planted below a post by raw requests (a delete-self reference to it, of a type the app does not show):
    /// the deleting device heard of it, names it, and the post goes. Unnamed, every deletion of the post was refused as
    /// one taking what its deleter never saw, for good.
    @Test func aRecordPlantedBelowAPostDoesNotKeepItFromBeingDeleted() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Trip", content: "tickets"))
        try d.a.syncNow()
        let cloud = d.test.cloud.database(.private, as: d.heather)
        var pin = Record(type: "Pin", id: RecordID(name: "stray", zone: d.notes.zone))
        pin["on"] = .reference(Reference(recordName: "p1", action: .deleteSelf))
        _ = try cloud.save(pin)
        try d.a.syncNow()
        try d.a.store.delete(try d.a.store.post("p1"))
        try d.a.syncNow()

        #expect(try d.a.store.posts().isEmpty)
        #expect(d.a.takeNews().refusals.isEmpty)
        #expect(throws: CloudError.self) { try cloud.record(RecordID(name: "p1", zone: d.notes.zone)) }
    }

    /// A notebook deleted on a device that had not heard of a post written into it elsewhere: the cloud refuses the
    /// deletion (it names the change token the device fetched the notebook to), the notebook comes back with the post,
    /// and its person is told. Deleted again, it goes.
    @Test func aNotebookDeletedOfflineComesBackWithWhatWasWrittenIntoItMeanwhile() throws {
        let d = try TwoDevices()
        let travel = try d.a.store.createNotebook("Travel", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: travel.zone, title: "Tickets", content: "book"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.a.store.deleteNotebook(travel)
        try d.write(d.b, Post(id: "p2", zone: travel.zone, title: "Visa", content: "apply"))
        try d.b.syncNow()
        try d.a.syncNow()
        try d.a.syncNow()  // fetches the notebook whole again
        try d.b.syncNow()

        for device in [d.a, d.b] {
            #expect(try device.store.notebooks().contains { $0.zone == travel.zone })
            #expect(Set(try device.store.posts().map(\.title)) == ["Tickets", "Visa"])
            #expect(try device.store.pendingCount() == 0)
        }
        let told = d.a.takeNews().refusals.map(\.description)
        #expect(told.count == 1 && told.first?.contains("not deleted") == true, "\(told)")
        try d.a.store.deleteNotebook(try #require(try d.a.store.notebooks().first { $0.zone == travel.zone }))
        try d.a.syncNow()
        try d.b.syncNow()
        for device in [d.a, d.b] { #expect(try device.store.posts().isEmpty) }
    }

    @Test func aDeletedNotebookComesBackWithTheLocationsOfTheEditsWaiting() throws {
        let d = try TwoDevices(keys: true)
        let trip = try d.a.store.createNotebook("Trip", owner: d.heather.id)
        try d.write(d.a, Post(id: "p1", zone: trip.zone, title: "Day one", location: "Hue"))
        try d.a.syncNow()
        try d.b.syncNow()
        let seen = try d.b.store.post("p1")  // fetched: its location sealed in the row
        var edited = seen
        edited.content = "typed on b"
        _ = try d.b.store.saveEdit(edited, from: seen.fields, by: Editor(account: d.heather, device: "b"), now: Date())
        try d.test.cloud.database(.private, as: d.heather).delete(zone: trip.zone)
        try d.b.syncNow()
        try d.b.syncNow()
        try d.a.syncNow()
        let back = try d.a.store.post("p1")
        #expect(back.content == "typed on b" && back.location == "Hue")
    }

    @Test func anEditRefusedBecauseTheShareTurnedReadOnlyIsKeptAsTheParticipantsOwnPost() throws {
        let test = try TestCloud()
        let dir = TemporaryDirectory("readonly")
        let jermaine = try test.cloud.createAccount(name: "jermaine"), heather = try test.cloud.createAccount(name: "heather")
        func device(_ account: Account) throws -> NotesSync {
            let store = try DeviceStore(directory: dir.path(account.name))
            _ = try store.ensureDefaultNotebook(owner: account.id)
            return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
        }
        let owner = try device(jermaine), guest = try device(heather)
        let notes = try #require(try owner.store.notebooks().first)
        try owner.store.save(Post(id: "p1", zone: notes.zone, title: "Meeting", content: "A"), by: jermaine.id, now: Date())
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: jermaine)
        guard case .shared(let url) = try sharing.share(try owner.store.post("p1"), inviting: ["heather"], permission: .readWrite) else { return }
        _ = try test.cloud.acceptShare(url, as: heather)
        try guest.syncNow()
        let seen = try guest.store.post("p1")  // heather's editor opens while she may still write
        try sharing.setPermission(.readOnly, email: "heather@example.com", on: try owner.store.post("p1"))
        var typed = seen
        typed.content = "A\nheather's line"
        _ = try guest.store.saveEdit(typed, from: seen.fields, by: Editor(account: heather, device: "h"), now: Date())
        try guest.syncNow()
        #expect(guest.refusals.first?.outcome?.contains("kept as a post of your own") == true, "\(guest.refusals)")
        let own = try guest.store.posts().filter { $0.scope == .private }
        #expect(own.contains { $0.content.contains("heather's line") })
        #expect(try guest.store.post("p1").content == "A")
    }

    @Test func reuploadIsRefusedWhileTheCloudIsTheOneTheDeviceKnows() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Fine"))
        try d.a.syncNow()
        #expect(throws: StoreError.self) { try d.a.reupload() }
    }
}
