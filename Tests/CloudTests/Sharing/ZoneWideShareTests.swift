import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct ZoneWideShareTests {
    @Test func everyRecordOfTheZoneIsSharedIncludingLaterOnes() throws {
        let f = try SharingFixture()
        let saved = try f.shareZone(inviting: [(f.heather, .readWrite)])
        #expect(saved.share.isZoneWide && saved.share.id.name == Share.zoneWideRecordName)
        try f.cloud.acceptShare(saved.url!, as: f.heather)

        try f.owner.save(.make("p3", in: f.notes, ["title": "later"]))

        #expect(try f.visible(to: f.heather) == ["p1", "c1", "p2", "p3", Share.zoneWideRecordName])
    }

    @Test func aZoneHasEitherOneZoneWideShareOrHierarchicalShares() throws {
        let f = try SharingFixture()
        _ = try f.sharePost()
        #expect(throws: CloudError.invalidArguments("zone Notes already has shares of single records; it cannot also be shared as a whole")) {
            try f.shareZone()
        }

        let g = try SharingFixture()
        _ = try g.shareZone()
        #expect(throws: CloudError.alreadyShared(g.post.id)) { try g.sharePost() }
    }

    @Test func theDefaultZoneCannotBeShared() throws {
        let f = try SharingFixture()
        let defaultZone = ZoneID(name: ZoneID.defaultName)
        #expect(throws: CloudError.invalidArguments("the default zone cannot be shared")) {
            try f.owner.saveShare(Share(zoneWide: defaultZone, title: "all"))
        }
        let loose = try f.owner.save(.make("loose", in: defaultZone))
        #expect(throws: CloudError.invalidArguments("the default zone cannot be shared")) {
            try f.owner.saveShare(Share(rootRecord: loose.id, title: "loose"), rootRecord: loose)
        }
    }

    @Test func aZoneWideShareHasNoRootAndItsName() throws {
        let f = try SharingFixture()
        var misnamed = Share(zoneWide: f.notes, title: "x")
        misnamed.id = RecordID(name: "other", zone: f.notes)
        #expect(throws: CloudError.self) { try f.owner.saveShare(misnamed) }
        #expect(throws: CloudError.self) { try f.owner.saveShare(Share(zoneWide: f.notes, title: "x"), rootRecord: f.post) }
    }
}
