import Cloud
import Foundation
import Notes

/// The history view (`h`) and the trash (`T`): both read from the cloud, and bring back by editing,
/// so a restore merges with what changed since like any edit.
extension FrontEnd {
    func openHistory() {
        guard let history = context.history, let post = selectedPost else { return }
        fromCloud("no history", { try history.versions(of: post) }) { fe, versions in
            guard !versions.isEmpty else { return fe.flash("\"\(post.title)\" has no history in the cloud (deleted there, and its trash emptied)", .warning) }
            fe.state.mode = .history(HistoryBrowser(post: post, versions: versions))
        }
    }

    func openTrash() {
        guard let history = context.history else { return }
        fromCloud("no trash", { try history.trash() }) { fe, deleted in
            guard !deleted.isEmpty else {
                guard let waiting = fe.readStore("the deletions on the way to the cloud", { try fe.context.store.pendingCount(deletionsOnly: true) })
                else { return }
                return fe.flash(waiting == 0 ? "the trash is empty"
                                : "the trash is empty for now: \(waiting) \(waiting == 1 ? "deletion is" : "deletions are") still on the way to the cloud")
            }
            fe.state.mode = .trash(TrashBrowser(deleted: deleted))
        }
    }

    /// Reads from the cloud off this thread (`askCloud`), then shows what came, unless the person has left the
    /// list since.
    func fromCloud<Value: Sendable>(_ failure: String, _ read: @escaping @Sendable () throws -> Value,
                                    show: @escaping @Sendable (FrontEnd, Value) -> Void) {
        askCloud(read) { fe, outcome in
            guard case .browse = fe.state.mode else { return }
            switch outcome {
            case .success(let value):
                fe.state.flash = nil
                show(fe, value)
            case .failure(let error): fe.flash("\(failure): \(error)", .error)
            }
        }
    }

    func historyKey(_ browser: inout HistoryBrowser, _ key: Key) {
        switch key {
        case .escape, .char("q"), .char("h"):
            state.mode = .browse
            return
        case .down, .char("j"): browser.selection = min(browser.versions.count - 1, browser.selection + 1)
        case .up, .char("k"): browser.selection = max(0, browser.selection - 1)
        case .char("r"), .enter:
            let version = browser.versions[browser.selection]
            if version.isCurrent { return flash("version \(version.number) is the current one", .warning) }
            if let reason = context.sharing.readOnlyReason(for: browser.post) { return flash(reason, .warning) }
            return confirm("Bring back version \(version.number) of \"\(browser.post.title)\" as a new edit? What changed since stays where it does not clash.",
                           "Restore", .restoreVersion(browser.post, version))
        default: break
        }
        state.mode = .history(browser)
    }

    func trashKey(_ browser: inout TrashBrowser, _ key: Key) {
        switch key {
        case .escape, .char("q"):
            state.mode = .browse
            return
        case .down, .char("j"): browser.selection = min(browser.deleted.count - 1, browser.selection + 1)
        case .up, .char("k"): browser.selection = max(0, browser.selection - 1)
        case .char("r"), .enter:
            let deleted = browser.deleted[browser.selection]
            if deleted.post.scope == .shared, let reason = context.sharing.readOnlyReason(for: deleted.post) { return flash(reason, .warning) }
            return confirm("Bring back \"\(deleted.post.title)\"?", "Restore", .restoreDeleted(deleted))
        default: break
        }
        state.mode = .trash(browser)
    }

    func restore(_ post: Post, version: PostHistory.Version) {
        guard let history = context.history else { return }
        do {
            let saved = try history.restore(post, to: version, by: context.editor, now: context.now())
            changed()
            select(saved.post)  // now the newest: the selection goes with it
            flash("brought back version \(version.number) of \"\(saved.post.title)\"" + (saved.conflicted ? "; it also changed since: both texts are kept" : ""))
        } catch {
            flash("not restored: \(error)", .error)
        }
    }

    func restore(_ deleted: PostHistory.Deleted) {
        guard let history = context.history else { return }
        do {
            let post = try history.restoreDeleted(deleted)
            changed()
            select(post)
            flash("brought back \"\(post.title)\"")
        } catch {
            flash("not restored: \(error)", .error)
        }
    }

    func emptyTrash() {
        guard let history = context.history else { return }
        askCloud({ try history.emptyTrash() }) { fe, outcome in
            switch outcome {
            case .success(let count): fe.flash("emptied the trash: \(count.counting("post")) can no longer be brought back")
            case .failure(let error): fe.flash("not emptied: \(error)", .error)
            }
        }
    }

    /// What the history or trash overlay shows: a line per version (or deleted post), and below, the
    /// selected one: what it changed from the version before it, or what the deleted post held.
    func browserModel() -> ScreenModel.Browser? {
        let now = context.now()
        func stamp(_ post: Post) -> String {
            "\(post.modifiedBy.map(context.names) ?? "?") · \(post.modifiedAt.map { RelativeTime.text($0, now: now) } ?? "?")"
        }
        switch state.mode {
        case .history(let browser):
            let rows = browser.versions.map { "version \($0.number) · \(stamp($0.post))\($0.isCurrent ? " · current" : "")" }
            let version = browser.versions[browser.selection]
            let older = browser.versions.indices.contains(browser.selection + 1) ? browser.versions[browser.selection + 1].post : nil
            var body: [(String, Role)] = []
            if older?.title != version.post.title { body.append(("title: \(version.post.title)", .heading)) }
            if older?.tags != version.post.tags, !version.post.tags.isEmpty { body.append(("tags: \(version.post.tags.joined(separator: ", "))", .dim)) }
            for line in DiffLine.lines(from: older?.content ?? "", to: version.post.content) {
                switch line {
                case .same(let text): body.append(("  " + text, .dim))
                case .added(let text): body.append(("+ " + text, .pending))
                case .removed(let text): body.append(("- " + text, .conflict))
                }
            }
            return ScreenModel.Browser(title: "History of \"\(browser.post.title)\" · r restores · Esc closes", rows: rows,
                                       selection: browser.selection, body: body)
        case .trash(let browser):
            let rows = browser.deleted.map {
                "\($0.post.title.isEmpty ? "(untitled)" : $0.post.title) · \($0.post.zone.name) · deleted \(RelativeTime.text($0.deletedAt, now: now)) by \(context.names($0.deletedBy))"
            }
            let post = browser.deleted[browser.selection].post
            let body = [("title: \(post.title)", Role.heading)] + post.content.split(separator: "\n", omittingEmptySubsequences: false).map { (String($0), Role.normal) }
            return ScreenModel.Browser(title: "Recently deleted · r brings back · Esc closes", rows: rows, selection: browser.selection, body: body)
        case .inbox(let browser):
            let rows = browser.invitations.map { invitation -> String in
                let what = invitation.metadata.rootRecord == nil ? "notebook \(invitation.metadata.title)" : "\"\(invitation.metadata.title)\""
                return "\(what) from \(invitation.metadata.ownerName) · you may \(invitation.metadata.permission.text)"
            }
            let asked = browser.requests.map { "\($0.request.name) asks to join \"\($0.share.title)\" · a lets in · x denies · b blocks" }
            return ScreenModel.Browser(title: "Invitations · a accepts · x declines · Esc closes", rows: rows + asked,
                                       selection: browser.selection, body: [])
        case .messages(let selection):
            let rows = messages.map { "\(RelativeTime.text($0.at, now: now).padding(toLength: 6, withPad: " ", startingAt: 0)) \($0.flash.text)" }
            let chosen = messages[min(selection, messages.count - 1)].flash
            let role: Role = switch chosen.level {
            case .info: .normal
            case .warning: .warning
            case .error: .error
            }
            // The whole message, in lines as wide as the box (see `Overlays.browser`), the list making room for it.
            let body = chosen.text.wrapped(to: max(1, size.width - 6)).map { ($0, role) }
            return ScreenModel.Browser(title: "Messages · Esc closes", rows: rows, selection: selection, body: body, bodyFirst: true)
        case .notices(let notices):
            let rows = notices.map { "\(RelativeTime.text($0.at, now: now).padding(toLength: 6, withPad: " ", startingAt: 0)) \($0.text(names: context.names))" }
            return ScreenModel.Browser(title: "Notices · Esc closes", rows: rows, selection: -1, body: [])
        default:
            return nil
        }
    }
}
