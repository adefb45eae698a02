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
        #expect(try said(j) == ["heather accepted your invitation to \"Trip\""])
        #expect(try said(h) == [])  // her own acceptance is not news to her

        try sharing.setPermission(.readOnly, email: heather.email, on: try j.store.post("p1"))
        try h.syncNow()
        #expect(try said(h) == ["your permission on \"Trip\" is now read-only"])

        _ = try test.cloud.acceptShare(link, as: mary)
        try m.syncNow()
        try j.syncNow()
        _ = try said(j)
        try PostSharing(store: m.store, cloud: test.cloud, account: mary).leave(try m.store.posts()[0])
        try m.syncNow()
        try j.syncNow()
        #expect(try said(j) == ["mary left \"Trip\""])
        #expect(try said(m) == [])  // she left: no notice of it to her

        try sharing.removeParticipant(email: heather.email, from: try j.store.post("p1"))
        try h.syncNow()
        #expect(try h.store.postCount() == 0)
        #expect(try said(h) == ["jermaine removed you from \"Trip\""])
        try h.syncNow()
        #expect(try said(h) == [])  // once
        #expect(try h.store.notices().count == 2)  // and kept, to list again
    }

    /// Heather accepts, then jermaine (elsewhere) invites mary before this device fetches: both changes come in one
    /// fetch, the last saved by him, and heather's acceptance is still told.
    @Test func anAcceptanceIsToldThoughTheOwnerSavedTheShareSince() throws {
        let link = try url(try sharing.share(try j.store.post("p1"), inviting: ["heather"], permission: .readWrite))
        try j.syncNow()
        _ = try test.cloud.acceptShare(link, as: heather)
        let share = try test.cloud.database(.private, as: jermaine).fetchShare(try #require(try j.store.share(for: try j.store.post("p1"))).id)
        _ = try test.cloud.database(.private, as: jermaine).addParticipant(
            try test.cloud.database(.private, as: jermaine).lookUpParticipant(accountName: "mary"), permission: .readOnly, to: share.id)
        try j.syncNow()
        #expect(try said(j) == ["heather accepted your invitation to \"Trip\""])
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

    /// Deleting what was shared ends its share too; its participants hear what happened, not "stopped sharing".
    @Test func deletingASharedPostIsToldAsADeletion() throws {
        let link = try url(try sharing.share(try j.store.post("p1"), inviting: ["heather"], permission: .readOnly))
        _ = try test.cloud.acceptShare(link, as: heather)
        try h.syncNow()
        try j.syncNow()
        _ = try said(j)
        try j.store.delete(try j.store.post("p1"))
        try j.syncNow()
        try h.syncNow()
        #expect(try said(h) == ["jermaine deleted \"Trip\", which was shared with you"])
    }
}

/// A share's URL, kept sealed, opens for whoever joins later, after the notebook's key rotated too.
@Suite struct ShareLinkTests {
    @Test func aParticipantWhoJoinsAfterARotationReadsTheURL() throws {
        let test = try TestCloud()
        let dir = TemporaryDirectory("links")
        let names = ["jermaine", "heather", "mary"]
        let accounts = try names.map { try test.cloud.createAccount(name: $0) }
        let devices = try accounts.enumerated().map { index, account -> NotesSync in
            let store = try DeviceStore(directory: dir.path(names[index]))
            store.keyring = try Keyring(directory: dir.path(names[index] + "-keys"), account: account, cloud: test.cloud)
            try store.keyring?.publish()
            return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
        }
        let (j, h, m) = (devices[0], devices[1], devices[2])
        let notes = try j.store.ensureDefaultNotebook(owner: accounts[0].id)
        try j.store.save(Post(id: "p1", zone: notes.zone, title: "Trip", location: "Hà Nội"), by: accounts[0].id, now: Date())
        try j.syncNow()
        let sharing = PostSharing(store: j.store, cloud: test.cloud, account: accounts[0])
        guard case .shared(let url) = try sharing.share(try j.store.post("p1"), inviting: ["heather"], permission: .readOnly) else {
            Issue.record("not shared")
            return
        }
        _ = try test.cloud.acceptShare(url, as: accounts[1])
        try h.syncNow()
        #expect(try PostSharing(store: h.store, cloud: test.cloud, account: accounts[1]).url(of: try h.store.posts()[0]) == url.absoluteString)

        try sharing.removeParticipant(email: accounts[1].email, from: try j.store.post("p1"))  // the key rotates
        try j.syncNow()
        _ = try sharing.share(try j.store.post("p1"), inviting: ["mary"], permission: .readOnly)
        _ = try test.cloud.acceptShare(url, as: accounts[2])
        try m.syncNow()
        let marys = try m.store.posts()
        #expect(marys.first?.location == "Hà Nội")
        #expect(try PostSharing(store: m.store, cloud: test.cloud, account: accounts[2]).url(of: marys[0]) == url.absoluteString)
    }
}

extension ShareLinkTests {
    /// A post share's link hangs below its post: a participant of another post's share in the same notebook
    /// cannot read it, even raw from the cloud, and its URL is nowhere in clear.
    @Test func aLinkIsReadOnlyByItsOwnShare() throws {
        let test = try TestCloud()
        let jermaine = try test.cloud.createAccount(name: "jermaine"), mary = try test.cloud.createAccount(name: "mary")
        let dir = TemporaryDirectory("links")
        let store = try DeviceStore(directory: dir.path("j"))
        store.keyring = try Keyring(directory: dir.path("jk"), account: jermaine, cloud: test.cloud)
        let j = try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(jermaine))
        let notes = try store.ensureDefaultNotebook(owner: jermaine.id)
        try store.save([Post(id: "p1", zone: notes.zone, title: "Trip"), Post(id: "p2", zone: notes.zone, title: "Other")], by: jermaine.id, now: Date())
        try j.syncNow()
        let sharing = PostSharing(store: store, cloud: test.cloud, account: jermaine)
        guard case .shared(let trip) = try sharing.share(try store.post("p1"), inviting: [], permission: .readOnly),
              case .shared(let other) = try sharing.share(try store.post("p2"), inviting: ["mary"], permission: .readOnly) else {
            Issue.record("not shared")
            return
        }
        _ = try test.cloud.acceptShare(other, as: mary)
        let hers = test.cloud.database(.shared, as: mary)
        let visible = try hers.zoneChanges(in: notes.zone, since: nil).modified.map(\.id.name)
        #expect(visible.contains("link-share-p2") && !visible.contains("link-share-p1"))
        #expect(throws: CloudError.self) { try hers.record(RecordID(name: "link-share-p1", zone: notes.zone)) }
        let sealed = try test.cloud.database(.private, as: jermaine).record(RecordID(name: "link-share-p1", zone: notes.zone))
        #expect(sealed.fields.isEmpty && sealed.encryptedFields["url"] != nil)
        #expect(sealed.encrypted("url").map { Data(trip.absoluteString.utf8).count < $0.count } == true)
        #expect(sealed.encrypted("url").map { $0.range(of: Data(trip.absoluteString.suffix(20).utf8)) == nil } == true)
    }
}

/// What a participant who sends raw requests can plant about sharing and presence, and what the app makes of it.
@Suite struct PlantedSharingTests {
    @Test func aLinkOrAPresenceAParticipantPlantsIsNotBelieved() throws {
        let test = try TestCloud()
        let dir = TemporaryDirectory("planted")
        let accounts = try ["jermaine", "heather"].map { try test.cloud.createAccount(name: $0) }
        let devices = try accounts.map { account -> NotesSync in
            let store = try DeviceStore(directory: dir.path(account.name))
            store.keyring = try Keyring(directory: dir.path(account.name + "-keys"), account: account, cloud: test.cloud)
            try store.keyring?.publish()
            return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
        }
        let (j, h) = (devices[0], devices[1])
        let notes = try j.store.ensureDefaultNotebook(owner: accounts[0].id)
        try j.store.save(Post(id: "p1", zone: notes.zone, title: "Trip"), by: accounts[0].id, now: Date())
        try j.syncNow()
        let sharing = PostSharing(store: j.store, cloud: test.cloud, account: accounts[0])
        let url = try sharing.share(notebook: "Notes", inviting: ["heather"], permission: .readWrite)
        _ = try test.cloud.acceptShare(url, as: accounts[1])
        try h.syncNow()
        try j.syncNow()
        #expect(try sharing.url(of: try j.store.post("p1")) == url.absoluteString)

        // Heather holds the notebook's key: she seals a link of her own over his, and a presence meant to last.
        let zone = notes.zone
        let keys = try h.store.read { db in try DeviceStore.openingKeyRecords(db, .shared, zone: zone) }
        let key = try #require(h.store.keyring?.openZoneKeys(from: keys, zone: zone).last)
        let raw = test.cloud.database(.shared, as: accounts[1])
        var link = try raw.record(RecordID(name: "link-cloudkit.zoneshare", zone: zone))
        link.setEncrypted("url", try Sealing.seal("cloudnotes://share/iCloud.cloudnotes/hers", key: key, record: link.id))
        _ = try raw.save(link)
        var presence = Record(type: "Presence", id: RecordID(name: "presence-\(accounts[1].id)-p1", zone: zone))
        presence.setParent("p1")
        presence["post"] = .string("p1")
        presence["until"] = .date(test.clock.now().addingTimeInterval(365 * 86_400))
        _ = try raw.save(presence)
        var posing = presence
        posing = Record(type: "Presence", id: RecordID(name: "presence-\(accounts[0].id)-p1", zone: zone))  // as if he were editing
        posing.setParent("p1")
        posing["post"] = .string("p1")
        posing["until"] = .date(test.clock.now().addingTimeInterval(60))
        _ = try raw.save(posing)
        var elsewhere = Record(type: "Presence", id: RecordID(name: "presence-\(accounts[1].id)-p2", zone: zone))  // names a post it is not below
        elsewhere.setParent("p1")
        elsewhere["post"] = .string("p2")
        elsewhere["until"] = .date(test.clock.now().addingTimeInterval(60))
        _ = try raw.save(elsewhere)
        try j.syncNow()

        #expect(try sharing.url(of: try j.store.post("p1")) == nil)  // not his link any more: nothing shown, never hers
        let seen = try j.store.presences(besides: "nobody", now: test.clock.now())
        #expect(seen.map(\.account) == [accounts[1].id])
        #expect(try j.store.presences(besides: "nobody", now: test.clock.now().addingTimeInterval(Presence.longest + 1)).isEmpty)
    }
}
