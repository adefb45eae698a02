import Cloud
import CloudClient
import Foundation
import Testing
import TestSupport

/// A server tells an account another's email and ID only when they already share something, or for the exact email
/// (as inviting needs): no account can list the people of the cloud by guessing names or IDs.
@Suite(.serialized) struct LookupTests {
    @Test func namesAndIDsFindOnlyThePeopleOneSharesWith() throws {
        let f = try ServerFixture()
        let zed = try f.cloud.createAccount(name: "zed", email: "zed@corp.test")
        let remote = f.remote()
        let mine = remote.database(.private, as: f.heather)
        #expect(throws: CloudError.unknownAccount("zed")) { try remote.account(named: "zed") }
        #expect(try remote.account(id: zed.id) == nil)
        #expect(throws: CloudError.unknownAccount("zed")) { try mine.lookUpParticipant(accountName: "zed") }
        #expect(try mine.lookUpParticipant(email: "zed@corp.test").userRecordID == zed.id)  // the exact email, as inviting needs

        // Once they share something, each finds the other by name and ID.
        let notes = try mine.save(zone: ZoneID(name: "Notes"))
        var share = Share(zoneWide: notes, title: "Notes", type: "Notebook")
        share.addParticipant(try mine.lookUpParticipant(email: "zed@corp.test"), permission: .readOnly)
        _ = try mine.saveShare(share)
        #expect(try remote.account(named: "zed").id == zed.id)
        #expect(try remote.account(id: zed.id)?.email == "zed@corp.test")
        #expect(try mine.lookUpParticipant(accountName: "zed").userRecordID == zed.id)
    }
}
