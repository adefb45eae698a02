import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

@Suite struct SharingProviderTests {
    /// Jermaine shares a post with Heather at `permission`; returns both devices' providers and posts.
    func shared(_ permission: SharePermission) throws -> (owner: StoreSharingProvider, ownerPost: Post,
                                                           participant: StoreSharingProvider, participantPost: Post,
                                                           keep: [AnyObject]) {
        let test = try TestCloud()
        let dir = TemporaryDirectory("provider")
        let jermaine = try test.cloud.createAccount(name: "jermaine"), heather = try test.cloud.createAccount(name: "heather")
        let ownerSync = try NotesSync(store: try DeviceStore(directory: dir.path("j")), cloud: test.cloud, account: FixedAccount(jermaine))
        let heatherSync = try NotesSync(store: try DeviceStore(directory: dir.path("h")), cloud: test.cloud, account: FixedAccount(heather))
        let notes = try ownerSync.store.ensureDefaultNotebook(owner: jermaine.id)
        try ownerSync.store.save(Post(id: "p1", zone: notes.zone, title: "Shared post"), by: jermaine.id, now: Date())
        try ownerSync.syncNow()
        let db = test.cloud.database(.private, as: jermaine)
        var share = Share(rootRecord: RecordID(name: "p1", zone: notes.zone), title: "Shared post")
        share.addParticipant(try db.lookUpParticipant(accountName: "heather"), permission: permission)
        let url = try db.saveShare(share, rootRecord: try db.record(RecordID(name: "p1", zone: notes.zone))).url!
        try test.cloud.acceptShare(url, as: heather)
        try ownerSync.syncNow()
        try heatherSync.syncNow()
        let names: @Sendable (String) -> String = { $0 == jermaine.id ? "jermaine" : "heather" }
        let owner = StoreSharingProvider(store: ownerSync.store, account: jermaine, name: names)
        let participant = StoreSharingProvider(store: heatherSync.store, account: heather, name: names)
        return (owner, try ownerSync.store.post("p1"), participant, try heatherSync.store.post("p1"), [test, dir, ownerSync, heatherSync])
    }

    @Test func theOwnerMayDoAnythingAndSeesThePostAsShared() throws {
        let s = try shared(.readOnly)
        #expect(s.owner.isShared(s.ownerPost))
        #expect(s.owner.canEdit(s.ownerPost) && s.owner.canDelete(s.ownerPost))
        #expect(s.owner.participants(for: s.ownerPost).map(\.name) == ["jermaine", "heather"])
    }

    @Test func aReadOnlyParticipantMayNeitherEditNorDeleteAndIsToldWhy() throws {
        let s = try shared(.readOnly)
        #expect(s.participant.isShared(s.participantPost))
        #expect(!s.participant.canEdit(s.participantPost) && !s.participant.canDelete(s.participantPost))
        #expect(s.participant.readOnlyReason(for: s.participantPost) == "read-only: shared by jermaine")
    }

    @Test func aReadWriteParticipantEditsButLeavesDeletingTheSharedPostToItsOwner() throws {
        let s = try shared(.readWrite)
        #expect(s.participant.canEdit(s.participantPost))
        #expect(!s.participant.canDelete(s.participantPost))
        #expect(s.participant.readOnlyReason(for: s.participantPost) == nil)
    }
}
