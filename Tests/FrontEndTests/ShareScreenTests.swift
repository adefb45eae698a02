import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing
import TestSupport

/// `s` on a shared post opens its share as it is: the URL again (from its sealed link), on lines of its own,
/// for the owner on any device and for an accepted participant; the people; the owner's changes.
@Suite struct ShareScreenTests {
    @Test func theURLShowsAgainOnLinesOfItsOwnForTheOwnerAndAParticipant() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory, keys: true)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory, keys: true)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Sharing demo is great")
        jermaine.frontEnd.press(.ctrl("s"), .char("s"))
        jermaine.frontEnd.type("heather")
        jermaine.frontEnd.press(.enter)
        _ = jermaine.screen
        let url = try #require(jermaine.frontEnd.clipboard)

        for (width, height) in [(80, 24), (200, 60)] {
            let page = jermaine.frontEnd.frame(width: width, height: height).lines
            #expect(page.contains { $0.contains("Share of \"Sharing demo is great\" · yours") })
            // The URL alone on its lines, from the left edge: joined back, it is the URL, with no border in it.
            let start = try #require(page.firstIndex { $0.hasPrefix("cloudnotes://share/") }, "\(page.joined(separator: "\n"))")
            let urlLines = page[start...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(urlLines.map { $0.trimmingCharacters(in: .whitespaces) }.joined() == url)
            #expect(urlLines.allSatisfy { !$0.contains("│") })
            #expect(page.contains { $0.contains("heather") && $0.contains("read-write") && $0.contains("pending") })
        }
        jermaine.frontEnd.press(.escape)
        jermaine.frontEnd.clipboard = nil
        jermaine.frontEnd.press(.char("s"), .char("y"))  // opened again later: the URL from the sealed link
        #expect(jermaine.frontEnd.clipboard == url)
        jermaine.frontEnd.press(.char("P"))
        _ = jermaine.screen
        #expect(jermaine.screen.contains("Anyone with the URL: read-only"))

        heather.frontEnd.runCommandLine("accept \(url)")
        heather.sync.now()
        heather.frontEnd.press(.char("s"))
        let hers = heather.screen
        #expect(hers.contains("shared with you by jermaine") && hers.contains(String(url.prefix(60))), "\(hers)")
        heather.frontEnd.press(.char("i"))
        #expect(heather.screen.contains("only the owner changes the share"))
    }
}

/// Asking for access from the accept prompt, answering from the inbox, and a one-time link from the share screen.
@Suite struct AccessRequestScreenTests {
    @Test func aStrangerAsksTheOwnerLetsThemInAndAOneTimeLinkAdmitsOne() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        for name in ["heather", "mary", "ann"] { _ = try cloud.cloud.accountCreatingIfNeeded(name: name) }  // known to every front end
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory, keys: true)
        let mary = try Device("mary", cloud: cloud.cloud, directory: directory, keys: true)
        let ann = try Device("ann", cloud: cloud.cloud, directory: directory, keys: true)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Trip")
        jermaine.frontEnd.press(.ctrl("s"), .char("s"))
        jermaine.frontEnd.type("heather")
        jermaine.frontEnd.press(.enter)
        _ = jermaine.screen
        let url = try #require(jermaine.frontEnd.clipboard)
        jermaine.frontEnd.press(.escape)

        mary.frontEnd.runCommandLine("accept \(url)")
        let asked = mary.screen
        #expect(asked.contains("You are not invited to this share.") && asked.contains("[ Ask for access ]"), "\(asked)")
        mary.frontEnd.press(.char("y"))
        #expect(mary.screen.contains("asked the owner to let you in"))

        jermaine.sync.now()
        #expect(jermaine.screen.contains("✉ 1 request (I)"))
        jermaine.frontEnd.press(.char("I"))
        #expect(jermaine.screen.contains("mary asks to join \"Trip\""))
        jermaine.frontEnd.press(.char("a"))
        #expect(jermaine.screen.contains("let in mary for \"Trip\""))
        mary.frontEnd.runCommandLine("accept \(url)")
        mary.sync.now()
        #expect(mary.screen.contains("Trip"))

        jermaine.frontEnd.press(.char("s"), .char("o"))
        let page = jermaine.screen
        let once = try #require(jermaine.frontEnd.clipboard)
        #expect(once != url && page.contains("One-time link"), "\(page)")
        ann.frontEnd.runCommandLine("accept \(once)")
        ann.sync.now()
        #expect(try ann.store.postCount() == 1)
    }

    /// Changing who the URL admits (P) after making a one-time link: the screen shows what stands then, never
    /// a link that no longer admits anyone.
    @Test func aOneTimeLinkOnTheScreenStaysTrueAfterP() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        for name in ["heather", "ann"] { _ = try cloud.cloud.accountCreatingIfNeeded(name: name) }
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory, keys: true)
        let ann = try Device("ann", cloud: cloud.cloud, directory: directory, keys: true)
        jermaine.frontEnd.press(.char("a"))
        jermaine.frontEnd.type("Trip")
        jermaine.frontEnd.press(.ctrl("s"), .char("s"))
        jermaine.frontEnd.type("heather")
        jermaine.frontEnd.press(.enter)
        _ = jermaine.screen
        jermaine.frontEnd.press(.escape)
        jermaine.frontEnd.press(.char("s"), .char("o"))
        _ = jermaine.screen
        let once = try #require(jermaine.frontEnd.clipboard)
        jermaine.frontEnd.press(.char("P"))
        jermaine.sync.now()
        let page = jermaine.screen
        ann.frontEnd.runCommandLine("accept \(once)")
        ann.sync.now()
        let admitted = try ann.store.postCount() == 1
        #expect(admitted || !page.contains(once.prefix(40)), "the screen shows a one-time link that admits nobody:\n\(page)\n\(ann.screen)")
        #expect(page.contains("URL (y copies it):") && !page.contains("One-time link"), "\(page)")
        #expect(page.contains("2 invitations nobody accepted no longer admit anyone (a one-time link among them)"), "heather's and the link's: \(page)")
    }

    /// Two invitations: accepting one leaves the inbox open on the other, so the next `a` accepts it too
    /// (it once closed the inbox, and the next `a` began a new post).
    @Test func theInboxStaysOpenAcrossAccepts() throws {
        let cloud = try TestCloud()
        let directory = TemporaryDirectory("devices")
        let jermaine = try Device("jermaine", cloud: cloud.cloud, directory: directory, keys: true)
        let heather = try Device("heather", cloud: cloud.cloud, directory: directory, keys: true)
        for title in ["Trip", "Recipes"] {
            jermaine.frontEnd.press(.char("a"))
            jermaine.frontEnd.type(title)
            jermaine.frontEnd.press(.ctrl("s"), .char("s"))
            jermaine.frontEnd.type("heather")
            jermaine.frontEnd.press(.enter)
            _ = jermaine.screen
            jermaine.frontEnd.press(.escape)
        }
        heather.sync.now()
        heather.frontEnd.press(.char("I"))
        #expect(heather.screen.contains("from jermaine"))
        heather.frontEnd.press(.char("a"))
        let after = heather.screen
        guard case .inbox(let left) = heather.frontEnd.state.mode else { Issue.record("the inbox closed:\n\(after)"); return }
        #expect(left.invitations.count == 1 && after.contains("accepted"), "\(after)")
        heather.frontEnd.press(.char("a"))
        #expect(heather.frontEnd.state.mode == .browse, "the last one answered: the inbox closes")
        heather.sync.now()
        #expect(try heather.store.postCount() == 2)
    }
}
