import Cloud
import Foundation
import TestSupport

/// Jermaine owns a "Notes" zone with a post, a comment on it, and another post;
/// Heather and Mary are other accounts.
struct SharingFixture {
    let test: TestCloud
    let jermaine: Account, heather: Account, mary: Account
    let owner: CloudDatabase
    let notes: ZoneID
    let post: Record, comment: Record, otherPost: Record

    init(limits: CloudLimits = CloudLimits()) throws {
        test = try TestCloud(limits: limits)
        let cloud = test.cloud
        jermaine = try cloud.createAccount(name: "jermaine")
        heather = try cloud.createAccount(name: "heather")
        mary = try cloud.createAccount(name: "mary", email: "mary@corp.test")
        owner = cloud.database(.private, as: jermaine)
        notes = try owner.save(zone: ZoneID(name: "Notes"))
        post = try owner.save(.make("p1", in: notes, ["title": "Sharing demo is great"]))
        var comment = Record.make("c1", in: notes, type: "Comment", ["text": "nice"])
        comment.setParent("p1")
        self.comment = try owner.save(comment)
        otherPost = try owner.save(.make("p2", in: notes, ["title": "private thoughts"]))
    }

    var cloud: LocalCloud { test.cloud }

    func shared(_ account: Account) -> CloudDatabase { cloud.database(.shared, as: account) }

    /// The fetched post, shared with the given invitees.
    func sharePost(inviting invitees: [(Account, SharePermission)] = [], publicPermission: SharePermission = .none) throws -> SavedShare {
        var share = Share(rootRecord: post.id, title: "Sharing demo is great", type: "Post")
        share.publicPermission = publicPermission
        for (account, permission) in invitees {
            share.addParticipant(try owner.lookUpParticipant(email: account.email), permission: permission)
        }
        return try owner.saveShare(share, rootRecord: try owner.record(post.id))
    }

    func shareZone(inviting invitees: [(Account, SharePermission)] = []) throws -> SavedShare {
        var share = Share(zoneWide: notes, title: "Notes", type: "Notebook")
        for (account, permission) in invitees {
            share.addParticipant(try owner.lookUpParticipant(accountName: account.name), permission: permission)
        }
        return try owner.saveShare(share)
    }

    /// The records an account sees in its shared database, by name.
    func visible(to account: Account) throws -> Set<String> {
        Set(try shared(account).zoneChanges(in: notes, since: nil).modified.map(\.id.name))
    }

    /// Record `name` in the zone, as a participant names it.
    func id(_ name: String) -> RecordID { RecordID(name: name, zone: notes) }
}
