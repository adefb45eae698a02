import Foundation
@testable import FrontEnd
import Notes
import Testing

/// README's screens are captures of the app: each ```text block after a `<!-- capture: NAME -->` line must be
/// what the front end draws for that name, line for line (trailing spaces aside). When the app changes on
/// purpose, the failure prints the new screen to paste.
@Suite struct ReadmeCaptureTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The screens README shows, each drawn from the same few posts.
    static func screen(_ name: String) throws -> String? {
        let fixture = try Fixture()
        let trip = try fixture.store.createNotebook("Trip", owner: fixture.account.id)
        try fixture.post("Groceries", "milk, eggs", minute: 10, tags: ["home"])
        try fixture.post("Standup notes", "what I did · what is next", minute: 20, scope: .shared, owner: "_heather", by: "_heather")
        let pho = Post(id: "p-pho", zone: trip.zone, title: "Phở in Hà Nội", content: "Bún chả at noon, phở at dawn.\nThe lake at night.",
                       tags: ["food", "vn"])
        try fixture.store.save(pho, by: fixture.account.id, now: Fixture.moment.addingTimeInterval(30 * 60))
        let frontEnd = fixture.frontEnd()
        switch name {
        case "search":
            frontEnd.press(.char("/"))
            frontEnd.type("ha noi")
        case "help":
            frontEnd.press(.char("?"))
        case "palette":
            frontEnd.press(.char(":"))
            frontEnd.type("fi")
            frontEnd.press(.tab)
        default:
            return nil
        }
        return frontEnd.frame(width: 80, height: 24).lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n")
    }

    /// The captures README holds: (name, text).
    static func captures() throws -> [(String, String)] {
        let lines = try String(contentsOf: readme, encoding: .utf8).components(separatedBy: "\n")
        var found: [(String, String)] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: /<!-- capture: ([a-z-]+) -->/), index + 1 < lines.count, lines[index + 1] == "```text",
                  let end = lines[(index + 2)...].firstIndex(of: "```") else { continue }
            found.append((String(match.1), lines[(index + 2)..<end].joined(separator: "\n")))
        }
        return found
    }

    @Test func readmeShowsWhatTheAppDraws() throws {
        let captures = try Self.captures()
        #expect(Set(captures.map(\.0)) == ["search", "help", "palette"])
        for (name, shown) in captures {
            let drawn = try #require(try Self.screen(name), "README names a screen \(name) the test does not draw")
            #expect(drawn == shown, "README's \(name) screen is not what the app draws; it draws:\n\(drawn)")
        }
    }
}
