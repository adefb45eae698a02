import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing
import TestSupport

/// While heather has the editor open on a shared post, jermaine's screen says so; when she leaves it, it stops.
@Suite struct PresenceTests {
    @Test func anOpenEditorIsSeenByTheOthersAndGoneWhenItCloses() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        _ = try cloud.cloud.accountCreatingIfNeeded(name: "heather")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory)
        let zone = try jermaine.store.ensureDefaultNotebook(owner: jermaine.account.id).zone
        try jermaine.store.save(Post(id: "p1", zone: zone, title: "Meeting", content: "agenda"), by: jermaine.account.id, now: Date())
        try jermaine.store.save(Post(id: "p0", zone: zone, title: "Alone"), by: jermaine.account.id, now: Date(timeIntervalSinceNow: -60))
        jermaine.sync.now()
        let sharing = PostSharing(store: jermaine.store, cloud: cloud.cloud, account: jermaine.account)
        guard case .shared(let url) = try sharing.share(try jermaine.store.post("p1"), inviting: ["heather"], permission: .readWrite) else {
            Issue.record("not shared")
            return
        }
        _ = try cloud.cloud.acceptShare(url, as: heather.account)
        heather.sync.now()
        jermaine.sync.now()
        #expect(!jermaine.screen.contains("is editing"))

        heather.frontEnd.press(.char("e"))
        _ = heather.screen  // the frame announces it
        jermaine.sync.now()
        let seen = jermaine.screen
        #expect(seen.contains("heather is editing \"Meeting\"") && seen.contains("Editing   heather now"), "\(seen)")

        heather.frontEnd.press(.escape)
        _ = heather.screen
        jermaine.sync.now()
        #expect(!jermaine.screen.contains("Editing   heather"))

        // An editor on a post nobody else reads says nothing to anyone.
        jermaine.frontEnd.press(.char("j"), .char("e"))
        _ = jermaine.screen
        #expect(try cloud.cloud.database(.private, as: jermaine.account).records([RecordID(name: "presence-\(jermaine.account.id)-p0", zone: zone)])
            .values.allSatisfy { if case .failure = $0 { true } else { false } })
    }
}
