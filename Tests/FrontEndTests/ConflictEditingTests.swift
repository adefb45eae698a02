import Cloud
import Foundation
@testable import FrontEnd
import Notes
import Testing

/// The editor merges against the copy it opened, however long it stays open;
/// a conflict shows whose text is whose and resolves with a key.
@Suite struct ConflictEditingTests {
    let heather = Editor(account: Account(id: "_heather", name: "heather", email: "heather@example.com", createdAt: Date(timeIntervalSince1970: 0)),
                         device: "laptop")

    /// heather's edit arrives on this device (as a fetch would apply it) while the editor is open.
    func heatherEdits(_ fixture: Fixture, _ change: (inout Post) -> Void) throws {
        let current = try #require(try fixture.store.posts().first)
        var edited = current
        change(&edited)
        _ = try fixture.store.saveEdit(edited, from: current.fields, by: heather, now: Fixture.moment.addingTimeInterval(600))
    }

    @Test func savingAfterOthersEditedKeepsTheirLinesAndSaysSo() throws {
        let fixture = try Fixture()
        try fixture.post("Meeting", "A\nB\nC", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 30)
        frontEnd.press(.char("e"), .backTab)  // the location field
        frontEnd.type("Room 4")
        try heatherEdits(fixture) { $0.content += "\nline D (heather)" }
        frontEnd.press(.ctrl("s"))

        let post = try #require(try fixture.store.posts().first)
        #expect(post.content == "A\nB\nC\nline D (heather)" && post.location == "Room 4")
        #expect(frontEnd.frame(width: 100, height: 30).lines.contains { $0.contains("merged with heather's edit") })
    }

    @Test func twoPeopleAppendingALineBothKeepIt() throws {
        let fixture = try Fixture()
        try fixture.post("Meeting", "A\nB\nC", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 30)
        frontEnd.press(.char("e"), .enter)
        frontEnd.type("line D (jermaine)")
        try heatherEdits(fixture) { $0.content += "\nline D (heather)" }
        frontEnd.press(.ctrl("s"))
        let post = try #require(try fixture.store.posts().first)
        #expect(post.content == "A\nB\nC\nline D (heather)\nline D (jermaine)" && !post.conflicted)
    }

    @Test func anOverlappingEditShowsBothSidesAndAKeyKeepsEither() throws {
        for (key, kept) in [(Character("m"), "B (jermaine)"), ("t", "B (heather)"), ("o", "B (heather)\nB (jermaine)")] {
            let fixture = try Fixture()
            try fixture.post("Meeting", "A\nB\nC", minute: 1)
            let frontEnd = fixture.frontEnd()
            _ = frontEnd.frame(width: 120, height: 30)
            frontEnd.press(.char("m"))
            #expect(frontEnd.state.flash?.text == "\"Meeting\" holds no conflict")
            frontEnd.press(.char("e"), .up, .end)
            frontEnd.type(" (jermaine)")
            try heatherEdits(fixture) { $0.content = "A\nB (heather)\nC" }
            frontEnd.press(.ctrl("s"))
            let screen = frontEnd.frame(width: 120, height: 30).lines.joined(separator: "\n")
            #expect(screen.contains("heather changed the same text: both kept"))
            #expect(screen.contains("heather on laptop") && screen.contains("jermaine on laptop"))
            #expect(try fixture.store.posts()[0].conflicted)

            frontEnd.press(.char(key))
            let post = try fixture.store.posts()[0]
            #expect(post.content == "A\n\(kept)\nC" && !post.conflicted, "\(key)")
        }
    }

    @Test func savingTextThatStillHoldsMarkersAsksAndCancelGoesBackToTheEditor() throws {
        let fixture = try Fixture()
        try fixture.post("Meeting", "A\nB\nC", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 30)
        frontEnd.press(.char("e"), .up, .end)
        frontEnd.type("!")
        try heatherEdits(fixture) { $0.content = "A\nB?\nC" }
        frontEnd.press(.ctrl("s"))
        #expect(try fixture.store.posts()[0].conflicted)

        frontEnd.press(.char("e"), .end)
        frontEnd.type(" more")
        frontEnd.press(.ctrl("s"))
        guard case .confirm(let question) = frontEnd.state.mode else { Issue.record("saved without asking"); return }
        #expect(question.question.contains("conflict markers"))
        frontEnd.press(.escape)
        guard case .edit(let form) = frontEnd.state.mode else { Issue.record("cancel left the editor"); return }
        #expect(form.content.text.hasSuffix(" more"))
        frontEnd.press(.ctrl("s"), .char("y"))
        #expect(try fixture.store.posts()[0].content.hasSuffix(" more"))
    }

    @Test func anExternalEditorMergesAgainstTheCopyItOpened() throws {
        let fixture = try Fixture()
        try fixture.post("Meeting", "A\nB\nC", minute: 1)
        let frontEnd = fixture.frontEnd()
        _ = frontEnd.frame(width: 100, height: 30)
        frontEnd.press(.char("E"))
        let opened = try #require(frontEnd.externalEdit)
        let file = ExternalForm.text(of: opened).replacingOccurrences(of: "\nC", with: "\nC\nmine")
        try heatherEdits(fixture) { $0.content = "A (heather)\nB\nC" }  // while $EDITOR runs
        frontEnd.finishExternalEdit(file)
        #expect(try fixture.store.posts()[0].content == "A (heather)\nB\nC\nmine")
    }
}
