import Cloud
import Foundation
import Testing
import TestSupport

@Suite struct AccessTests {
    @Test func onlyTheOwnerReadsOrWritesAPrivateDatabase() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather")
        let mary = try test.privateDatabase("mary")
        let notes = try heather.save(zone: ZoneID(name: "Notes"))
        let post = try heather.save(.make("p1", in: notes, ["title": "secret"]))
        let refusal = CloudError.permissionFailure("only the owner reads or writes a private database")

        #expect(throws: refusal) { try mary.record(post.id) }
        #expect(throws: refusal) { try mary.save(.make("p2", in: notes)) }
        #expect(throws: refusal) { try mary.delete(post.id) }
        #expect(throws: refusal) { try mary.delete(zone: notes) }
        #expect(throws: refusal) { try mary.zoneChanges(in: notes, since: nil) }
        #expect(try mary.allZones().isEmpty)
        #expect(try heather.record(post.id) == post)
    }

    @Test func aZoneOfTheSameNameInAnotherAccountIsAnotherZone() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather"), mary = try test.privateDatabase("mary")
        let hers = try heather.save(zone: ZoneID(name: "Notes"))
        try heather.save(.make("p1", in: hers))
        let marys = try mary.save(zone: ZoneID(name: "Notes"))
        #expect(throws: CloudError.unknownItem(RecordID(name: "p1", zone: marys))) {
            try mary.record(RecordID(name: "p1", zone: ZoneID(name: "Notes")))
        }
        // Her own p1 is new: not heather's p1 changed under her.
        let created = try mary.save(.make("p1", in: marys, ["title": "mary's"]))
        #expect(created.system?.createdBy == (try test.cloud.account(named: "mary")).id)
        #expect(try heather.record(RecordID(name: "p1", zone: hers)).string("title") == nil, "heather's p1 is untouched")
    }

    @Test func publicDatabaseEveryoneReadsAnyoneCreatesOnlyTheCreatorChanges() throws {
        let test = try TestCloud()
        let heather = test.cloud.database(.public, as: try test.cloud.createAccount(name: "heather"))
        let mary = test.cloud.database(.public, as: try test.cloud.createAccount(name: "mary"))
        let zone = ZoneID(name: ZoneID.defaultName)
        let notice = try heather.save(.make("notice", in: zone, ["title": "hello"]))

        #expect(try mary.record(notice.id) == notice)
        #expect(throws: Never.self) { try mary.save(.make("reply", in: zone)) }
        var edit = try mary.record(notice.id)
        edit["title"] = .string("defaced")
        let refusal = CloudError.permissionFailure("only its creator changes a record in the public database")
        #expect(throws: refusal) { try mary.save(edit) }
        #expect(throws: refusal) { try mary.delete(notice.id) }
        #expect(try heather.record(notice.id).string("title") == "hello")
        #expect(throws: Never.self) { try heather.delete(notice.id) }
        #expect(throws: CloudError.self) { try heather.save(zone: ZoneID(name: "Custom")) }
        #expect(Set(try mary.zoneChanges(in: zone, since: nil).modified.map(\.id.name)) == ["reply"])
    }

    @Test func theSharedDatabaseStartsEmptyAndRefusesZones() throws {
        let test = try TestCloud()
        let heather = try test.privateDatabase("heather")
        let notes = try heather.save(zone: ZoneID(name: "Notes"))
        let maryShared = test.cloud.database(.shared, as: try test.cloud.createAccount(name: "mary"))
        #expect(try maryShared.allZones().isEmpty)
        #expect(throws: CloudError.zoneNotFound(notes)) { try maryShared.zoneChanges(in: notes, since: nil) }
        #expect(throws: CloudError.zoneNotFound(notes)) { try maryShared.save(.make("x", in: notes)) }
    }
}

@Suite struct ContainerTests {
    @Test func containersInOneDirectoryKeepTheirDatabasesApart() throws {
        let test = try TestCloud()
        let heather = try test.cloud.createAccount(name: "heather")
        let other = try TestStore.open(directory: test.directory.url, container: "iCloud.other")
        try test.cloud.database(.private, as: heather).save(zone: ZoneID(name: "Notes"))

        #expect(test.cloud.container == "iCloud.cloudnotes")
        #expect(try other.database(.private, as: heather).allZones().isEmpty)
        #expect(try other.account(named: "heather") == heather, "accounts span containers, as iCloud accounts do")
    }
}
