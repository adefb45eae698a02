import ArgumentParser
import Cloud
import Foundation
import Notes

struct Notebooks: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List notebooks, yours and those shared with you.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let names = try AccountNames(session.cloud)
        let books = try session.store.notebooks()
        if json {
            return try Output.json(books.map { ["title": $0.title, "owner": names($0.zone.owner), "store": $0.scope.rawValue] })
        }
        Output.table([["NOTEBOOK", "OWNER", "STORE"]] + books.map { [$0.title, names($0.zone.owner), $0.scope.rawValue] })
    }
}

struct SyncNow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Send what waits and fetch what changed, now.",
        discussion: "--reupload rebuilds a cloud that lost this device's data (emptied, replaced, or restored from an older copy): "
            + "every notebook, post and comment of this device is sent as new; where the cloud still holds a version, both merge.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Send everything this device holds to the cloud again, as new.") var reupload = false

    func run() throws {
        let session = try device.open()
        let conflicts = PostFilter(kind: .conflicts)
        let before = Set(try session.store.listedPosts(conflicts, offset: 0, limit: Self.conflictsNamed).map(\.post.recordID))
        var done = "synced"
        if reupload {
            try session.reupload()
            done = "sent everything this device holds to the cloud"
        }
        // After a rebuild too: what it could not send (a notebook whose owner has yet to rebuild it) is said, not counted.
        let note = session.sync()
        let refused = try session.store.refusedChanges()
        if let first = refused.first {
            // Everything else went (or waits, as the note says); these did not, and saying "synced" would hide that
            // their only copy is here.
            let more = refused.count == 1 ? "" : " (and \(refused.count - 1) more: cloudnotes status)"
            let failure = note.map { "; also \($0)" } ?? ""
            throw CLIError(message: "not synced: the cloud refused \(first.what) (\(first.id.name)): \(first.reason)\(more); it is kept on "
                           + "this device: edit it to fit, or give it up with cloudnotes discard \(first.id.name)" + failure)
        }
        if let note { throw CLIError(message: note) }
        Output.line("\(done); \(try session.store.pendingCount().counting("change")) waiting")
        // A merge this sync made that kept two texts is the person's to settle: said, not left for them to find.
        let new = try session.store.listedPosts(conflicts, offset: 0, limit: Self.conflictsNamed).map(\.post).filter { !before.contains($0.recordID) }
        for post in new { Output.line("conflict in \(post.title.inlineQuoted) (\(post.id)): both texts are kept; cloudnotes resolve \(post.id) --mine|--theirs|--both") }
        // What others did that touches this account, heard by this sync or an earlier one nobody was shown yet: said
        // once, here or in the front end (`notices` lists them again).
        let notices = try session.store.takeUnshownNotices()
        if !notices.isEmpty {
            let names = try AccountNames(session.cloud)
            for notice in notices.prefix(Self.noticesSaid) { Output.line("notice: " + notice.text(names: names.callAsFunction)) }
            if notices.count > Self.noticesSaid { Output.line("notice: and \(notices.count - Self.noticesSaid) more: cloudnotes notices") }
        }
    }

    /// How many posts with a conflict `sync` looks at, before and after (more are listed by `list --conflicts`).
    static let conflictsNamed = 50
    /// How many new notices `sync` says, at most (`notices` lists them all).
    static let noticesSaid = 10
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Account, device, changes waiting, last sync, last error.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false

    private struct View: Encodable {
        var account: String
        var device: String
        var pending: Int
        var lastSync: Date?
        var lastError: String?
        /// What the sync this command made first did not do as asked (said on stderr too), if anything.
        var thisSync: String?
        /// Posts whose location this device holds no key to open yet.
        var lockedLocations: Int
        /// Changes the cloud refused, kept here and not sent (not counted in `pending`).
        var notSent: [NotSent]

        struct NotSent: Encodable {
            var id: String
            var title: String?
            var reason: String
            var refusedAt: Date
        }
    }

    func run() throws {
        let session = try device.open()
        let thisSync = session.sync()
        let (lastSync, lastError) = try session.store.syncStatus()
        let refused = try session.store.refusedChanges()
        let view = View(account: session.account.name, device: session.device, pending: try session.store.pendingCount(),
                        lastSync: lastSync, lastError: lastError, thisSync: thisSync, lockedLocations: try session.store.lockedLocationCount(),
                        notSent: refused.map { .init(id: $0.id.name, title: $0.title, reason: $0.reason, refusedAt: $0.at) })
        if json { return try Output.json(view) }
        var rows = [["account", view.account], ["device", view.device], ["pending", String(view.pending)]]
        if !refused.isEmpty {
            rows.append(["not sent", "\(refused.count) — refused by the cloud, kept on this device (edit to fit, or cloudnotes discard ID)"])
            rows += refused.map { ["", "\($0.id.name) \($0.what): \($0.reason)"] }
        }
        rows += [["last sync", lastSync.map(Output.date) ?? "never"], ["last error", lastError ?? "none"]]
        if let thisSync, lastError == nil { rows.append(["just now", thisSync]) }  // (a failure is the last error)
        if view.lockedLocations > 0 {
            let posts = view.lockedLocations.counting("post")
            rows.append(["locked", "\(posts) with a location sealed with a key this device has not been granted yet "
                         + "(the owner's devices grant it when they next sync)"])
        }
        Output.table(rows)
    }
}
