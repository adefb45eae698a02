import ArgumentParser
import Cloud
import Foundation
import Notes

extension DeviceSession {
    var postHistory: PostHistory { PostHistory(store: store, cloud: cloud, account: account) }
}

struct ShowHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a post's versions, newest first: who changed it, when, and which lines (the cloud keeps them for every reader).")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Flag(help: "Print JSON.") var json = false

    struct VersionView: Encodable {
        var version: Int
        var current: Bool
        var by: String
        var at: Date?
        var title: String
        var content: String
        var tags: [String]
        var location: String?
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        let versions = try session.postHistory.versions(of: found)
        let names = try AccountNames(session.cloud)
        let views = versions.map {
            VersionView(version: $0.number, current: $0.isCurrent, by: $0.post.modifiedBy.map(names.callAsFunction) ?? "?",
                        at: $0.post.modifiedAt, title: $0.post.title, content: $0.post.content, tags: $0.post.tags, location: $0.post.location)
        }
        if json { return try Output.json(views) }
        for (index, view) in views.enumerated() {
            let older = views.indices.contains(index + 1) ? views[index + 1] : nil
            Output.line("version \(view.version)\(view.current ? " (current)" : "")  \(view.at.map(Output.date) ?? "?")  \(view.by)")
            if let older, older.title != view.title { Output.line("  title: \(older.title) → \(view.title)") }
            if older == nil { Output.line("  title: \(view.title)") }
            for line in DiffLine.lines(from: older?.content ?? "", to: view.content) {
                switch line {
                case .added(let text): Output.line("  + \(text)")
                case .removed(let text): Output.line("  - \(text)")
                case .same: continue
                }
            }
        }
    }
}

struct RestoreVersion: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back a version of a post as a new edit (it merges with changes made since, like any edit).")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post: its ID, an ID prefix, or its exact title.") var post: String
    @Option(help: "The version to bring back (cloudnotes history lists them).") var version: Int

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        try requireWritable(found, session)
        let saved = try session.postHistory.restore(found, version: version, by: session.editor, now: Date())
        Output.line("restored version \(version) of \"\(saved.post.title)\"" + (saved.conflicted ? "; it also changed since: both texts are kept" : ""))
        if let note = session.sync() { Output.line(note) }
    }
}

struct ShowTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List posts deleted from your notebooks and those shared with you, restorable for the cloud's trash time.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Empty the trash of your own notebooks: their deleted posts can no longer be restored.") var empty = false
    @Flag(help: "With --empty: do not ask.") var yes = false

    struct DeletedView: Encodable {
        var id: String
        var title: String
        var notebook: String
        var deletedAt: Date
        var deletedBy: String
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        if empty {
            if !yes {
                let waiting = try session.postHistory.trash().filter { $0.post.scope == .private }.count
                let question = "empty the trash of your notebooks? \(waiting.counting("deleted post")) can no longer be restored."
                guard try Output.confirmed(question, yes: yes, doing: "emptying the trash") else { return Output.line("kept the trash") }
            }
            let count = try session.postHistory.emptyTrash()
            if json { return try Output.json(["emptied": count]) }
            return Output.line("emptied the trash: \(count.counting("post")) can no longer be restored")
        }
        let names = try AccountNames(session.cloud)
        let views = try session.postHistory.trash().map {
            DeletedView(id: $0.post.id, title: $0.post.title, notebook: $0.post.zone.name, deletedAt: $0.deletedAt, deletedBy: names($0.deletedBy))
        }
        if json { return try Output.json(views) }
        if views.isEmpty { return Output.line("the trash is empty") }
        Output.table([["ID", "TITLE", "NOTEBOOK", "DELETED", "BY"]] + views.map { [$0.id, $0.title, $0.notebook, Output.date($0.deletedAt), $0.deletedBy] })
    }
}

struct RestoreDeleted: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore-deleted", abstract: "Bring a deleted post back from the trash, as it was last, on every device.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The deleted post: its ID, an ID prefix, or its exact title (cloudnotes trash lists them).") var post: String

    func run() throws {
        let session = try device.open(syncFirst: true)
        let trash = try session.postHistory.trash()
        let matches = trash.filter { $0.post.id == post || $0.post.title == post }
        let found = matches.isEmpty ? trash.filter { $0.post.id.hasPrefix(post) } : matches
        guard !found.isEmpty else { throw CLIError(message: "no deleted post matches '\(post)' (cloudnotes trash lists them)") }
        guard found.count == 1 else {
            throw CLIError(message: "'\(post)' matches several deleted posts: \(found.map(\.post.id).joined(separator: ", "))")
        }
        if found[0].post.scope == .shared, try session.sharing().readOnlyReason(for: found[0].post) != nil {
            throw CLIError(message: "read-only: shared by \(try AccountNames(session.cloud)(found[0].post.zone.owner)); only its owner restores it")
        }
        let restored = try session.postHistory.restoreDeleted(found[0])
        Output.line("restored \"\(restored.title)\"")
        if let note = session.sync() { Output.line(note) }
    }
}
