import Foundation
import Testing
import TestSupport

/// `share` on a post shared already changes what it is told to (`--public`), never ignoring it; a new share
/// nobody can join says how people join (on stderr: stdout is the URL alone, for scripts).
@Suite struct ShareAgainTests {
    @Test func publicOnASharedPostAppliesAndAShareNobodyCanJoinSaysSo() throws {
        let app = try App(.directory)
        _ = try app.ok("new", "Recipe", "--body", "soup", as: "jermaine")
        for name in ["heather", "mary"] { _ = try app.ok("status", as: name) }
        let made = try app.run("share", "Recipe", as: "jermaine")
        #expect(made.status == 0 && made.stderr.contains("nobody can join \"Recipe\" yet") && made.stderr.contains("--invite"), "\(made.stderr)")
        let url = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("cloudnotes://") || url.contains("share"), "the URL alone on stdout: \(made.stdout)")
        #expect(try app.run("accept", url, as: "heather").status != 0, "nobody invited, nobody let in by the URL")

        let opened = try app.run("share", "Recipe", "--public", "read-only", as: "jermaine")
        #expect(opened.status == 0 && opened.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == url, "\(opened.stdout)")
        #expect(opened.stderr.contains("anyone with the URL of \"Recipe\": read-only now"), "\(opened.stderr)")
        #expect(!opened.stderr.contains("nobody can join"))
        #expect(try app.ok("accept", url, as: "heather").contains("accepted \"Recipe\""))
        #expect(try app.ok("show", "Recipe", as: "heather").contains("soup"))

        _ = try app.ok("share", "Recipe", "--public", "none", as: "jermaine")
        let refused = try app.run("accept", url, as: "mary")
        #expect(refused.status != 0, "the URL admits nobody again: \(refused.stdout)")
    }
}
