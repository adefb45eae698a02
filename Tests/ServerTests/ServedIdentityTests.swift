import Cloud
@testable import CloudClient
import Foundation
import Testing
import TestSupport

/// Every answer of a server names the cloud that gave it (its identity and sequence, in a header), as its own
/// transaction saw it: after the store went back in history, the very next answer names a new cloud, so a
/// device never takes the older copy's data for the cloud it synced with.
@Suite struct ServedIdentityTests {
    @Test func anAnswerAfterTheStoreWentBackNamesANewCloud() throws {
        let f = try ServerFixture()
        let remote = f.remote()
        let db = remote.database(.private, as: f.heather)
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        try db.save(Record.make("p1", in: zone))
        let tampering = StoreTampering(directory: f.directory.url)
        let backup = try tampering.snapshot()
        try db.save(Record.make("p2", in: zone))
        let before = try remote.identity()  // as the save's answer named it
        #expect(before == (try f.cloud.identity()))

        try tampering.restore(backup)
        _ = try db.allZones()  // a read, whose answer names the cloud
        let after = try remote.identity()
        #expect(after.id != before.id && after.sequence >= before.sequence, "\(before) → \(after)")
        #expect(after == (try f.cloud.identity()))
    }
}
