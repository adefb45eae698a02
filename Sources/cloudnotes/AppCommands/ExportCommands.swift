import ArgumentParser
import Cloud
import Foundation
import Notes

struct ExportPosts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write posts as Markdown files with front matter (title, tags, location, notebook, authors, dates, comments).")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "One post: its ID, an ID prefix, or its exact title.") var post: String?
    @Option(help: "Every post of this notebook.") var notebook: String?
    @Flag(help: "Every post this device holds.") var all = false
    @Option(help: "The directory to write into (made if missing; no file in it is overwritten).") var to: String

    func validate() throws {
        if [post != nil, notebook != nil, all].filter({ $0 }).count != 1 { throw ValidationError("say what to export: POST, --notebook NAME or --all") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let names = try AccountNames(session.cloud)
        let posts: [Post]
        if let post {
            posts = [try session.store.post(post)]
        } else {
            posts = try session.store.posts(in: try notebook.map { try session.store.notebook(named: $0) })
        }
        let files: [URL]
        do {
            files = try PostMarkdown.export(posts, notebooks: try session.store.notebooks(), comments: session.store.comments(on:),
                                            names: names.callAsFunction,
                                            to: URL(fileURLWithPath: to))
        } catch let error as MarkdownError {
            throw CLIError(message: "\(error)")
        } catch {
            throw CLIError(message: "cannot write into \(to): \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        Output.line("exported \(files.count.counting("post")) to \(to)")
    }
}

struct ImportPosts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read Markdown files (as export writes them, or plain) back as new posts of yours.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The files.") var files: [String]
    @Option(help: "Put them all into this notebook (made if missing) instead of the one each file names (else Notes).") var notebook: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name the files to import") }
    }

    func run() throws {
        // Every file is read first: one that cannot be read stops the import before anything is saved.
        let read = try files.map { path in
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw CLIError(message: "\(path): no such file") }
            guard !isDirectory.boolValue else { throw CLIError(message: "\(path): is a directory, not a file") }
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError(message: "\(path): cannot be read") }
            guard let text = String(data: data, encoding: .utf8) else { throw CLIError(message: "\(path): is not UTF-8 text") }
            guard !data.contains(0) else { throw CLIError(message: "\(path): holds a NUL byte, which no post can keep") }
            do {
                return try PostMarkdown(parsing: text, fallbackTitle: url.deletingPathExtension().lastPathComponent)
            } catch {
                throw CLIError(message: "\(path): \(error)")
            }
        }
        let titles = read.map { notebook ?? $0.notebook ?? "Notes" }
        if let bad = titles.first(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty || $0.contains("/") }) {
            throw CLIError(message: "\"\(bad)\" cannot name a notebook")
        }
        let session = try device.open()
        let existing = try session.store.notebooks().filter { $0.scope == .private }
        let made = Set(titles).filter { title in !existing.contains { $0.title == title } }.sorted()
            .map { Notebook(zone: ZoneID(name: $0, owner: session.account.id), scope: .private, title: $0) }
        let books = existing + made
        let posts = zip(read, titles).map { markdown, title in
            Post(id: "p" + SystemRandom().hex(bytes: 6), zone: books.first { $0.title == title }!.zone, title: markdown.title,
                 content: markdown.content, tags: markdown.tags, location: markdown.location)
        }
        for (post, path) in zip(posts, files) {
            do { try DeviceStore.requireFits(post) } catch { throw CLIError(message: "\(path): \(error); nothing was imported") }
        }
        let now = Date()
        try session.store.save(posts, by: session.account.id, now: now, creating: made)  // all of them and their notebooks, or none
        // The importer's own comments come back on the post; another's are their words. The cloud dates each when it is
        // saved (as CloudKit does), so their IDs keep the file's order where dates tie.
        var others = 0
        for ((post, title), markdown) in zip(zip(posts, titles), read) {
            let mine = markdown.comments.filter { $0.author.caseInsensitiveCompare(session.account.name) == .orderedSame }
            others += markdown.comments.count - mine.count
            let base = "c" + SystemRandom().hex(bytes: 5)
            for (index, remark) in mine.enumerated() {
                let comment = Comment(id: base + String(format: "%03d", index), postID: post.id, zone: post.zone, scope: .private, text: remark.text)
                do {
                    try session.store.add(comment, by: session.account.id, now: now)
                } catch {
                    throw CLIError(message: "\(post.title) was imported, but not its comment \"\(remark.text.prefix(40))\": \(error)")
                }
            }
            Output.line("created \(post.id) \"\(post.title)\" in \(title)" + (mine.isEmpty ? "" : ", with \(mine.count.counting("comment")) of yours (dated now)"))
        }
        if others > 0 { Output.line("\(others.counting("comment")) by others in the files not imported: a comment is its author's words") }
        if let note = session.sync() { Output.line(note) }
    }
}
