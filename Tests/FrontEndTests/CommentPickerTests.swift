import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing

/// Comments in the detail say who and when; `C` lists them, and only their authors edit or delete them.
@Suite struct CommentPickerTests {
    func fixture() throws -> (Fixture, FrontEnd) {
        let fixture = try Fixture()
        let post = try fixture.post("Trip", "tickets", minute: 1)
        try fixture.store.add(Comment(id: "c1", postID: post.id, zone: post.zone, scope: .private, text: "bring tea"),
                              by: "_heather", now: Fixture.moment)
        try fixture.store.add(Comment(id: "c2", postID: post.id, zone: post.zone, scope: .private, text: "and cups"),
                              by: "_jermaine", now: Fixture.moment.addingTimeInterval(1_800))
        return (fixture, fixture.frontEnd())
    }

    @Test func theDetailSaysWhoWroteEachCommentAndWhen() throws {
        let (_, frontEnd) = try fixture()
        let text = frontEnd.frame(width: 100, height: 30).text
        #expect(text.contains("heather · 1h: bring tea") && text.contains("jermaine · 30m: and cups"))
    }

    @Test func anAuthorEditsAndDeletesTheirOwnCommentButNoOneElses() throws {
        let (fixture, frontEnd) = try fixture()
        frontEnd.press(.char("C"))
        #expect(frontEnd.frame(width: 100, height: 30).text.contains("Comments · e edits, d deletes yours"))
        frontEnd.press(.char("e"))  // heather's: refused, with the reason
        let refused = frontEnd.frame(width: 100, height: 30)
        #expect(refused.lines[refused.height - 2].hasPrefix("only heather edits that comment: it is theirs"))
        frontEnd.press(.char("d"))
        #expect(frontEnd.state.mode != .browse && !(frontEnd.state.mode.isConfirm))

        frontEnd.press(.char("j"), .char("e"))
        for _ in 0..<4 { frontEnd.press(.backspace) }
        frontEnd.type("mugs")
        frontEnd.press(.enter)
        let post = try fixture.store.post("Trip")
        #expect(try fixture.store.comments(on: post).map(\.text) == ["bring tea", "and mugs"])
        #expect(frontEnd.frame(width: 100, height: 30).text.contains("jermaine · 30m · edited: and mugs"))

        frontEnd.press(.char("C"), .char("j"), .char("d"), .char("y"))
        #expect(try fixture.store.comments(on: post).map(\.text) == ["bring tea"])
    }
}

extension CommentPickerTests {
    /// Someone with write access saved over heather's comment (raw): the detail does not pass their words off as hers.
    @Test func aCommentSavedOverBySomeoneElseSaysWho() {
        var comment = Comment(id: "c1", postID: "p1", zone: ZoneID(name: "Notes", owner: "_jermaine"), scope: .shared, text: "planted")
        (comment.createdAt, comment.createdBy) = (Fixture.moment, "_heather")
        (comment.modifiedAt, comment.modifiedBy) = (Fixture.moment.addingTimeInterval(60), "_mary")
        let names = { (id: String) in Fixture.names[id] ?? id }
        #expect(DetailView.byline(comment, names: names, now: Fixture.moment.addingTimeInterval(3_600)) == "heather · 1h · changed by mary")
        comment.modifiedBy = "_heather"
        #expect(DetailView.byline(comment, names: names, now: Fixture.moment.addingTimeInterval(3_600)) == "heather · 1h · edited")
    }
}

extension Mode {
    var isConfirm: Bool { if case .confirm = self { true } else { false } }
}
