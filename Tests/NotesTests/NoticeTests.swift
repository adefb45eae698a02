import Cloud
import Foundation
@testable import Notes
import Sync
import Testing
import TestSupport

/// Each thing others do that touches you becomes a notice on your devices, in words, once.
@Suite struct NoticeTests {
    let test: TestCloud
    let dir = TemporaryDirectory("notices")
    let jermaine: Account, heather: Account, mary: Account
    let j: NotesSync, h: NotesSync, m: NotesSync
    let sharing: PostSharing

    init() throws {
        test = try TestCloud()
        jermaine = try test.cloud.createAccount(name: "jermaine")
        heather = try test.cloud.createAccount(name: "heather")
        mary = try test.cloud.createAccount(name: "mary")
        j = try NotesSync(store: try DeviceStore(directory: dir.path("j")), cloud: test.cloud, account: FixedAccount(jermaine))
        h = try NotesSync(store: try DeviceStore(directory: dir.path("h")), cloud: test.cloud, account: FixedAccount(heather))
        m = try NotesSync(store: try DeviceStore(directory: dir.path("m")), cloud: test.cloud, account: FixedAccount(mary))
        let notes = try j.store.ensureDefaultNotebook(owner: jermaine.id)
        try j.store.save(Post(id: "p1", zone: notes.zone, title: "Trip"), by: jermaine.id, now: Date())
        try j.syncNow()
        sharing = PostSharing(store: j.store, cloud: test.cloud, account: jermaine)
    }

    func said(_ device: NotesSync) throws -> [String] {
        let names = ["\(jermaine.id)": "jermaine", "\(heather.id)": "heather", "\(mary.id)": "mary"]
        return try device.store.takeUnshownNotices().map { $0.text { names[$0] ?? $0 } }
    }

    func url(_ outcome: PostSharing.Outcome) throws -> ShareURL {
        guard case .shared(let url) = outcome else { throw StoreError.invalid("not shared") }
        return url
    }

    @Test func acceptingLeavingPermissionsAndRemovalAreEachToldOnce() throws {
        let link = try url(try sharing.share(try j.store.post("p1"), inviting: ["heather", "mary"], permission: .readWrite))
        try j.syncNow()
        #expect(try said(j) == [])
        _ = try test.cloud.acceptShare(link, as: heather)
        try j.syncNow()
        try h.syncNow()
        #expect(try said(j) == ["heather accepted your invitation to 'Trip'"])
        #expect(try said(h) == [])  // her own acceptance is not news to her

        try sharing.setPermission(.readOnly, email: heather.email, on: try j.store.post("p1"))
        try h.syncNow()
        #expect(try said(h) == ["your permission on 'Trip' is now read-only"])

        _ = try test.cloud.acceptShare(link, as: mary)
        try m.syncNow()
        try j.syncNow()
        _ = try said(j)
        try PostSharing(store: m.store, cloud: test.cloud, account: mary).leave(try m.store.posts()[0])
        try m.syncNow()
        try j.syncNow()
        #expect(try said(j) == ["mary left 'Trip'"])
        #expect(try said(m) == [])  // she left: no notice of it to her

        try sharing.removeParticipant(email: heather.email, from: try j.store.post("p1"))
        try h.syncNow()
        #expect(try h.store.postCount() == 0)
        #expect(try said(h) == ["jermaine removed you from 'Trip'"])
        try h.syncNow()
        #expect(try said(h) == [])  // once
        #expect(try h.store.notices().count == 2)  // and kept, to list again
    }

    @Test func stoppingANotebookShareIsToldToItsParticipants() throws {
        let link = try sharing.share(notebook: "Notes", inviting: ["heather"], permission: .readOnly)
        _ = try test.cloud.acceptShare(link, as: heather)
        try h.syncNow()
        try j.syncNow()
        try sharing.stopSharing(try j.store.post("p1"))
        try h.syncNow()
        #expect(try said(h) == ["jermaine stopped sharing notebook Notes"])
    }
}
