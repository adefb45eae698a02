import Foundation
import Testing
import TestSupport

/// Notebooks from the command line: a post moved between them (with its comments, following the share rules),
/// a notebook renamed and deleted (asking first), tags edited, titles matched in any case.
@Suite struct NotebookCommandTests {
    func show(_ app: App, _ title: String, as account: String, device: String? = nil) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try app.ok("show", title, "--json", as: account, device: device).utf8)) as? [String: Any] ?? [:]
    }

    @Test func aPostMovesWithItsCommentsAndEveryDeviceSeesIt() throws {
        let app = App()
        _ = try app.ok("new", "Trip", "--body", "tickets", "--location", "Hanoi", as: "jermaine")
        _ = try app.ok("comment", "Trip", "book early", as: "jermaine")
        _ = try app.ok("edit", "Trip", "--body", "tickets, visa", as: "jermaine")
        let created = try show(app, "Trip", as: "jermaine")["created"] as? [String: String]
        _ = try app.ok("new-notebook", "Travel", as: "jermaine")
        #expect(try app.run("new-notebook", "Travel", as: "jermaine").stderr.contains("exists already"))
        #expect(try app.ok("move", "trip", "--notebook", "travel", as: "jermaine").contains("moved \"Trip\" from Notes to Travel"))
        for device in ["jermaine", "phone"] {
            let post = try show(app, "Trip", as: "jermaine", device: device)
            #expect(post["notebook"] as? String == "Travel" && post["content"] as? String == "tickets, visa" && post["location"] as? String == "Hanoi",
                    "\(device): \(post)")
            let shown = try app.ok("show", "Trip", as: "jermaine", device: device)
            #expect(shown.contains("book early") && !shown.contains("edited"), "moved, its comment was not edited: \(shown)")
            // It keeps its age and its history: the text before the edit, from before the move.
            #expect(post["created"] as? [String: String] == created && created != nil, "\(device): \(post)")
            let history = try JSONSerialization.jsonObject(with: Data(try app.ok("history", "Trip", "--json", as: "jermaine", device: device).utf8))
                as? [[String: Any]] ?? []
            #expect(history.count == 3 && history.last?["content"] as? String == "tickets", "\(device): \(history)")
        }
        #expect(try app.ok("trash", as: "jermaine").contains("the trash is empty"), "a moved post is not deleted")
        #expect(try app.run("move", "Trip", "--notebook", "Travel", as: "jermaine").stderr.contains("in notebook Travel already"))
    }

    @Test func movesFollowTheShareRules() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new", "Plan", "--body", "one", as: "jermaine")
        _ = try app.ok("new", "Solo", as: "jermaine")
        _ = try app.ok("new-notebook", "Other", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Notes", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        _ = try app.ok("comment", "Plan", "count me in", as: "heather")
        _ = try app.ok("sync", as: "jermaine")
        let notHers = try app.run("move", "Plan", "--notebook", "Notes", as: "heather")
        #expect(notHers.isOneLineRefusal && notHers.stderr.contains("only its owner moves it"), "\(notHers.stderr)")
        // Out of the notebook shared as a whole: heather no longer sees it.
        _ = try app.ok("move", "Solo", "--notebook", "Other", as: "jermaine")
        _ = try app.ok("sync", as: "heather")
        #expect(try app.titles("heather") == ["Plan"])
        #expect(try app.ok("trash", as: "heather").contains("the trash is empty"), "moved away is not deleted, for her either")
        #expect(try app.titles("jermaine") == ["Plan", "Solo"])
        // Her comment goes with the post, still hers, wherever it is read.
        _ = try app.ok("move", "Plan", "--notebook", "Other", as: "jermaine")
        for device in ["jermaine", "phone"] {
            let plan = try show(app, "Plan", as: "jermaine", device: device)
            let comments = plan["comments"] as? [[String: Any]] ?? []
            #expect(plan["notebook"] as? String == "Other" && comments.map { $0["by"] as? String } == ["heather"], "\(device): \(plan)")
        }
        #expect(try app.titles("heather").isEmpty)
    }

    @Test func aNotebookIsRenamedAndDeletedAfterAsking() throws {
        let app = App()
        _ = try app.ok("new-notebook", "Travel", as: "jermaine")
        _ = try app.ok("new", "Trip", "--body", "tickets", "--notebook", "Travel", "--tags", "a, b", as: "jermaine")
        _ = try app.ok("edit", "Trip", "--tags", "summer,  2026", as: "jermaine")
        #expect(try show(app, "Trip", as: "jermaine")["tags"] as? [String] == ["summer", "2026"])
        _ = try app.ok("edit", "Trip", "--tags", "", as: "jermaine")
        #expect((try show(app, "Trip", as: "jermaine")["tags"] as? [String])?.isEmpty == true)

        #expect(try app.ok("rename-notebook", "Travel", "Trips", as: "jermaine").contains("renamed notebook Travel to Trips"))
        #expect(try show(app, "Trip", as: "jermaine", device: "phone")["notebook"] as? String == "Trips")
        let history = try JSONSerialization.jsonObject(with: Data(try app.ok("history", "Trip", "--json", as: "jermaine", device: "phone").utf8))
            as? [[String: Any]] ?? []
        #expect(history.count == 3, "renamed, its notebook keeps its posts' history: \(history)")
        let books = try app.ok("notebooks", as: "jermaine", device: "phone")
        #expect(books.contains("Trips") && !books.contains("Travel"), "\(books)")

        let asked = try app.run("delete-notebook", "Trips", as: "jermaine")
        #expect(asked.isOneLineRefusal && asked.stderr.contains("needs --yes"))
        #expect(try app.titles("jermaine") == ["Trip"], "nothing deleted without --yes")
        #expect(try app.ok("delete-notebook", "trips", "--yes", as: "jermaine").contains("deleted notebook Trips (1 post)"))
        #expect(try app.titles("jermaine", device: "phone").isEmpty)
        #expect(!(try app.ok("notebooks", as: "jermaine", device: "phone")).contains("Trips"))
    }

    @Test func anAmbiguousTitleListsWhereEachPostIs() throws {
        let app = App()
        _ = try app.ok("new-notebook", "Work", as: "jermaine")
        _ = try app.ok("new", "Plan", as: "jermaine")
        _ = try app.ok("new", "plan", "--notebook", "Work", as: "jermaine")
        #expect(try show(app, "Plan", as: "jermaine")["notebook"] as? String == "Notes", "the exact spelling wins")
        let refused = try app.run("show", "PLAN", as: "jermaine")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("in Notes (jermaine's)") && refused.stderr.contains("in Work (jermaine's)"),
                "\(refused.stderr)")
    }
}

extension NotebookCommandTests {
    /// A notebook named in no notebook's own case, where two share the name in other cases, is never guessed
    /// at (deleting one is for good, with its trash); a notebook that does not exist is said so by `list` too.
    @Test func aNotebookNameSeveralShareInAnotherCaseIsRefusedNotGuessed() throws {
        let app = App()
        _ = try app.ok("new", "Groceries", "--body", "milk", as: "jermaine")  // in Notes
        // The app makes no notebook named beside another in another case only, but another client may.
        _ = try app.ok("new-notebook", "Work", as: "jermaine")
        for made in [try app.run("new-notebook", "notes", as: "jermaine"), try app.run("rename-notebook", "Work", "NOTES", "--yes", as: "jermaine")] {
            #expect(made.isOneLineRefusal && made.stderr.contains("notebook Notes exists already"), "\(made.stderr)")
        }
        _ = try app.ok("cloud", "create-zone", "notes", as: "jermaine")
        _ = try app.ok("sync", as: "jermaine")
        let refused = try app.run("delete-notebook", "NOTES", "--yes", as: "jermaine")
        #expect(refused.status != 0 && refused.stderr.contains("Notes, notes"), "\(refused.stderr)")
        #expect(try app.ok("list", "--notebook", "Notes", as: "jermaine").contains("Groceries"), "nothing was deleted")
        #expect(try app.ok("list", "--notebook", "notes", as: "jermaine").contains("no posts in notebook notes"))
        let unknown = try app.run("list", "--notebook", "Nope", as: "jermaine")
        #expect(unknown.status != 0 && unknown.stderr.contains("no notebook named \"Nope\""), "\(unknown.stderr)")
        // Letters of any script name a notebook; a slash or a control character does not.
        _ = try app.ok("new-notebook", "Hà Nội", as: "jermaine")
        _ = try app.ok("new", "Phở", "--notebook", "Hà Nội", as: "jermaine")
        #expect(try app.ok("list", "--notebook", "hà nội", as: "jermaine").contains("Phở"))
        for bad in ["Hà/Nội", "Hà\u{1B}[31m", "1st"] { #expect(try app.run("new-notebook", bad, as: "jermaine").isOneLineRefusal, "\(bad)") }
    }
}

extension NotebookCommandTests {
    /// `new --notebook` names a notebook as `move` does (any case); one shared with the person is said to be
    /// shared, and no notebook of theirs is made under its name (its posts would be seen by no one else).
    @Test func aNewPostGoesIntoANotebookOfOnesOwnNamedInAnyCase() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        _ = try app.ok("new-notebook", "Trip", as: "jermaine")
        let url = try app.ok("share", "--notebook", "Trip", "--invite", "heather", "--read-write", as: "jermaine")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try app.ok("accept", url, as: "heather")
        let refused = try app.run("new", "Tickets", "--notebook", "Trip", as: "heather")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("shared with you"), "\(refused.stderr)")
        #expect(try app.ok("new", "Groceries", "--notebook", "notes", as: "heather").contains("in Notes"))
    }
}

extension NotebookCommandTests {
    /// A notebook of one's own never hides one shared with one: a name written exactly as one is that one, and
    /// a shared one is also named with its owner, as the app shows it ("Trip (jermaine)").
    @Test func aNotebookOfOnesOwnDoesNotHideOneSharedUnderItsName() throws {
        let app = App()
        _ = try app.ok("status", as: "heather")
        for book in ["Trip", "Work"] {
            _ = try app.ok("new-notebook", book, as: "jermaine")
            _ = try app.ok("new", "\(book) plans", "--notebook", book, as: "jermaine")
            let url = try app.ok("share", "--notebook", book, "--invite", "heather", "--read-write", as: "jermaine")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            _ = try app.ok("accept", url, as: "heather")
        }
        for book in ["trip", "Work"] {
            _ = try app.ok("new-notebook", book, as: "heather")
            _ = try app.ok("new", "her \(book)", "--notebook", book, as: "heather")
        }
        let lists: [(String, String)] = [("Trip", "Trip plans"), ("trip", "her trip"), ("TRIP", "her trip"), ("Trip (jermaine)", "Trip plans"),
                                         ("Work", "her Work"), ("work (JERMAINE)", "Work plans"), ("Work (heather)", "her Work")]
        // Written as the shared one's name, the refusal names hers.
        let refused = try app.run("new", "x", "--notebook", "Trip", as: "heather")
        #expect(refused.isOneLineRefusal && refused.stderr.contains("Trip (jermaine) is shared with you") && refused.stderr.contains("yours is named trip"),
                "\(refused.stderr)")
        let all = try app.ok("list", as: "heather")
        #expect(all.contains("Trip (jermaine)") && all.contains("Work (jermaine)"), "whose, where names meet: \(all)")
        for (name, shows) in lists {
            let listed = try app.ok("list", "--notebook", name, as: "heather")
            #expect(listed.contains(shows) && listed.split(separator: "\n").count == 2, "\(name): \(listed)")  // a header and the one post
        }
        // A shared notebook with no post left in it is left by its name.
        _ = try app.ok("delete", "Trip plans", "--yes", as: "jermaine")
        #expect(try app.run("leave", "--notebook", "trip", as: "heather").stderr.contains("yours"))
        #expect(try app.ok("leave", "--notebook", "Trip (jermaine)", as: "heather").contains("left notebook Trip (jermaine)"))
        let left = try app.ok("list", as: "heather")
        #expect(!left.contains("Trip (jermaine)") && left.contains("her trip"), "\(left)")
        #expect(try app.run("leave", as: "heather").isOneLineRefusal)
        // Deleting one shared with her says how to leave it; leaving by one of its posts leaves it whole.
        #expect(try app.run("delete-notebook", "Work (jermaine)", "--yes", as: "heather").stderr.contains("leave --notebook \"Work (jermaine)\""))
        #expect(try app.ok("leave", "Work plans", as: "heather").contains("left notebook Work"))
        #expect(!(try app.ok("list", as: "heather").contains("(jermaine)")))
    }
}
