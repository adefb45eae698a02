import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Sync
import Testing
import TestSupport

/// A sync that runs at once when asked, so a test sees its effect on the next frame.
final class ImmediateSync: SyncControl, @unchecked Sendable {
    let sync: NotesSync
    weak var frontEnd: FrontEnd?
    init(_ sync: NotesSync) { self.sync = sync }
    func changesAdded() { now() }
    func refresh() { now() }

    /// Syncs and tells the front end, as `LiveSync` does after each round.
    func now() {
        do {
            try sync.syncNow()
            cloudChanged = false
        } catch {
            if case .cloudChanged? = error as? SyncError { cloudChanged = true }
        }
        frontEnd?.storeChanged(LiveSync.Update(inbox: sync.inboxCount()))
    }
    func status() -> LiveSync.Status { .synced }
    private(set) var cloudChanged = false
    func reupload() {
        try? sync.reupload()
        cloudChanged = false
        frontEnd?.storeChanged()
    }
}

/// One account's device with a front end over a real cloud: the real sharing provider and sharing actions.
struct Device {
    let store: DeviceStore
    let account: Account
    let sync: ImmediateSync
    let frontEnd: FrontEnd

    /// `keys`: the device has its account's keychain, as the app's devices do (locations and share links are sealed).
    /// `background`: where the front end's cloud calls run (at once, by default; a test may hold them).
    init(_ name: String, cloud: LocalCloud, directory: TemporaryDirectory, keys: Bool = false,
         background: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() }) throws {
        account = try cloud.accountCreatingIfNeeded(name: name)
        store = try DeviceStore(directory: directory.path(name))
        if keys {
            store.keyring = try Keyring(directory: directory.path(name + "-keychain"), account: account, cloud: cloud)
            try store.keyring?.publish()
        }
        _ = try store.ensureDefaultNotebook(owner: account.id)
        sync = ImmediateSync(try NotesSync(store: store, cloud: cloud, account: FixedAccount(account)))
        let names = try AccountNames(cloud)
        frontEnd = FrontEnd(context: FrontEndContext(
            store: store, account: account, device: name,
            sharing: StoreSharingProvider(store: store, account: account) { names($0) }, names: { names($0) },
            postSharing: PostSharing(store: store, cloud: cloud, account: account), sync: sync, background: background))
        sync.frontEnd = frontEnd
    }

    var screen: String { frontEnd.frame(width: 120, height: 36).text }
}

@Suite struct SharingFlowTests {
    /// A share with nobody invited, open to anyone with its URL, says so (not "the people you invited"), and the
    /// dialog's values stand apart from their labels.
    @Test func aPublicOnlyShareSaysWhoTheURLIsFor() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Open to all")
        jermaine.frontEnd.press(.ctrl("s"))
        jermaine.frontEnd.press(.char("s"))
        #expect(jermaine.screen.contains("Anyone with URL: < none >"), "\(jermaine.screen)")
        jermaine.frontEnd.press(.tab, .tab, .char(" "), .enter)
        let shown = jermaine.screen
        #expect(shown.contains("Anyone with the URL: read-only"), "\(shown)")
        #expect(!shown.contains("people you invited"))
    }

    @Test func shareAcceptChangePermissionAndRemoveFromTheFrontEnds() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory)

        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Sharing demo is great")
        jermaine.frontEnd.press(.ctrl("s"))
        #expect(jermaine.screen.contains("\"Sharing demo is great\" written"))

        // The dialog: a public share takes no invitations (the cloud says so, the dialog stays)...
        jermaine.frontEnd.press(.char("s"))
        jermaine.frontEnd.type("heather")
        jermaine.frontEnd.press(.tab, .char(" "), .tab, .right, .enter)
        #expect(jermaine.screen.contains("not shared: invalid arguments: a public share takes no invitations"))
        #expect(jermaine.frontEnd.clipboard == nil)
        // ...so heather, read-only, private: the URL shows and goes to the clipboard.
        jermaine.frontEnd.press(.left, .enter)
        let shown = jermaine.screen  // results of cloud calls arrive with the next frame
        let url = try #require(jermaine.frontEnd.clipboard, "\(shown)")
        #expect(url.hasPrefix("cloudnotes://share/"))
        let dialog = jermaine.screen
        #expect(dialog.contains("send them this URL") && dialog.contains(url), "\(dialog)")
        jermaine.frontEnd.press(.enter)
        #expect(jermaine.screen.contains("┌─ Participants ─"))

        // Heather accepts from her front end's command line; the post arrives shared and read-only.
        heather.frontEnd.press(.char(":"))
        heather.frontEnd.type("accept \(url)")
        heather.frontEnd.press(.enter)
        let arrived = heather.screen
        #expect(arrived.contains("«⊘") && arrived.contains("Sharing demo is great"), "\(arrived)")
        heather.frontEnd.press(.char("e"))
        #expect(heather.frontEnd.state.mode == .browse)

        // Jermaine makes heather read-write from the participants pane; her edit then goes through.
        jermaine.sync.now()
        _ = jermaine.screen
        jermaine.frontEnd.press(.tab, .tab, .char("j"), .char("p"))
        #expect(jermaine.screen.contains("heather is now read-write"))  // her name, as the pane shows it, not her email
        heather.sync.now()
        #expect(!heather.screen.contains("⊘"))
        heather.frontEnd.press(.char("e"))
        heather.frontEnd.type(" and heather")
        heather.frontEnd.press(.ctrl("s"))
        jermaine.sync.now()
        #expect(jermaine.screen.contains("and heather"))

        // Removing her (confirmed; Cancel first) takes the post from her device only.
        jermaine.frontEnd.press(.char("x"), .enter)
        #expect(try heather.store.postCount() == 1)
        jermaine.frontEnd.press(.char("x"), .char("y"))
        #expect(jermaine.screen.contains("removed heather"))
        heather.sync.now()
        #expect(try heather.store.postCount() == 0)
        #expect(heather.screen.contains("Posts (0)"))
        #expect(try jermaine.store.postCount() == 1)
    }

    @Test func aSharedNotebookReachesItsParticipantsAndTheyMayLeave() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Trip plan")
        jermaine.frontEnd.press(.ctrl("s"), .char("b"))
        #expect(jermaine.screen.contains("Share notebook Notes"))
        jermaine.frontEnd.type("heather")
        jermaine.frontEnd.press(.enter)
        _ = jermaine.screen
        let url = try #require(jermaine.frontEnd.clipboard)
        jermaine.frontEnd.press(.enter)
        heather.frontEnd.runCommandLine("accept \(url)")
        #expect(heather.screen.contains("Trip plan"))
        // A post written later in the notebook reaches her too.
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Packing list")
        jermaine.frontEnd.press(.ctrl("s"))
        heather.frontEnd.press(.char("r"))
        #expect(heather.screen.contains("Packing list"))
        // She leaves the notebook, and is told so: every post of it goes, not only the one selected.
        heather.frontEnd.press(.char("L"))
        #expect(heather.screen.contains("Leave notebook Notes (2 posts)? Only you lose its"), "\(heather.screen)")
        heather.frontEnd.press(.char("y"))
        #expect(heather.screen.contains("left notebook Notes (2 posts)"), "\(heather.screen)")
        heather.sync.now()
        #expect(try heather.store.postCount() == 0)
        #expect(try jermaine.store.postCount() == 2)
        jermaine.frontEnd.press(.char("X"))
        #expect(jermaine.screen.contains("Stop sharing notebook Notes (2 posts)?"), "\(jermaine.screen)")
    }
}

/// A cloud emptied under an open front end: the posts stay, and `:reupload` rebuilds it.
@Suite struct CloudLossOnScreenTests {
    @Test func anEmptiedCloudIsRebuiltWithReupload() throws {
        let test = try TestCloud()
        let directory = TemporaryDirectory("frontend-loss")
        let jermaine = try Device("jermaine", cloud: test.cloud, directory: directory)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Only copy")
        jermaine.frontEnd.press(.ctrl("s"))
        #expect(jermaine.frontEnd.disabledReason(.reupload) != nil)

        try CloudTampering(directory: test.directory.url).empty()
        jermaine.frontEnd.press(.char("r"))
        #expect(try jermaine.store.posts().map(\.title) == ["Only copy"])
        #expect(jermaine.frontEnd.disabledReason(.reupload) == nil)
        jermaine.frontEnd.press(.char(":"))
        jermaine.frontEnd.type("reupload")
        jermaine.frontEnd.press(.enter)
        let db = test.cloud.database(.private, as: jermaine.account)
        let records = try db.allZones().flatMap { try db.zoneChanges(in: $0, since: nil).modified }
        #expect(records.contains { $0.string("title") == "Only copy" })
    }
}
