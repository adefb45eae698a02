import ArgumentParser
import Cloud
import Foundation
import Notes

/// Notebooks: made, renamed and deleted by their owner; a post moved from one to another.
struct NewNotebook: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new-notebook", abstract: "Create a notebook.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "Its name.") var name: String

    func run() throws {
        try Self.validate(name: name)
        let session = try device.open()
        if let refusal = try session.store.newNotebookRefusal(name) { throw CLIError(message: refusal) }
        _ = try session.store.createNotebook(name, owner: session.account.id)
        Output.line("created notebook \(name)")
        if let note = session.sync() { Output.line(note) }
    }

    /// Letters of any script ("Hà Nội"), digits, spaces and '_', starting with a letter; at most 255 bytes, as
    /// the cloud's zone names.
    static func validate(name: String) throws {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, first.properties.isAlphabetic, name.utf8.count <= 255,
              scalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType == .decimal || $0 == " " || $0 == "_"
                                   || $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark })
        else { throw CLIError.usage("a notebook name starts with a letter and holds letters, digits, spaces and '_' (at most 255 bytes)") }
    }
}

struct MovePost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move", abstract: "Move a post of yours, with its comments, into another of your notebooks.",
        discussion: "Moving into a notebook shared as a whole shares the post with its people; moving out of one takes it from them. "
            + "Comments go with the post, others' still theirs, even one typed while it moves. A post shared by itself, "
            + "or with more comments than one request holds, stays (the reason is said).")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its title.") var post: String
    @Option(help: "The notebook it goes to.") var notebook: String

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        let target = try session.store.notebook(named: notebook)
        let moved = try session.store.move(found, to: target, by: session.account.id, on: session.device, now: Date())
        Output.line("moved \"\(moved.title)\" from \(found.zone.name) to \(target.title)")
        if let note = session.sync() { Output.line(note) }
    }
}

struct RenameNotebook: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename-notebook", abstract: "Rename a notebook of yours: its posts and comments go with it; its trash does not.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The notebook.") var notebook: String
    @Argument(help: "Its new name.") var name: String
    @Flag(help: "Do not ask (asked only when its trash holds posts, which cannot come along).") var yes = false

    func run() throws {
        try NewNotebook.validate(name: name)
        let session = try device.open(syncFirst: true)
        let book = try session.store.notebook(named: notebook)
        if let refusal = try session.store.renameRefusal(book, to: name) { throw CLIError(message: refusal) }
        let trash = try session.postHistory.trash().filter { $0.post.zone == book.zone }.count
        if trash > 0 {
            let question = "rename notebook \(book.title) to \(name)? The \(trash.counting("deleted post")) in its trash cannot come along."
            guard try Output.confirmed(question, yes: yes, doing: "renaming a notebook with posts in its trash") else { return Output.line("kept") }
        }
        let renamed = try session.store.renameNotebook(book, to: name, by: session.account.id, on: session.device, now: Date())
        Output.line("renamed notebook \(book.title) to \(renamed.title)")
        if let note = session.sync() { Output.line(note) }
    }
}

struct DeleteNotebook: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-notebook", abstract: "Delete a notebook of yours, with every post in it and its trash, on every device.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The notebook.") var notebook: String
    @Flag(help: "Do not ask.") var yes = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let book = try session.store.notebook(named: notebook)
        if book.scope == .shared { try session.store.deleteNotebook(book) }  // refused, with what to do instead
        let (posts, unsent) = try session.store.notebookContents(book)
        let shared = try session.store.ownShares().contains { $0.isZoneWide && $0.id.zone == book.zone }
        var question = "delete notebook \(book.title) and its \(posts.counting("post"))"
        if unsent > 0 { question += ", \(unsent.counting("change")) not yet sent among them" }
        question += "? They cannot be restored" + (shared ? "; everyone it is shared with loses it." : ".")
        guard try Output.confirmed(question, yes: yes, doing: "deleting a notebook") else { return Output.line("kept") }
        try session.store.deleteNotebook(book)
        Output.line("deleted notebook \(book.title) (\(posts.counting("post")))")
        if let note = session.sync() { Output.line(note) }
    }
}
