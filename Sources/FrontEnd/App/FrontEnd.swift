import Cloud
import Foundation
import Notes

/// The front end's brain: takes keys and store changes, keeps the state, and
/// makes frames. It reads only the rows a screen shows (a list of 100,000
/// posts costs what 20 do) and caches them until the store or the view moves.
/// Used from one thread (the event loop's); other threads `post` to it.
public final class FrontEnd: @unchecked Sendable {
    public let context: FrontEndContext
    public internal(set) var state = FrontEndState()
    /// Text to put on the clipboard (OSC 52); the host takes it.
    public var clipboard: String?
    /// A post to edit in $EDITOR; the host runs it and calls `finishExternalEdit`.
    public var externalEdit: Post?
    /// Why the front end closed by itself (its session with the device ended), for the host to say once it has.
    public private(set) var farewell: String?

    /// The list rows on screen, with their sharing marks.
    struct Window {
        var offset: Int
        var rows: [ListedPost]
        var marks: [SharingMark]
    }

    /// The selected post with what the sharing seam says of it, asked once per selection, not per frame.
    struct SelectedDetail {
        var post: Post
        var detail: ScreenModel.Detail
        var share: Share?
        var isShared: Bool
        var readOnlyReason: String?
        var canDelete: Bool
    }

    var count: Int?
    /// Posts are being indexed for search off this thread (`indexForSearch`); set there, cleared there.
    let indexing = Flag()
    /// `count` stopped at the search's cap: there are more.
    var countIsPartial = false
    private var _searchCountCap = 10_000
    /// The command lines run before (`:` ↑), read once from the device's directory.
    var loadedHistory: [String]?
    /// Every post, whatever the filter ("12 of 3,401").
    var allCount: Int?
    var window: Window?
    var selected: SelectedDetail?
    /// The post the selection was on when the rows were last read, and the selection then.
    var anchor: (post: Post, selection: Int)?
    /// Where the last frame drew something a press stands for a key on (a dialog's buttons).
    var pressTargets: [Grid.Target] = []
    /// Notices gathered while no front end ran are said at the first frame.
    private var noticesSaid = false
    /// Invitations waiting in the inbox, as the last sync round counted them (`LiveSync.Update.inbox`).
    var invitationCount = 0
    /// Requests to join this account's shares, waiting for an answer.
    var requestCount = 0
    /// This front end's editor, as announced to the post's other readers, and when.
    var presenceAnnounced: (post: Post, at: Date)?
    var presenceCheckedFor: RecordID?
    /// Who else has an editor open on a post this device holds.
    var presences: [Presence] = []
    /// Presence calls waiting to run, one at a time (see `inOrder`).
    let presenceCalls = PresenceCalls()
    var status: (text: String, level: Flash.Level)?
    /// What the message line said, newest first (`:messages`).
    var messages: [(at: Date, flash: Flash)] = []
    var listRows = 20
    private var detailShown: String?
    var size = (width: 80, height: 24)
    private let inboxLock = NSLock()
    private var inbox: [@Sendable (FrontEnd) -> Void] = []

    public init(context: FrontEndContext) {
        self.context = context
    }

    // MARK: From other threads

    /// Runs `work` on the event loop's thread at its next turn.
    public func post(_ work: @escaping @Sendable (FrontEnd) -> Void) {
        inboxLock.withLock { inbox.append(work) }
        context.wake()
    }

    /// Runs `work` off this thread (the cloud may be a server, a round trip or a timeout away: the screen keeps
    /// answering meanwhile), saying so, and hands its outcome to `then` back on this thread.
    func askCloud<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value,
                                   then: @escaping @Sendable (FrontEnd, Result<Value, any Error>) -> Void) {
        flash("asking the cloud…")
        context.background { [self] in
            let outcome = Result { try work() }
            post { fe in
                then(fe, outcome)
                fe.invalidate()
            }
        }
    }

    /// Posts that arrived are indexed for search off this thread, a batch at a time, so the first search after
    /// a large sync does not wait for them all (a search still brings the index up to date with what is left).
    func indexForSearch() {
        // (Unreadable: nothing is indexed ahead; a search catches the index up itself and says what fails.)
        guard (try? context.store.searchIsBehind) == true, indexing.set() else { return }
        let store = context.store, indexing = indexing
        context.background {
            // (A batch that fails ends the indexing ahead; a search catches the index up itself and says what fails.)
            while (try? store.catchUpSearchIndex(batch: 500, batches: 1)) == true {}
            indexing.clear()
        }
    }

    public func drainInbox() {
        let work = inboxLock.withLock { defer { inbox = [] }; return inbox }
        for job in work { job(self) }
    }

    /// The store changed (a sync round, another process): reread what shows, tell what arrived.
    public func storeChanged(_ update: LiveSync.Update? = nil) {
        if let ended = update?.sessionEnded {
            // The store is another account's now: nothing more is read from it.
            farewell = ended
            state.quit = true
            return
        }
        // The post the selection is on: read now, or, where changes came faster than frames (the rows are
        // not read since), the one it was on when last read, if the selection has not moved since.
        let keep = window != nil ? selectedPost : anchor.flatMap { $0.selection == state.selection ? $0.post : nil }
        let wasFailing = status.map { $0.level != .info } ?? false  // the status line already says so
        invalidate()
        if let inbox = update?.inbox { (invitationCount, requestCount) = (inbox.invitations, inbox.requests) }
        indexForSearch()
        let editingNow = readPresences()
        var gone: String?
        if let keep, let found = readStore("the posts", { try context.store.position(of: keep, state.filter) }) {
            if let position = found {
                state.selection = position
                anchor = (keep, position)
            } else {
                // Gone: the selection stays at its place, on the post that took it (or the last).
                let arrival = update?.arrivals.first { $0.postID == keep.id && $0.kind == .deleted }
                let title = keep.title.isEmpty ? "(untitled)" : keep.title
                // Unless a message already says why (this front end's own leave or delete).
                if state.flash == nil {
                    gone = (arrival?.notice(name: context.names) ?? "\"\(title)\" is gone") + " · the next post is selected"
                }
                anchor = nil
            }
        }
        if case .pickComment(var picker) = state.mode {  // a comment may have come or gone meanwhile
            picker.comments = readStore("the comments", { try context.store.comments(on: picker.post) }) ?? []
            picker.selection = min(picker.selection, picker.comments.count - 1)
            state.mode = picker.comments.isEmpty ? .browse : .pickComment(picker)
        }
        guard let update else {
            if let said = sayNotices() { return flash(said, .warning, seconds: 8) }
            if let editingNow { return flash(editingNow) }
            if let gone { flash(gone, .warning) }
            return
        }
        let mine = context.account.id
        let notices = update.arrivals.filter { $0.by != mine }.map { $0.notice(name: context.names) }
        let said = sayNotices()
        let report = update.started > 0 ? roundReport(update, arrived: notices.count) : nil
        if let refusal = update.refusals.first {
            // What became of an edit comes first; the notice of why (removed, say) is kept in :notices.
            let what = context.store.spoken(refusal.id) + ": " + (refusal.outcome ?? "\(refusal.error)")
            flash(what + (said.map { " · \($0)" } ?? ""), refusal.kind == .keptAnotherWay ? .warning : .error, seconds: 8)
        } else if let said {
            flash(said, .warning, seconds: 8)
        } else if let report {
            flash(report.text, report.level)
        } else if let error = update.error, !wasFailing {
            flash("sync: \(error)", .warning)
        } else if let gone {
            flash(gone, .warning)
        } else if let editingNow {
            flash(editingNow)
        } else if let first = notices.first {
            flash(notices.count == 1 ? first : "\(first) (and \(notices.count - 1) more changes)", .info)
        }
    }

    /// How the round after `S` or `r` went, once: what it sent or fetched, or why it could not.
    private func roundReport(_ update: LiveSync.Update, arrived: Int) -> (text: String, level: Flash.Level)? {
        guard let asked = state.awaitingRound else { return nil }
        state.awaitingRound = nil
        if let error = update.error {
            status = nil
            return ((asked == .send ? "not sent" : "not fetched") + ": \(error) (\(syncStatus().text))", .warning)
        }
        switch asked {
        case .send:
            do {
                let waiting = try context.store.pendingCount()
                return (waiting == 0 ? "sent: every change is in the cloud" : "sent; \(waiting) \(waiting == 1 ? "change waits" : "changes wait") still", .info)
            } catch {
                return ("sent; what still waits cannot be read: \(error)", .error)
            }
        case .fetch:
            return (arrived == 0 ? "fetched: nothing new" : "fetched: \(arrived.counting("change")) from others", .info)
        }
    }

    /// What others did that touches this account and no front end has said yet: said once, here.
    func sayNotices() -> String? {
        // (The take is one transaction: if it fails the notices stay unshown, and are said at a later round.)
        guard let news = try? context.store.takeUnshownNotices(), let first = news.first else { return nil }
        let text = first.text(names: context.names)
        return news.count == 1 ? text : "\(text) (and \(news.count - 1) more: :notices)"
    }

    /// The filter changed: the list's rows and count again (the store's own count stands).
    func invalidateList() {
        count = nil
        window = nil
        selected = nil
    }

    func invalidate() {
        count = nil
        allCount = nil
        window = nil
        selected = nil
        status = nil
    }

    // MARK: Frames

    /// Draws the current state at a size.
    public func frame(width: Int, height: Int) -> Grid {
        let grid = Renderer.render(model(width: width, height: height), width: width, height: height)
        pressTargets = grid.targets
        return grid
    }

    public func model(width: Int, height: Int) -> ScreenModel {
        drainInbox()
        if state.quit { return ScreenModel() }  // (closing: it may be because the store is no longer this account's)
        updatePresence()
        if !noticesSaid {
            noticesSaid = true
            indexForSearch()  // what arrived while no front end ran
            if let said = sayNotices() { flash(said, .warning, seconds: 8) }
        }
        size = (width, height)
        if case .prompt(let prompt) = state.mode, prompt.purpose == .search { search(prompt.editor.text) }
        if let flash = state.flash, flash.until < context.now() { state.flash = nil }
        listRows = Layout(width: width, height: height, participants: nil).listRows
        // (A selection past a capped count, as a post kept selected may be: the count whole.)
        let total = state.selection >= postCount() - listRows ? exactPostCount() : postCount()
        state.selection = min(max(0, state.selection), max(0, total - 1))
        if state.selection < state.scroll { state.scroll = state.selection }
        if state.selection >= state.scroll + listRows { state.scroll = state.selection - listRows + 1 }
        state.scroll = max(0, min(state.scroll, max(0, total - listRows)))
        let chosen = selectedDetail()
        markSeen()  // before the rows: the selected post is on screen now
        let rows = visibleRows()
        var model = ScreenModel()
        model.account = context.account.name
        model.invitations = invitationCount
        model.requests = requestCount
        model.device = context.device
        let status = syncStatus()
        model.status = status.text
        model.statusLevel = status.level
        model.listTitle = listTitle(shown: total)
        if total > listRows {
            model.listPosition = "\(Self.grouped(state.selection + 1)) of " + (countIsPartial ? "\(Self.grouped(searchCountCap))+" : Self.grouped(total))
        }
        let now = context.now(), me = context.account.id
        model.rows = rows.rows.enumerated().map { index, listed in
            let post = listed.post
            return ScreenModel.Row(title: post.title, notebook: post.zone.name, sharing: rows.marks[index].sharing,
                                   readOnly: rows.marks[index].readOnly, conflicted: post.conflicted, pending: listed.pending, refused: listed.refused,
                                   unread: listed.isUnread(by: me), comments: listed.comments,
                                   age: post.modifiedAt.map { RelativeTime.text($0, now: now) } ?? "",
                                   editor: post.modifiedBy.map { $0 == me ? "you" : context.names($0) } ?? "",
                                   owner: post.zone.owner == me ? nil : context.names(post.zone.owner))
        }
        model.selectedRow = rows.rows.isEmpty ? nil : state.selection - rows.offset
        anchor = selectedPost.map { ($0, state.selection) }
        model.detail = chosen?.detail
        model.detailScroll = state.detailScroll
        if let share = chosen?.share {
            model.participants = share.currentParticipants.map(participantRow)
            if share.publicPermission != .none { model.publicPermission = share.publicPermission.text }
            state.participantSelection = min(state.participantSelection, max(0, (model.participants?.count ?? 1) - 1))
        } else if state.focus == .participants {
            state.focus = .list
        }
        model.selectedParticipant = state.participantSelection
        model.focus = state.focus
        if case .help(var screen) = state.mode {
            model.help = helpLines(matching: screen.search.text)
            let rows = Overlays.helpRows(model.help, width: width).count
            screen.scroll = min(screen.scroll, max(0, rows - Overlays.helpHeight(height: height, screen)))
            state.mode = .help(screen)
        }
        model.mode = state.mode
        model.flash = state.flash
        model.footer = footer()
        model.browser = browserModel()
        model.sharePage = shareScreenModel()
        return model
    }

    /// How many posts the list shows now.
    public func postCount() -> Int {
        if let count { return count }
        // A search counts its matches up to a cap on each key (the title says "10,000+"); the whole count
        // only when the list is taken near its end (see `exactPostCount`).
        let cap = state.filter.search == nil ? nil : searchCountCap
        let counted: Int
        do {
            // (Each store stops past the cap: together they may count further; one past it says "more".)
            counted = try cap.map { min($0 + 1, try context.store.postCount(state.filter, atMost: $0)) } ?? context.store.postCount(state.filter)
        } catch {
            counted = 0  // said, not shown as an empty list that looks true
            flash("cannot read the posts: \(error)", .error)
        }
        countIsPartial = cap.map { counted > $0 } ?? false
        count = counted
        return counted
    }

    /// (A variable so a test can count past it with a few posts.)
    var searchCountCap: Int { get { _searchCountCap } set { _searchCountCap = newValue; invalidate() } }

    /// The count, counted whole where the cap stopped it.
    func exactPostCount() -> Int {
        if postCount() > 0, countIsPartial, let whole = readStore("the posts", { try context.store.postCount(state.filter) }) {
            count = whole
            countIsPartial = false
            window = nil
        }
        return postCount()
    }

    /// The rows on screen, read from the store only when the view moved or the store changed.
    func visibleRows() -> Window {
        if let window, window.offset == state.scroll, window.rows.count == min(listRows, max(0, postCount() - state.scroll)) {
            return window
        }
        // (Read from the end only with the whole count: a capped one does not say where the end is.)
        guard let rows = readStore("the posts", {
            try context.store.listedPosts(state.filter, offset: state.scroll, limit: listRows, total: countIsPartial ? nil : postCount())
        }) else {
            return Window(offset: state.scroll, rows: [], marks: [])  // said; not kept, so the next frame reads again
        }
        let marks = context.sharing.marks(for: rows.map(\.post))
        let fresh = Window(offset: state.scroll, rows: rows, marks: marks)
        window = fresh
        return fresh
    }

    /// The post under the selection, as it stands in the store now.
    var selectedPost: Post? {
        let rows = visibleRows()
        let index = state.selection - rows.offset
        return rows.rows.indices.contains(index) ? rows.rows[index].post : nil
    }

    func selectedDetail() -> SelectedDetail? {
        guard let listed = selectedPost else { return nil }
        if let selected, selected.post.id == listed.id, selected.post.zone == listed.zone, selected.post.scope == listed.scope {
            return selected
        }
        guard let read = readStore("\"\(listed.title)\"", { try context.store.post(id: listed.id, zone: listed.zone, scope: listed.scope) }),
              let post = read else { return nil }
        let share = context.sharing.share(for: post)
        let readOnly = context.sharing.readOnlyReason(for: post)
        // (Comments that cannot be read show as none, and a fact at the top of the pane says why.)
        let comments = Result { try context.store.comments(on: post) }
        var detail = DetailView.make(post, comments: (try? comments.get()) ?? [], share: share,
                                     readOnly: readOnly, names: context.names, now: context.now())
        if case .failure(let error) = comments { detail.facts.insert(("Comments", "cannot be read: \(error)"), at: 0) }
        do {
            if let refusal = try context.store.refusal(of: post) {
                detail.facts.insert(("Not sent", "\(refusal): kept on this device; edit it to fit, or :discard"), at: 0)
            }
        } catch {
            detail.facts.insert(("Not sent", "cannot tell: \(error)"), at: 0)
        }
        let editors = editors(of: post)
        if !editors.isEmpty { detail.facts.insert(("Editing", editors.joined(separator: ", ") + " now"), at: 0) }
        let chosen = SelectedDetail(post: post, detail: detail, share: share, isShared: context.sharing.isShared(post),
                                    readOnlyReason: readOnly, canDelete: context.sharing.canDelete(post))
        if detailShown != post.id { state.detailScroll = 0 }
        detailShown = post.id
        selected = chosen
        return chosen
    }

    /// The selected post is on screen: what others changed in it is no longer new (a write only when it was).
    private func markSeen() {
        guard var window, case let index = state.selection - window.offset, window.rows.indices.contains(index),
              window.rows[index].isUnread(by: context.account.id) else { return }
        let now = context.now()
        // A failed write leaves the post marked new, and it is marked again when next shown: nothing is lost.
        try? context.store.markSeen(window.rows[index].post, now: now)
        window.rows[index].seenAt = now
        self.window = window
    }

    func participantRow(_ p: ShareParticipant) -> ScreenModel.Participant {
        ScreenModel.Participant(name: name(of: p), role: p.role.text, permission: p.permission.text, status: p.status.rawValue)
    }

    /// What a participant is called on screen: the name people know, else the email invited, else what the
    /// share says.
    func name(of p: ShareParticipant) -> String {
        let known = p.userRecordID.map { context.names($0) }.flatMap { $0 == p.userRecordID ? nil : $0 }
        return known ?? p.name ?? p.email ?? p.displayName
    }

    /// How the cloud is told which participant: their email, else their account's name.
    func address(of p: ShareParticipant) -> String {
        p.email ?? p.userRecordID.map { context.names($0) } ?? p.displayName
    }

    func syncStatus() -> (text: String, level: Flash.Level) {
        if let status { return status }
        let computed: (String, Flash.Level)
        switch context.sync?.status() {
        case nil: computed = ("synced by another process of this device", .info)
        case .elsewhere(let n)?: computed = (n == 0 ? "● synced by another process" : "↑ \(n) waiting for the syncing process", .info)
        case .synced?: computed = ("● synced", .info)
        case .sending(let n)?: computed = ("↑ sending \(n)", .info)
        case .offline(let n, let retryAt)?: computed = ("offline · \(n) waiting" + retrying(retryAt), .warning)
        case .busy(let n, let retryAt)?: computed = ("the cloud is busy · \(n) waiting" + retrying(retryAt), .warning)
        case .error(let message)?: computed = ("error: \(message)", .error)
        case .notSent(let n, let reason)?: computed = ((n == 1 ? "! not sent: " : "! \(n) not sent: ") + reason, .error)
        }
        status = computed
        return computed
    }

    /// " · retrying in 5 s", in whole seconds, or "… now" when the time has come.
    private func retrying(_ at: Date?) -> String {
        guard let at else { return "" }
        let seconds = Int(at.timeIntervalSince(context.now()).rounded(.up))
        return seconds > 0 ? " · retrying in \(seconds) s" : " · retrying now"
    }

    /// A second passed: the sync status is read again and an expired flash goes at the next frame.
    public func tick() { status = nil }

    // MARK: Messages

    /// What `read` returns, or nil with the failure said on the message line: a store that cannot be read shows
    /// as that, never as an empty list, a zero or a post gone.
    func readStore<T>(_ what: String, _ read: () throws -> T) -> T? {
        do {
            return try read()
        } catch {
            flash("cannot read \(what): \(error)", .error)
            return nil
        }
    }

    func flash(_ text: String, _ level: Flash.Level = .info, seconds: TimeInterval = 4) {
        state.flash = Flash(text: text, level: level, until: context.now().addingTimeInterval(seconds))
        // Kept for `:messages` (a long one is cut on the message line), the last hundred, not "asking…" ones, nor
        // one said again at once (a store that cannot be read says so at every frame).
        if !text.hasSuffix("…"), messages.first?.flash.text != text {
            messages.insert((context.now(), state.flash!), at: 0)
            if messages.count > 100 { messages.removeLast() }
        }
    }
}

/// A flag shared between threads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// Sets it; false if it was set already.
    func set() -> Bool { lock.withLock { defer { value = true }; return !value } }
    func clear() { lock.withLock { value = false } }
}
