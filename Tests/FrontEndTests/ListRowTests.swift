import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing

/// What a list row says of its post: markers, comment count, how long ago, whose and by whom, as the width allows.
@Suite struct ListRowTests {
    /// Heather's post shared with jermaine, two comments on it, written by her (unread); one of jermaine's shared
    /// with mary; one whose share has nobody left; one never shared.
    func fixture() throws -> (Fixture, heathers: Post) {
        let fixture = try Fixture()
        let heathers = try fixture.post("Heather's plan", "tea", minute: 50, scope: .shared, by: "_heather")
        for (index, text) in ["yes", "no"].enumerated() {
            try fixture.store.add(Comment(id: "c\(index)", postID: heathers.id, zone: heathers.zone, scope: .shared, text: text),
                                  by: "_mary", now: Fixture.moment)
        }
        let shared = try fixture.post("Shared with mary", minute: 40)
        let emptied = try fixture.post("Share emptied", minute: 30)
        try fixture.post("Mine alone", minute: 20)
        fixture.sharing.shares[shared.id] = Fixture.share(of: shared)
        var nobody = Fixture.share(of: emptied)
        nobody.participants.removeAll { $0.role != .owner }
        fixture.sharing.shares[emptied.id] = nobody
        return (fixture, heathers)
    }

    @Test func aWideListShowsMarkersCountsAgeNotebookOwnerAndEditor() throws {
        let (fixture, _) = try fixture()
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.down)  // off Heather's post, so it stays unread
        let lines = frontEnd.frame(width: 200, height: 60).lines.map { $0.components(separatedBy: "││")[0] }
        #expect(lines[2] == "│●«  ↑ Heather's plan (2)                   10m  Notes (heather)     heather   ")
        #expect(lines[3] == "│ »  ↑ Shared with mary                     20m  Notes               you       ")
        #expect(lines[4] == "│    ↑ Share emptied                        30m  Notes               you       ")
        #expect(lines[5] == "│    ↑ Mine alone                           40m  Notes               you       ")
    }

    @Test func aNarrowListKeepsMarkersCountAndAge() throws {
        let (fixture, _) = try fixture()
        let frontEnd = fixture.frontEnd()
        frontEnd.press(.down)
        let lines = frontEnd.frame(width: 80, height: 24).lines.map { $0.components(separatedBy: "││")[0] }
        #expect(lines[2] == "│●«  ↑ Heather's pl… (2)    10m")
        #expect(lines[3] == "│ »  ↑ Shared with mary     20m")
    }

    /// Shown once, a post is no longer new, here and for the next front end on this device, until someone edits it.
    @Test func showingAPostMarksItSeenUntilSomeoneElseEditsIt() throws {
        let (fixture, heathers) = try fixture()
        let first = fixture.frontEnd()
        #expect(first.frame(width: 200, height: 60).lines[2].hasPrefix("│ «  ↑ Heather's plan"))  // selected, so seen
        #expect(!fixture.frontEnd().frame(width: 200, height: 60).lines[2].hasPrefix("│●"))

        var edited = heathers
        edited.content = "coffee"
        try fixture.store.save(edited, by: "_heather", now: Fixture.moment.addingTimeInterval(3_600 + 60))
        let later = fixture.frontEnd()
        later.press(.down)
        #expect(later.frame(width: 200, height: 60).lines[2].hasPrefix("│●«  ↑ Heather's plan"))
        try fixture.store.save(edited, by: "_jermaine", now: Fixture.moment.addingTimeInterval(3_600 + 120))
        let mine = fixture.frontEnd()
        mine.press(.down)
        #expect(mine.frame(width: 200, height: 60).lines[2].hasPrefix("│ «  ↑ Heather's plan"))  // his own edit is not news to him
    }
}

/// Notices as the front end says them: once, on the message line, and listed by :notices, at both sizes.
@Suite struct NoticeRenderTests {
    @Test func aNoticeIsSaidOnceAndListedAtEitherSize() throws {
        let fixture = try Fixture()
        try fixture.post("Groceries", minute: 1)
        try fixture.store.addNotices([
            Notice(at: Fixture.moment, kind: .removed, by: "_heather", subject: "\"Standup notes\""),
            Notice(at: Fixture.moment.addingTimeInterval(1_800), kind: .permission, by: "_heather", subject: "\"Meeting\"", detail: "read-only"),
        ])
        let frontEnd = fixture.frontEnd()
        for (width, height) in [(80, 24), (200, 60)] {
            let said = frontEnd.frame(width: width, height: height)
            #expect(said.lines[height - 2].hasPrefix("heather removed you from \"Standup notes\" (and 1 more: :notices)"))
        }
        #expect(try fixture.store.takeUnshownNotices().isEmpty)  // said once: no other front end says it again

        frontEnd.runCommandLine("notices")
        for (width, height) in [(80, 24), (200, 60)] {
            let listed = frontEnd.frame(width: width, height: height).text
            #expect(listed.contains("Notices · Esc closes"))
            #expect(listed.contains("30m    your permission on \"Meeting\" is now read-only"))
            #expect(listed.contains("1h     heather removed you from \"Standup notes\""))
        }
    }
}
