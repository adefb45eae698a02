import Cloud
import Foundation
import Testing
import TestSupport

/// A record a participant cannot read is unknown to them whatever they send: saving over it with another type
/// answers as for a record that does not exist, never with what it is.
@Suite struct HiddenRecordTests {
    @Test func savingOverAnUnreadableRecordWithAnotherTypeSaysNothingOfIt() throws {
        let f = try SharingFixture()
        try f.cloud.acceptShare(try f.sharePost(inviting: [(f.heather, .readWrite)]).url!, as: f.heather)
        var probe = Record.make("p2", in: f.notes, type: "Comment", ["text": "probe"])  // p2: jermaine's private post
        probe.setParent("p1")
        #expect(throws: CloudError.unknownItem(f.id("p2"))) { try f.shared(f.heather).save(probe, policy: .allKeys) }
        probe = Record.make("p2", in: f.notes, type: "Post", ["text": "probe"])
        probe.setParent("p1")
        #expect(throws: CloudError.unknownItem(f.id("p2"))) { try f.shared(f.heather).save(probe, policy: .allKeys) }
    }
}
