import Cloud
import Foundation
import Notes

/// What each command of the registry does, and when it may not.
extension FrontEnd {
    /// Why a command cannot run now (shown greyed in the footer; said when pressed); nil when it can.
    public func disabledReason(_ id: CommandID) -> String? {
        let chosen = selectedDetail()
        let post = chosen?.post
        switch id {
        case .keepMine, .keepTheirs, .keepBoth:
            guard let chosen, let post else { return "no post selected" }
            if let reason = chosen.readOnlyReason { return reason }
            return post.conflicted ? nil : "\"\(post.title)\" holds no conflict"
        case .edit, .editExternal, .delete, .comment:
            guard let chosen, let post else { return "no post selected" }
            if let reason = chosen.readOnlyReason { return reason }
            if id == .delete, !chosen.canDelete { return "only its owner deletes \"\(post.title)\": it is the post they shared" }
            return nil
        case .share, .shareNotebook:
            guard let post else { return "no post selected" }
            guard context.postSharing != nil else { return "sharing needs the cloud" }
            if post.scope == .shared, chosen?.share == nil { return "shared with you by \(context.names(post.zone.owner)): only the owner shares it" }
            return nil
        case .stopSharing:
            guard let post else { return "no post selected" }
            if post.scope == .shared { return "shared with you: leave it instead (L)" }
            return chosen?.isShared == true ? nil : "\"\(post.title)\" is not shared"
        case .leave:
            guard let post else { return "no post selected" }
            return post.scope == .shared ? nil : "\"\(post.title)\" is yours: stop sharing it instead (X)"
        case .removeParticipant, .togglePermission:
            guard let post, let person = selectedParticipant else { return "select a participant first (Tab)" }
            if post.scope == .shared { return "only the owner manages participants" }
            if person.role == .owner { return "the owner keeps the share" }
            return nil
        case .history:
            guard post != nil else { return "no post selected" }
            return context.history == nil ? "history is kept by the cloud, and there is none" : nil
        case .trash, .emptyTrash:
            return context.history == nil ? "the trash is kept by the cloud, and there is none" : nil
        case .inbox:
            return context.postSharing == nil ? "invitations come through the cloud, and there is none" : nil
        case .comments:
            guard let post else { return "no post selected" }
            do {
                return try context.store.comments(on: post).isEmpty ? "\"\(post.title)\" has no comments" : nil
            } catch {
                return "cannot read the comments: \(error)"
            }
        case .searchNext, .searchPrevious:
            return state.filter.search == nil ? "search first (/)" : nil
        case .accept:
            return context.postSharing == nil ? "accepting needs the cloud" : nil
        case .refresh, .send:
            return context.sync == nil ? "another process of this device syncs it" : nil
        case .reupload:
            return context.sync?.cloudChanged == true ? nil : "the cloud is the one this device synced with: nothing to rebuild"
        case .discardRefused:
            guard let post else { return "no post selected" }
            do {
                return try context.store.refusal(of: post) == nil ? "the cloud refused no change of \"\(post.title)\": nothing to discard" : nil
            } catch {
                return "cannot tell whether the cloud refused \"\(post.title)\": \(error)"
            }
        default:
            return nil
        }
    }

    var selectedParticipant: ShareParticipant? {
        guard state.focus == .participants, let share = selectedDetail()?.share else { return nil }
        let people = share.currentParticipants
        return people.indices.contains(state.participantSelection) ? people[state.participantSelection] : nil
    }

    /// Runs a command if it may run; otherwise says why.
    public func perform(_ id: CommandID, argument: String? = nil) {
        if let reason = disabledReason(id) { return flash(reason, .warning) }
        switch id {
        case .quit: state.quit = true
        case .help: state.mode = .help(HelpScreen())
        case .commandLine: state.mode = .prompt(Prompt(purpose: .command, label: ":"))
        case .down: move(1)
        case .up: move(-1)
        case .pageDown: move(max(1, listRows - 1))
        case .pageUp: move(-max(1, listRows - 1))
        case .top: move(-Int.max / 2)
        case .bottom: move(Int.max / 2)
        case .nextPane, .previousPane: cycleFocus(id == .nextPane ? 1 : -1)
        case .export: export(to: argument ?? "cloudnotes-export")
        case .open:
            if let argument { return open(titled: argument) }
            state.focus = .detail
        case .newPost: newPost()
        case .edit: if let post = selectedDetail()?.post { state.mode = .edit(PostForm(post: post, isNew: false)) }
        case .editExternal: externalEdit = selectedDetail()?.post
        case .delete:
            guard let post = selectedPost else { return }
            confirm("Delete \"\(post.title)\"? It goes from your devices and from everyone it is shared with.", "Delete", .delete(post))
        case .comment: state.mode = .prompt(Prompt(purpose: .comment, label: "Comment: "))
        case .history: openHistory()
        case .inbox: openInbox()
        case .messages:
            if messages.isEmpty { flash("no messages yet") } else { state.mode = .messages(selection: 0) }
        case .notices:
            guard let notices = readStore("the notices", { try context.store.notices() }) else { return }
            if notices.isEmpty { flash("no notices yet") } else { state.mode = .notices(notices) }
        case .trash: openTrash()
        case .emptyTrash:
            confirm("Empty the trash of your notebooks? Posts deleted from them can no longer be brought back.", "Empty", .emptyTrash)
        case .comments:
            guard let post = selectedPost, let comments = readStore("the comments", { try context.store.comments(on: post) }) else { return }
            state.mode = .pickComment(CommentPicker(post: post, comments: comments))
        case .search:
            if let argument { search(argument, kept: true) } else { startSearch() }
        case .searchNext: nextMatch(1)
        case .searchPrevious: nextMatch(-1)
        case .filter:
            if let argument { filter(named: argument) } else { pickFilter() }
        case .newNotebook:
            if let argument { createNotebook(argument) } else { state.mode = .prompt(Prompt(purpose: .newNotebook, label: "New notebook: ")) }
        case .refresh:
            state.awaitingRound = .fetch
            context.sync?.refresh()
            flash("fetching from the cloud…")
        case .send:
            // A count that cannot be read still sends: the sync says what went.
            let waiting = readStore("what waits to be sent", { try context.store.pendingCount() })
            guard waiting != 0 else { return flash("nothing waits to be sent") }
            state.awaitingRound = .send
            context.sync?.changesAdded()
            if let waiting { flash("sending \(waiting.counting("waiting change"))…") }
        case .share:
            guard let post = selectedPost else { return }
            if selectedDetail()?.share != nil { return openShareScreen(post) }
            state.mode = .share(ShareDialog(target: .post(post)))
        case .shareNotebook:
            guard let post = selectedPost else { return }
            if selectedDetail()?.share?.isZoneWide == true { return openShareScreen(post) }
            guard let books = readStore("the notebooks", { try context.store.notebooks() }) else { return }
            guard let book = books.first(where: { $0.zone == post.zone && $0.scope == .private }) else {
                return flash("only the owner shares a notebook: this one is \(context.names(post.zone.owner))'s", .warning)
            }
            state.mode = .share(ShareDialog(target: .notebook(book)))
        case .removeParticipant:
            guard let post = selectedPost, let person = selectedParticipant else { return }
            confirm("Take \(name(of: person)) off \"\(post.title)\"? They lose it; nobody else does.", "Remove",
                    .removeParticipant(post, address: address(of: person), name: name(of: person)))
        case .togglePermission:
            guard let post = selectedPost, let person = selectedParticipant else { return }
            let permission: SharePermission = person.permission == .readWrite ? .readOnly : .readWrite
            let address = address(of: person)
            cloudWork("\(name(of: person)) is now \(permission.text) on \"\(post.title)\"") { try $0.setPermission(permission, email: address, on: post) }
        case .stopSharing:
            guard let post = selectedPost else { return }
            let (name, whole) = sharedName(of: post)
            confirm("Stop sharing \(name)? Every participant loses \(whole ? "its posts" : "it").", "Stop sharing", .stopSharing(post))
        case .leave:
            guard let post = selectedPost else { return }
            let (name, whole) = sharedName(of: post)
            confirm("Leave \(name)? Only you lose \(whole ? "its posts" : "it"); its owner keeps \(whole ? "them" : "it").", "Leave", .leave(post))
        case .accept:
            if let argument { accept(argument) } else { state.mode = .prompt(Prompt(purpose: .accept, label: "Accept URL: ")) }
        case .reupload:
            context.sync?.reupload()
            flash("sending everything this device holds to the cloud…")
        case .discardRefused:
            guard let post = selectedPost else { return }
            let kept = (try? context.store.cloudHasCopy(of: post)) ?? true  // (unknown: the milder words; discarding itself says)
            let gone = kept ? "goes back to the copy the cloud holds" : "is removed: the cloud never had it"
            confirm("Discard the change the cloud refused? \"\(post.title)\" \(gone), and the text typed here is lost.", "Discard",
                    .discardRefused(post))
        case .keepMine: resolveConflict(.mine)
        case .keepTheirs: resolveConflict(.theirs)
        case .keepBoth: resolveConflict(.both)
        }
    }

    // MARK: Moving

    func move(_ delta: Int) {
        switch state.focus {
        case .list:
            // Near the end of a capped count, the whole one: G goes to the true last match.
            let total = state.selection + delta >= postCount() - listRows ? exactPostCount() : postCount()
            let target = delta > 0 ? min(total - 1, state.selection + min(delta, total)) : max(0, state.selection - min(-delta, total))
            state.selection = max(0, target)
        case .detail:
            state.detailScroll = max(0, state.detailScroll + max(-1000, min(1000, delta)))
        case .participants:
            state.participantSelection = max(0, state.participantSelection + max(-1000, min(1000, delta)))
        }
    }

    func cycleFocus(_ step: Int) {
        var panes: [Pane] = [.list, .detail]
        if selectedDetail()?.share != nil { panes.append(.participants) }
        let index = panes.firstIndex(of: state.focus) ?? 0
        state.focus = panes[(index + step + panes.count) % panes.count]
    }

    /// What a post's share is called: "notebook Trip (12 posts)" when shared whole (see `DeviceStore.sharedName`).
    func sharedName(of post: Post) -> (text: String, wholeNotebook: Bool) {
        do {
            return try context.store.sharedName(of: post)
        } catch {
            // Said whole, so nobody agrees to something that sounds smaller than it is.
            return ("\"\(post.title)\" (what is shared with it cannot be read here: \(error))", false)
        }
    }

    func confirm(_ question: String, _ label: String, _ action: Confirmation.Action) {
        state.mode = .confirm(Confirmation(question: question, confirmLabel: label, action: action))
    }

    func createNotebook(_ title: String) {
        let title = title.trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty, !title.contains("/") else { return flash("a notebook needs a plain name", .warning) }
        do {
            // In any case: "trip" beside "Trip" could not be told apart (`newNotebookRefusal`).
            if let existing = try context.store.notebooks().first(where: {
                $0.scope == .private && $0.title.compare(title, options: .caseInsensitive) == .orderedSame
            }) {
                show(existing)
                return flash("notebook \(existing.title) exists already; it is shown now")
            }
            show(try context.store.createNotebook(title, owner: context.account.id))
            changed()
            flash("notebook \(title) created; new posts go into it while it is shown")
        } catch {
            flash("could not create the notebook: \(error)", .error)
        }
    }

    /// After a local write: reread, and have it sent soon.
    func changed() {
        invalidate()
        context.sync?.changesAdded()
    }
}
