import ArgumentParser
import Cloud
import Foundation
import Notes

struct NewPost: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "Write a new post.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The title.") var title: String
    @Option(help: "The text.") var body: String?
    @Option(help: ArgumentHelp("Read the text from this file (- reads standard input).", valueName: "PATH|-")) var bodyFile: String?
    @Option(help: "The notebook.") var notebook: String = "Notes"
    @Option(help: "Where it was written; it reaches the cloud sealed, for the post's readers only.") var location: String?
    @Option(help: "Tags: repeat it, or separate them with commas.") var tags: [String] = []

    func validate() throws { try BodyInput(text: body, file: bodyFile).validate() }

    func run() throws {
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("the title is empty") }
        let body = try BodyInput(text: body, file: bodyFile).read() ?? ""
        let session = try device.open()
        // Named as `move` names one (any case); a notebook someone shares is not made again under its name.
        let book: Notebook
        do {
            book = try session.store.notebook(named: notebook)
        } catch StoreError.unknownNotebook {
            throw CLIError(message: "no notebook named '\(notebook)' (create it with 'cloudnotes new-notebook \(notebook)')")
        }
        guard book.scope == .private else {
            let yours = try session.store.notebooks().first {
                $0.scope == .private && $0.title.compare(book.title, options: .caseInsensitive) == .orderedSame
            }
            throw CLIError(message: "notebook \(session.store.label(book)) is shared with you: a new post goes into a notebook of your own "
                           + (yours.map { "(yours is named \($0.title))" } ?? "('cloudnotes notebooks' lists them)"))
        }
        let id = "p" + SystemRandom().hex(bytes: 6)
        let post = Post(id: id, zone: book.zone, title: title, content: body,
                        tags: tags.joined(separator: ",").commaSeparated,
                        location: location)
        try session.store.save(post, by: session.account.id, now: Date())
        Output.line("created \(id) \"\(title)\" in \(book.title)")
        if let note = session.sync() { Output.line(note) }
    }
}

struct ListPosts: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List posts of both stores, newest first.")

    @OptionGroup var device: DeviceOptions
    @Option(help: "Only this notebook.") var notebook: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let names = try AccountNames(session.cloud)
        let sharing = try session.sharing()
        // A notebook named as `move` and `delete-notebook` name one (any case; unknown or ambiguous: refused).
        let book = try notebook.map { try session.store.notebook(named: $0) }
        let views = try session.store.posts(in: book).map { post in
            var view = PostView(post, sharing: sharing, names: names)
            view.notSent = try session.store.refusal(of: post)
            return view
        }
        if json { return try Output.json(views) }
        if let book, views.isEmpty { return Output.line("no posts in notebook \(book.title)") }
        if views.isEmpty { return Output.line("no posts (write one with 'cloudnotes new TITLE')") }
        // A notebook shared with the person names its owner, as `--notebook` takes it: theirs may share a name with one of theirs.
        let me = names(session.account.id)
        Output.table([["ID", "NOTEBOOK", "TITLE", "MARKS"]]
                     + views.map { [$0.id, $0.owner == me ? $0.notebook : "\($0.notebook) (\($0.owner))", $0.title, $0.markers] })
    }
}

struct ShowPost: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one post.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        let names = try AccountNames(session.cloud)
        var view = PostView(found, sharing: try session.sharing(), names: names)
        view.notSent = try session.store.refusal(of: found)
        view.comments = try session.store.comments(on: found).map {
            PostView.CommentView(id: $0.id, by: $0.createdBy.map(names.callAsFunction) ?? "?", at: $0.createdAt,
                                 edited: $0.wasEdited ? $0.modifiedAt : nil,
                                 changedBy: $0.wasEdited && $0.modifiedBy != $0.createdBy ? $0.modifiedBy.map(names.callAsFunction) : nil,
                                 text: $0.text)
        }
        if json { try Output.json(view) } else { view.printText() }
    }
}

struct EditPost: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a post's title, text, tags or location.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Option(help: "The new title.") var title: String?
    @Option(help: "The new text.") var body: String?
    @Option(help: ArgumentHelp("Read the new text from this file (- reads standard input).", valueName: "PATH|-")) var bodyFile: String?
    @Option(help: "The new location (empty: none).") var location: String?
    @Option(help: "The new tags: repeat it, or separate them with commas (empty: none).") var tags: [String] = []

    func validate() throws {
        try BodyInput(text: body, file: bodyFile).validate()
        if title == nil && body == nil && bodyFile == nil && location == nil && tags.isEmpty {
            throw ValidationError("say what to change: --title, --body, --body-file, --tags or --location")
        }
    }

    func run() throws {
        let body = try BodyInput(text: body, file: bodyFile).read()
        let session = try device.open()
        // The edit's base is the copy this device showed before the command syncs: what the person saw
        // when they wrote the new text. Others' edits fetched now are merged with it, never overwritten.
        // (Not here yet is no error: the post may come with this sync. A store that does not read is.)
        let seen: Post?
        do {
            seen = try session.store.post(post)
        } catch StoreError.unknownPost {
            seen = nil
        }
        session.sync()
        let current = try seen.map { try session.store.post(id: $0.id, zone: $0.zone, scope: $0.scope) } ?? session.store.post(post)
        guard let base = seen ?? current else { throw StoreError.unknownPost(post) }
        try requireWritable(current ?? base, session)
        var mine = base
        if let title { mine.title = title }
        if let body { mine.content = body }
        if let location { mine.location = location.isEmpty ? nil : location }
        if !tags.isEmpty { mine.tags = tags.joined(separator: ",").commaSeparated }
        // Saved anyway, it would move the post to the top of every list and add a version that changes nothing.
        guard mine.fields != base.fields else { return Output.line("unchanged: \(base.id) \"\(base.title)\" holds that already") }
        let saved = try session.store.saveEdit(mine, from: base.fields, by: session.editor, now: Date())
        Output.line("edited \(saved.post.id) \"\(saved.post.title)\"" + EditNote(saved).text)
        if let note = session.sync() { Output.line(note) }
    }
}

struct DeletePost: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a post.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Flag(help: "Do not ask.") var yes = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        try requireWritable(found, session, deleting: true)
        guard try Output.confirmed("delete \"\(found.title)\"?", yes: yes, doing: "deleting") else { return Output.line("kept") }
        try session.store.delete(found)
        Output.line("deleted \(found.id) \"\(found.title)\"")
        if let note = session.sync() { Output.line(note) }
    }
}

struct DiscardRefused: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Give up a change the cloud refused (too large, say): the post goes back to the cloud's copy, or goes if the cloud never had it.",
        discussion: "`cloudnotes status` lists the changes the cloud refused. Editing the post so that it fits sends it instead.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Flag(help: "Do not ask.") var yes = false

    func run() throws {
        let session = try device.open()
        let found = try session.store.post(post)
        guard let reason = try session.store.refusal(of: found) else {
            throw CLIError(message: "the cloud refused no change of \"\(found.title)\": nothing to discard")
        }
        let kept = try session.store.cloudHasCopy(of: found)
        guard try Output.confirmed("discard the change of \"\(found.title)\" the cloud refused (\(reason))? The text typed here is lost.",
                                   yes: yes, doing: "discarding") else { return Output.line("kept") }
        try session.store.discardRefused(found.recordID, in: found.scope)
        Output.line(kept ? "discarded; \"\(found.title)\" is as the cloud has it" : "discarded; \"\(found.title)\" is gone: the cloud never had it")
    }
}

/// Refuses, before changing anything, a write the account may not make.
func requireWritable(_ post: Post, _ session: DeviceSession, deleting: Bool = false) throws {
    let sharing = try session.sharing()
    if let reason = sharing.readOnlyReason(for: post) { throw CLIError(message: reason) }
    if deleting && !sharing.canDelete(post) {
        throw CLIError(message: "only its owner deletes \"\(post.title)\": it is the post they shared")
    }
}

struct CommentOnPost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "comment", abstract: "Comment on a post, or edit or delete a comment of yours; comments travel with the post's share.",
        discussion: "`cloudnotes show POST` lists a post's comments with their IDs.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Argument(help: "The comment (with --edit, its new text).") var text: String?
    @Option(help: "Change the text of your comment with this ID.") var edit: String?
    @Option(help: "Delete your comment with this ID.") var delete: String?

    func validate() throws {
        if edit != nil && delete != nil { throw ValidationError("give --edit or --delete, not both") }
        if delete != nil, text != nil { throw ValidationError("--delete takes no text") }
        if delete == nil, text?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true { throw ValidationError("the comment is empty") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        try requireWritable(found, session)
        let now = Date()
        if let id = edit ?? delete {
            guard let comment = try session.store.comments(on: found).first(where: { $0.id == id }) else {
                throw CLIError(message: "\"\(found.title)\" has no comment \(id) (cloudnotes show lists them)")
            }
            if delete != nil {
                try session.store.deleteComment(comment, by: session.account.id)
                Output.line("deleted your comment on \"\(found.title)\"")
            } else {
                try session.store.editComment(comment, text: text ?? "", by: session.account.id, now: now)
                Output.line("edited your comment on \"\(found.title)\"")
            }
        } else {
            let comment = Comment(id: "c" + SystemRandom().hex(bytes: 6), postID: found.id, zone: found.zone, scope: found.scope, text: text ?? "")
            try session.store.add(comment, by: session.account.id, now: now)
            Output.line("commented \(comment.id) on \"\(found.title)\"")  // the ID first, as `new` prints its post's
        }
        if let note = session.sync() { Output.line(note) }
    }
}
