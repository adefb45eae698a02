import Cloud
import Foundation
import Testing
import TestSupport

/// A participant sending raw requests the app never sends: the cloud's rules
/// hold whatever they save, reference or delete.
@Suite struct HostileParticipantTests {
    let f: SharingFixture
    let heather: CloudDatabase
    let saved: SavedShare

    /// Jermaine shares p1 (and its comment c1) read-write with Heather, who accepts.
    init() throws {
        f = try SharingFixture()
        saved = try f.sharePost(inviting: [(f.heather, .readWrite)])
        try f.cloud.acceptShare(saved.url!, as: f.heather)
        heather = f.shared(f.heather)
    }

    /// A record of Heather's own inside the share, with `fields`.
    func plant(_ name: String, parent: String = "p1", _ fields: [String: FieldValue] = [:]) throws -> Record {
        var record = Record.make(name, in: f.notes, type: "Comment")
        for (key, value) in fields { record[key] = value }
        record.setParent(parent)
        return try heather.save(record)
    }

    @Test func aCascadeNeverDeletesTheShareRoot() throws {
        _ = try plant("hc")
        var root = try heather.record(f.id("p1"))
        root["link"] = .reference(Reference(recordName: "hc", action: .deleteSelf))
        try heather.save(root)
        try heather.delete(f.id("hc"))
        #expect(try f.owner.record(f.post.id).string("title") == "Sharing demo is great", "the owner keeps the post")
        #expect(try heather.record(f.id("p1")).id.name == "p1", "and the share stands")
        #expect(try f.owner.shares(in: f.notes).count == 1)
    }

    /// U+0000 is text SQLite keeps and PostgreSQL refuses: both stores refuse it the same way, as a bad argument.
    @Test func aReferenceToANameNoRecordCanHaveIsRefusedOnEitherStore() throws {
        for (name, action) in [("a\u{0}b", Reference.Action.deleteSelf), ("a\u{0}b", .none), ("\u{1B}[2J", .none)] {
            for value in [FieldValue.reference(Reference(recordName: name, action: action)), .list([.reference(Reference(recordName: name))])] {
                let error = #expect(throws: CloudError.self, "\(value)") { try plant("hz", ["link": value]) }
                #expect(error?.description.contains("reference name") == true, "\(String(describing: error))")
            }
        }
        #expect(throws: CloudError.self, "nothing saved") { try heather.record(f.id("hz")) }
    }

    @Test func aReferenceMustPointInsideWhatTheParticipantMayWrite() throws {
        let outside = CloudError.permissionFailure("a reference must point inside what is shared with you")
        #expect(throws: outside, "a private record") {
            try plant("x1", ["link": .reference(Reference(recordName: "p2", action: .deleteSelf))])
        }
        #expect(throws: outside, "a name that does not exist answers the same") {
            try plant("x2", ["link": .reference(Reference(recordName: "nothing", action: .none))])
        }
        #expect(throws: outside, "in a list too") {
            try plant("x3", ["links": .list([.reference(Reference(recordName: "p2", action: .none))])])
        }
        _ = try plant("x4", ["link": .reference(Reference(recordName: "c1", action: .deleteSelf))])
        // So the owner deleting a private record deletes nothing shared.
        try f.owner.delete(f.otherPost.id)
        #expect(try heather.record(f.id("x4")).id.name == "x4")
    }

    @Test func theRootStaysWhereTheOwnerPutIt() throws {
        for parent in ["p2", "nothing"] {
            var root = try heather.record(f.id("p1"))
            root.setParent(parent)
            #expect(throws: CloudError.self, "\(parent)") { try heather.save(root) }
        }
        #expect(try f.owner.record(f.post.id).parent == nil)
        var comment = try heather.record(f.id("c1"))
        comment.setParent("p2")
        #expect(throws: CloudError.self) { try heather.save(comment) }
        #expect(try f.owner.record(f.comment.id).parent == "p1")
    }

    /// Found by the simulation's adversary: while an emptied cloud waits for an account to come back, its
    /// user record's name must stay its own (a user record ID's shape reserves it).
    @Test func aUserRecordNameStaysItsAccountsWhileTheAccountIsGone() throws {
        let gone = "_" + String(repeating: "ab", count: 16)
        var planted = Record.make(gone, in: ZoneID(name: ZoneID.defaultName), type: "PublicKey")
        planted["devices"] = .bytes(Data("{}".utf8))
        #expect(throws: CloudError.permissionFailure("record \(gone) is another account's user record")) {
            try f.cloud.database(.public, as: f.heather).save(planted)
        }
    }

    @Test func loweringThePublicPermissionLowersPublicUsers() throws {
        _ = try f.owner.setPublicPermission(.readWrite, on: saved.share.id)
        let eve = try f.cloud.createAccount(name: "eve")
        try f.cloud.acceptShare(saved.url!, as: eve)
        let share = try f.owner.setPublicPermission(.readOnly, on: saved.share.id)
        #expect(share.participant(eve.id)?.permission == .readOnly)
        var post = try f.shared(eve).record(f.id("p1"))
        post["title"] = .string("defaced")
        #expect(throws: CloudError.permissionFailure("read-only: shared by jermaine")) { try f.shared(eve).save(post) }
        #expect(try f.owner.setPublicPermission(.readWrite, on: saved.share.id).participant(eve.id)?.permission == .readWrite,
                "raised again, she follows")
    }
}
