import Cloud
import Foundation
import Notes
import Sync
import Testing
import TestSupport

@Suite struct AccountChangeTests {
    @Test func signingADeviceIntoAnotherAccountHidesThePreviousAccountsData() throws {
        let test = try TestCloud()
        let dir = TemporaryDirectory("account")
        let heather = try test.cloud.createAccount(name: "heather"), mary = try test.cloud.createAccount(name: "mary")
        let account = SwitchableAccount(heather)
        let sync = try NotesSync(store: try DeviceStore(directory: dir.path("device")), cloud: test.cloud, account: account)
        let notes = try sync.store.ensureDefaultNotebook(owner: heather.id)
        try sync.store.save(Post(id: "p1", zone: notes.zone, title: "heather's"), by: heather.id, now: Date())
        try sync.syncNow()
        try sync.store.save(Post(id: "p2", zone: notes.zone, title: "unsent"), by: heather.id, now: Date())

        account.signIn(mary)
        try sync.syncNow()

        #expect(try sync.store.posts().isEmpty, "the previous account's data is no longer shown")
        #expect(try sync.store.pendingCount() == 0)
        #expect(try test.cloud.database(.private, as: mary).allZones().isEmpty, "nothing of heather's reached mary")
    }
}

@Suite struct DeviceLockTests {
    @Test func oneProcessAtATimeSyncsADevice() throws {
        let dir = TemporaryDirectory("lock")
        let first = DeviceLock(directory: dir.url)
        #expect(first != nil)
        // A second descriptor, as another process would have: flock locks belong to the open file.
        #expect(DeviceLock(directory: dir.url) == nil)
        _ = first
    }
}
