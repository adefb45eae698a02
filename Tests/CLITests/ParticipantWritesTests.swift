import Foundation
import Testing
import TestSupport

/// What a read-write participant writes with raw requests (the cloud lets them; the app never does) is shown as
/// theirs: the owner is never told their own words when someone else's stand there.
@Suite struct ParticipantWritesTests {
    /// `owner`'s post `title`, shared read-write with `participant`, who accepted it.
    func shared(_ title: String, by owner: String, with participant: String) throws -> App {
        let app = App()
        _ = try app.ok("new", title, "--body", "words", as: owner)
        _ = try app.ok("status", as: participant)
        let url = try app.ok("share", title, "--invite", "\(participant)@example.com", "--read-write", as: owner)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: participant)
        return app
    }

    @Test func aCommentChangedByAnotherNamesWhoChangedIt() throws {
        let app = try shared("Plans", by: "jermaine", with: "heather")
        let id = try #require(try app.ok("comment", "Plans", "mine", as: "jermaine").split(separator: " ").dropFirst().first)
        #expect(!(try app.ok("show", "Plans", as: "jermaine").contains("changed by")))
        _ = try app.ok("cloud", "save-record", "--database", "shared", "--owner", "jermaine", "--zone", "Notes", "--type", "Comment",
                       "--name", String(id), "--field", "text=I, jermaine, give heather everything", as: "heather")
        let shown = try app.ok("show", "Plans", as: "jermaine")
        #expect(shown.contains("jermaine at ") && shown.contains("(changed by heather ") && shown.contains("give heather everything"), "\(shown)")
    }

    /// A post a participant filed under the shared post is in its share: its owner sees it shared, with whom, and
    /// is not led to write into it what they would keep to themselves.
    @Test func aPostFiledUnderASharedPostIsSharedToItsOwner() throws {
        let app = try shared("Plans", by: "jermaine", with: "heather")
        let root = try #require(try app.post("Plans", as: "jermaine")["id"] as? String)
        _ = try app.ok("cloud", "save-record", "--database", "shared", "--owner", "jermaine", "--zone", "Notes", "--type", "Post",
                       "--name", "planted", "--parent", root, "--field", "title=Child", "--field", "content=hi", as: "heather")
        #expect(try app.post("Child", as: "jermaine")["shared"] as? Bool == true)
        #expect(try app.ok("list", as: "jermaine").split(separator: "\n").contains { $0.contains("Child") && $0.contains("shared") })
        #expect(try app.ok("participants", "Child", as: "jermaine").contains("heather"))
        // Its share is the post's it was filed under, managed there: never stopped or widened through it.
        let stop = try app.run("stop-sharing", "Child", as: "jermaine")
        #expect(stop.isOneLineRefusal && stop.stderr.contains("manage that one"), "\(stop)")
        let invite = try app.run("share", "Child", "--invite", "zoe@example.com", as: "jermaine")
        #expect(invite.isOneLineRefusal && invite.stderr.contains("share or stop sharing that one"), "\(invite)")
        #expect(try app.post("Plans", as: "heather")["shared"] as? Bool == true)
    }

    /// A comment a participant wrote offline that can no longer go (read-only now, or removed) is kept as a post of
    /// their own, saying where it was meant to go; it never vanishes while status says nothing waits.
    @Test(arguments: ["read-only", "removed"]) func aParticipantsUnsentCommentIsKeptWhenItCanNoLongerGo(_ how: String) throws {
        let app = try shared("Recipe", by: "heather", with: "mary")
        #expect(try CloudNotesBinary.run(["cloud", "faults", "--unreachable"], environment: app.environment).status == 0)
        let offline = try app.run("comment", "Recipe", "add vanilla please", as: "mary")
        #expect(try CloudNotesBinary.run(["cloud", "faults", "--off"], environment: app.environment).status == 0)
        #expect(offline.stdout.contains("commented") && (offline.stdout + offline.stderr).contains("kept"), "\(offline)")
        if how == "read-only" {
            _ = try app.ok("set-permission", "Recipe", "mary@example.com", "read-only", as: "heather")
        } else {
            _ = try app.ok("remove-participant", "Recipe", "mary@example.com", as: "heather")
        }
        _ = try app.run("sync", as: "mary")
        let kept = try app.ok("list", "--json", as: "mary")
        #expect(kept.contains("Comment on \\\"Recipe\\\""), "\(kept)")
        #expect(try app.ok("show", "Comment on \"Recipe\"", as: "mary").contains("add vanilla please"))
        #expect(try app.ok("sync", as: "mary").contains("synced; 0 changes waiting"))
    }
}
