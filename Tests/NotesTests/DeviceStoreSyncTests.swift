import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// Two devices of one account, each with real store files, against one cloud.
struct TwoDevices {
    let test: TestCloud
    let heather: Account
    let dir = TemporaryDirectory("devices")
    let a: NotesSync, b: NotesSync
    let notes: Notebook

    /// `keys`: the devices share the account's keychain, so locations travel (sealed).
    /// `faults`: nil reads the cloud directory's fault switch (`setFaultPlan`) on each request.
    init(start: Date? = nil, keys: Bool = false, limits: CloudLimits = CloudLimits(), faults: FaultPlan? = .off) throws {
        test = try TestCloud(limits: limits, faults: faults, start: start)
        heather = try test.cloud.createAccount(name: "heather")
        let devices = dir
        let stores = try ["a", "b"].map { try DeviceStore(directory: devices.path($0)) }
        if keys {
            for store in stores { store.keyring = try Keyring(directory: devices.path("keychain"), account: heather, cloud: test.cloud) }
            try stores[0].keyring?.publish()
        }
        a = try NotesSync(store: stores[0], cloud: test.cloud, account: FixedAccount(heather))
        b = try NotesSync(store: stores[1], cloud: test.cloud, account: FixedAccount(heather))
        notes = try a.store.ensureDefaultNotebook(owner: heather.id)
        try a.syncNow()
        try b.syncNow()
    }

    func write(_ device: NotesSync, _ post: Post) throws { try device.store.save(post, by: heather.id, now: test.clock.now()) }
}

@Suite struct DeviceStoreSyncTests {
    @Test func aPostWrittenOnOneDeviceArrivesOnTheOther() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Groceries", content: "milk", tags: ["home"]))
        #expect(try d.a.store.pendingCount() == 1)

        try d.a.syncNow()
        try d.b.syncNow()

        #expect(try d.a.store.pendingCount() == 0)
        let post = try d.b.store.post("Groceries")
        #expect(post.content == "milk" && post.tags == ["home"] && post.createdBy == d.heather.id)
        #expect(try d.b.store.notebooks().map(\.title) == ["Notes"])
    }

    @Test func concurrentEditsOfDifferentLinesBothSurvive() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk\neggs\nbread"))
        try d.a.syncNow()
        try d.b.syncNow()
        var onA = try d.a.store.post("p1"), onB = try d.b.store.post("p1")
        onA.content = "oat milk\neggs\nbread"
        onB.content = "milk\neggs\nrye bread"
        try d.write(d.a, onA)
        try d.write(d.b, onB)

        try d.a.syncNow()
        try d.b.syncNow()  // fails with server record changed, merges, sends again
        try d.b.syncNow()
        try d.a.syncNow()

        for device in [d.a, d.b] {
            let post = try device.store.post("p1")
            #expect(post.content == "oat milk\neggs\nrye bread")
            #expect(!post.conflicted)
        }
    }

    @Test func anOverlappingEditIsKeptVisiblyAndFlagged() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "List", content: "milk"))
        try d.a.syncNow()
        try d.b.syncNow()
        var onA = try d.a.store.post("p1"), onB = try d.b.store.post("p1")
        onA.content = "milk from A"
        onB.content = "milk from B"
        try d.write(d.a, onA)
        try d.write(d.b, onB)

        try d.a.syncNow()
        try d.b.syncNow()

        let merged = try d.b.store.post("p1")
        #expect(merged.conflicted)
        #expect(merged.content.contains("milk from A") && merged.content.contains("milk from B"))
    }

    @Test func postsAreFoundByIDPrefixOrTitleAndAmbiguityIsRefused() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "abc1", zone: d.notes.zone, title: "One"))
        try d.write(d.a, Post(id: "abc2", zone: d.notes.zone, title: "Two"))
        #expect(try d.a.store.post("abc1").title == "One")
        #expect(try d.a.store.post("Two").id == "abc2")
        let ambiguous = #expect(throws: StoreError.self) { try d.a.store.post("abc") }
        #expect("\(ambiguous.map { "\($0)" } ?? "")".contains("abc1 in Notes ("), "each candidate with its notebook and owner")
        // Titles in any case, as `/` finds them; the exact spelling wins among case variants.
        #expect(try d.a.store.post("two").id == "abc2")
        try d.write(d.a, Post(id: "xyz1", zone: d.notes.zone, title: "TWO"))
        #expect(try d.a.store.post("TWO").id == "xyz1" && d.a.store.post("Two").id == "abc2")
        #expect(throws: StoreError.self) { try d.a.store.post("two") }
        #expect(throws: StoreError.unknownPost("zzz")) { try d.a.store.post("zzz") }
    }

    @Test func aDeletionTravels() throws {
        let d = try TwoDevices()
        try d.write(d.a, Post(id: "p1", zone: d.notes.zone, title: "Gone soon"))
        try d.a.syncNow()
        try d.b.syncNow()
        try d.b.store.delete(try d.b.store.post("p1"))
        try d.b.syncNow()
        try d.a.syncNow()
        #expect(throws: StoreError.unknownPost("p1")) { try d.a.store.post("p1") }
    }
}
