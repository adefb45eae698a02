import Cloud
import Foundation
import Notes

/// Keys, by mode: browsing runs the registry's commands; dialogs and editors take keys first.
extension FrontEnd {
    public func handle(_ key: Key) {
        if key == .resize { return invalidateWindow() }
        if case .mouse(let event) = key { return mouse(event) }
        switch state.mode {
        case .browse:
            if key == .escape { return stepBack() }
            if let command = Commands.command(for: key, in: state.focus) { perform(command.id) }
        case .help(var screen):
            helpKey(&screen, key)
        case .prompt(var prompt):
            switch key {
            case .escape, .ctrl("c"):
                state.mode = .browse
                if prompt.purpose == .search { search("") }  // Esc clears the search; Enter keeps it
            case .enter:
                state.mode = .browse
                submit(prompt)
            default:
                if prompt.purpose == .command, paletteKey(&prompt, key) { return state.mode = .prompt(prompt) }
                edit(&prompt.editor, key)
                if prompt.purpose == .command {
                    prompt.candidates = completions(prompt.editor.text)
                    prompt.candidate = nil
                }
                state.mode = .prompt(prompt)
                // The list follows the line at the next frame, not at each key: a paste of a thousand
                // characters is one search, not a thousand.
            }
        case .confirm(var confirmation):
            switch key {
            case .escape, .char("n"), .ctrl("c"): cancel(confirmation.action)
            case .char("y"): carryOut(confirmation.action)
            case .enter:
                if confirmation.confirmFocused { carryOut(confirmation.action) } else { cancel(confirmation.action) }
            case .left, .right, .tab, .backTab, .char("h"), .char("l"):
                confirmation.confirmFocused.toggle()
                state.mode = .confirm(confirmation)
            default: break
            }
        case .edit(var form):
            editForm(&form, key)
        case .share(var dialog):
            shareKey(&dialog, key)
        case .pickFilter(var picker):
            switch key {
            case .escape, .char("q"): state.mode = .browse
            case .down, .char("j"): picker.selection = min(picker.entries.count - 1, picker.selection + 1)
            case .up, .char("k"): picker.selection = max(0, picker.selection - 1)
            case .char("g"), .home: picker.selection = 0
            case .char("G"), .end: picker.selection = picker.entries.count - 1
            case .enter:
                state.mode = .browse
                return toggle(picker.entries[picker.selection].entry)
            default: break
            }
            if case .pickFilter = state.mode { state.mode = .pickFilter(picker) }
        case .pickComment(var picker):
            commentKey(&picker, key)
        case .history(var browser):
            historyKey(&browser, key)
        case .trash(var browser):
            trashKey(&browser, key)
        case .notices:
            if [.escape, .char("q"), .enter].contains(key) { state.mode = .browse }
        case .messages(var selection):
            switch key {
            case .escape, .char("q"), .enter: return state.mode = .browse
            case .down, .char("j"): selection = min(messages.count - 1, selection + 1)
            case .up, .char("k"): selection = max(0, selection - 1)
            default: break
            }
            state.mode = .messages(selection: selection)
        case .inbox(var browser):
            inboxKey(&browser, key)
        case .shareScreen(var screen):
            shareScreenKey(&screen, key)
        }
    }

    /// `?`: scrolling, and `/` to find a key or a word in it.
    func helpKey(_ screen: inout HelpScreen, _ key: Key) {
        if screen.searching {
            switch key {
            case .escape, .ctrl("c"):
                screen.search = TextEditor(text: "", multiline: false)
                screen.searching = false
            case .enter: screen.searching = false
            default: edit(&screen.search, key)
            }
            screen.scroll = 0
            return state.mode = .help(screen)
        }
        let page = max(1, size.height - 6)
        switch key {
        case .escape where !screen.search.text.isEmpty: screen.search = TextEditor(text: "", multiline: false)
        case .escape, .char("q"), .char("?"), .enter: return state.mode = .browse
        case .char("j"), .down: screen.scroll += 1
        case .char("k"), .up: screen.scroll = max(0, screen.scroll - 1)
        case .pageDown, .char(" "), .ctrl("d"): screen.scroll += page
        case .pageUp, .ctrl("u"): screen.scroll = max(0, screen.scroll - page)
        case .char("g"), .home: screen.scroll = 0
        case .char("G"), .end: screen.scroll = Int.max / 2  // the frame brings it back to the last page
        case .char("/"): screen.searching = true
        default: break
        }
        state.mode = .help(screen)
    }

    /// The terminal changed size: the list may show more or fewer rows.
    func invalidateWindow() { window = nil }

    /// Keys every text field shares.
    func edit(_ editor: inout TextEditor, _ key: Key, width: Int = 60) {
        switch key {
        case .char(let c) where !c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }):
            editor.insert(c)  // (a control character pasted in would be invisible, and would still split words)
        case .paste(let text): editor.insert(pasted: text)
        case .enter: editor.newline()
        case .backspace: editor.backspace()
        case .delete: editor.deleteForward()
        case .left: editor.moveLeft()
        case .right: editor.moveRight()
        case .up: editor.moveVertically(-1, width: width)
        case .down: editor.moveVertically(1, width: width)
        case .home, .ctrl("a"): editor.moveHome()
        case .end, .ctrl("e"): editor.moveEnd()
        case .ctrl("u"): editor.deleteToLineStart()
        case .ctrl("k"): editor.deleteToLineEnd()
        case .ctrl("z"), .ctrl("_"): editor.undo()
        default: break
        }
    }

    func submit(_ prompt: Prompt) {
        let text = prompt.editor.text.trimmingCharacters(in: .whitespaces)
        switch prompt.purpose {
        case .search: search(text, kept: true)
        case .comment: addComment(text)
        case .editComment(let comment): editComment(comment, text)
        case .invite(let post): invite(text, to: post)
        case .accept: accept(text)
        case .newNotebook: createNotebook(text)
        case .command: runCommandLine(text)
        }
    }

    /// `:name argument`: any command of the registry by name, or by the start of one name.
    func runCommandLine(_ line: String) {
        guard !line.isEmpty else { return }
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        var name = parts[0] == "q" ? "quit" : parts[0]
        if Commands.command(named: name) == nil {
            let starting = Commands.all.map(\.name).filter { $0.hasPrefix(name) }
            guard starting.count == 1 else {
                let said = starting.isEmpty ? "no command named \"\(name)\" (? lists them)"
                    : "\"\(name)\" could be \(starting.prefix(6).joined(separator: ", "))\(starting.count > 6 ? ", …" : "") (Tab completes)"
                return flash(said, .warning)
            }
            name = starting[0]
        }
        guard let command = Commands.command(named: name) else { return }
        if command.id != .accept { remember(line) }  // a share's URL admits whoever holds it: not kept in a file
        perform(command.id, argument: command.takesArgument ? (parts.count > 1 ? parts[1] : nil) : nil)
    }

    // MARK: Writing

    func newPost() {
        let book = state.filter.notebook.flatMap { $0.scope == .private ? $0 : nil }
            ?? readStore("a notebook to write in", { try context.store.ensureDefaultNotebook(owner: context.account.id) })
        guard let book else { return }  // said
        let post = Post(id: context.newID("p"), zone: book.zone, title: "")
        state.mode = .edit(PostForm(post: post, isNew: true))
    }

    func editForm(_ form: inout PostForm, _ key: Key) {
        let fields = PostForm.Field.allCases
        switch key {
        case .ctrl("s"):
            return save(form)
        case .escape, .ctrl("c"):
            if form.isChanged && !(form.isNew && form.edited.title.isEmpty && form.edited.content.isEmpty) {
                confirm("Leave without saving? What you typed here is lost.", "Discard", .discard(form))
            } else {
                state.mode = .browse
            }
            return
        case .tab: form.field = fields[(form.field.rawValue + 1) % fields.count]
        case .backTab: form.field = fields[(form.field.rawValue + fields.count - 1) % fields.count]
        case .enter where form.field != .content: form.field = fields[form.field.rawValue + 1]
        default:
            let width = max(10, Layout(width: size.width, height: size.height, participants: nil).editor.width - 4)
            edit(&form[form.field], key, width: width)
        }
        state.mode = .edit(form)
    }

    /// Saves the form's post, merged with whatever was saved since the form opened (its base); on a
    /// refusal the form stays open, so nothing typed is lost. Text still holding conflict markers the
    /// person typed into (or left) asks first.
    func save(_ form: PostForm, markersConfirmed: Bool = false) {
        let post = form.edited
        guard !post.title.isEmpty else {
            flash("a post needs a title", .warning)
            return state.mode = .edit(form)
        }
        if !form.isNew, let reason = lostReason(form.post) {
            // The text stays: the person may keep it as a post of their own (or go back to the editor).
            return confirm("\(reason). Save your text as a post of your own?", "Save as mine", .saveAsOwn(form))
        }
        if !markersConfirmed, post.fields != form.post.fields,
           ConflictBlock.hasMarkers(post.content) || post.location.map(ConflictBlock.hasMarkers) == true {
            return confirm("The text still holds conflict markers (<<<<<<<, =======, >>>>>>>). Save it as it is? "
                           + "Or cancel, and remove them (m, t or o on the post keeps mine, theirs or both).",
                           "Save anyway", .saveWithMarkers(form))
        }
        let saved: SavedEdit
        do {
            if form.isNew {
                try context.store.save(post, by: context.account.id, on: context.device, now: context.now())
                saved = SavedEdit(post: post)
            } else {
                saved = try context.store.saveEdit(post, from: form.post.fields, by: context.editor, now: context.now())
            }
        } catch {
            flash("not saved: \(error)", .error)
            return state.mode = .edit(form)
        }
        state.mode = .browse
        changed()
        select(post)
        flash(savedNotice(saved, new: form.isNew), saved.conflicted ? .warning : .info, seconds: saved.conflicted ? 8 : 4)
    }

    /// Why an open editor's post can no longer take its edit here: gone from this device (the share ended,
    /// or its owner removed this account) or read-only now; nil when it can.
    func lostReason(_ post: Post) -> String? {
        let title = post.title.isEmpty ? "(untitled)" : post.title
        // (A post of one's own deleted meanwhile is not lost: the edit brings it back.)
        // (A store that cannot be read is not a share that ended: the save that follows meets it and says so.)
        if post.scope == .shared, case .success(nil) = Result(catching: { try context.store.post(id: post.id, zone: post.zone, scope: post.scope) }) {
            return "\"\(title)\" is no longer shared with you"
        }
        return context.sharing.readOnlyReason(for: post).map { "\"\(title)\" is \($0)" }
    }

    /// Keeps an editor's text as a new post in the account's own default notebook.
    func saveAsOwn(_ form: PostForm) {
        do {
            let notes = try context.store.ensureDefaultNotebook(owner: context.account.id)
            var copy = Post(id: context.newID("p"), zone: notes.zone, title: form.edited.title, content: form.edited.content,
                            tags: form.edited.tags, location: form.edited.location)
            copy.modifiedOn = context.device
            try context.store.save(copy, by: context.account.id, on: context.device, now: context.now())
            changed()
            select(copy)
            flash("saved \"\(copy.title)\" as a post of your own in \(notes.title)")
        } catch {
            flash("not saved: \(error)", .error)
            state.mode = .edit(form)
        }
    }

    /// What a save says: written or saved, and whose edit it met.
    func savedNotice(_ saved: SavedEdit, new: Bool) -> String {
        let title = "\"\(saved.post.title)\""
        if saved.conflicted, let other = saved.mergedWith {
            return "\(title) saved; \(other.name) changed the same text: both kept (m mine · t theirs · o both)"
        }
        if let other = saved.mergedWith { return "\(title) saved, merged with \(other.name)'s edit" }
        if saved.restored { return "\(title) saved; it had been deleted elsewhere, your edit brought it back" }
        return new ? "\(title) written" : "\(title) saved"
    }

    /// Keeps mine, theirs or both of the selected post's conflict.
    func resolveConflict(_ choice: ConflictResolution.Choice) {
        guard let post = selectedDetail()?.post else { return }
        do {
            let saved = try context.store.resolve(post, keeping: choice, by: context.editor, now: context.now())
            changed()
            flash(saved.conflicted ? "\"\(post.title)\": an edit arrived meanwhile and overlaps again" : "\"\(post.title)\" resolved, keeping \(choice.rawValue)",
                  saved.conflicted ? .warning : .info)
        } catch let failure as ConflictResolution.Failure {
            flash("\(failure)", .warning)
        } catch {
            flash("not resolved: \(error)", .error)
        }
    }

    /// Puts the selection on `post` (showing every notebook when the one shown does not hold it); an update
    /// that arrives before the next frame keeps it there.
    func select(_ post: Post) {
        var position = try? context.store.position(of: post, state.filter)
        if position == nil, state.filter.notebook != nil {
            show(nil)
            position = try? context.store.position(of: post, state.filter)
        }
        // Not found (a post the search does not match; a store that cannot be read, which the list itself
        // reports when it reads): the selection stays where it was.
        guard let position else { return }
        state.selection = position
        anchor = (post, position)
    }

    /// The host ran $EDITOR over `externalEdit`; here is what the file held then.
    /// The text $EDITOR left, or (nil) why it left none: `failure` names the editor and how it ended.
    public func finishExternalEdit(_ text: String?, failure: String? = nil) {
        guard let post = externalEdit else { return }
        externalEdit = nil
        drainInbox()  // what arrived while $EDITOR ran comes first; the save's message after it
        guard let text else { return flash("\(failure ?? "the editor failed"); nothing changed", .error, seconds: 8) }
        let form = ExternalForm.parse(text, into: post)
        guard form.edited != post else { return flash("no changes") }
        save(form)
    }

    func addComment(_ text: String) {
        guard !text.isEmpty, let post = selectedPost else { return }
        let comment = Comment(id: context.newID("c"), postID: post.id, zone: post.zone, scope: post.scope, text: text)
        do {
            try context.store.add(comment, by: context.account.id, now: context.now())
            changed()
            flash("commented on \"\(post.title)\"")
        } catch {
            flash("comment not saved: \(error)", .error)
        }
    }

    func commentKey(_ picker: inout CommentPicker, _ key: Key) {
        let comment = picker.comments[picker.selection]
        let author = comment.createdBy.map(context.names) ?? "its author"
        switch key {
        case .escape, .char("q"):
            state.mode = .browse
            return
        case .down, .char("j"): picker.selection = min(picker.comments.count - 1, picker.selection + 1)
        case .up, .char("k"): picker.selection = max(0, picker.selection - 1)
        case .char("e"), .enter:
            guard comment.createdBy == context.account.id else { return flash("only \(author) edits that comment: it is theirs", .warning) }
            var prompt = Prompt(purpose: .editComment(comment), label: "Comment: ")
            prompt.editor = TextEditor(text: comment.text, multiline: false)
            state.mode = .prompt(prompt)
            return
        case .char("d"):
            guard comment.createdBy == context.account.id else { return flash("only \(author) deletes that comment: it is theirs", .warning) }
            return confirm("Delete your comment \"\(comment.text.truncated(to: 40))\" on \"\(picker.post.title)\"?", "Delete", .deleteComment(comment))
        default: break
        }
        state.mode = .pickComment(picker)
    }

    func editComment(_ comment: Comment, _ text: String) {
        guard !text.isEmpty else { return flash("an empty comment is not saved: delete it instead (C, d)", .warning) }
        do {
            try context.store.editComment(comment, text: text, by: context.account.id, now: context.now())
            changed()
            flash("comment edited")
        } catch {
            flash("comment not saved: \(error)", .error)
        }
    }

    /// Cancel on a question: a form goes back to its editor, so nothing typed is lost.
    func cancel(_ action: Confirmation.Action) {
        switch action {
        case .discard(let form), .saveWithMarkers(let form), .saveAsOwn(let form): state.mode = .edit(form)
        default: state.mode = .browse
        }
    }

    func carryOut(_ action: Confirmation.Action) {
        state.mode = .browse
        switch action {
        case .saveWithMarkers(let form):
            save(form, markersConfirmed: true)
        case .saveAsOwn(let form):
            saveAsOwn(form)
        case .delete(let post):
            do {
                try context.store.delete(post)
                changed()
                flash("deleted \"\(post.title)\"")
            } catch {
                flash("not deleted: \(error)", .error)
            }
        case .discard:
            flash("left without saving")
        case .requestAccess(let url):
            cloudWork("asked the owner to let you in; accept the URL again once they approve") { try $0.requestAccess(url) }
        case .restoreVersion(let post, let version):
            restore(post, version: version)
        case .restoreDeleted(let deleted):
            restore(deleted)
        case .emptyTrash:
            emptyTrash()
        case .discardRefused(let post):
            do {
                try context.store.discardRefused(post.recordID, in: post.scope)
                changed()
                flash("discarded the change the cloud refused; \"\(post.title)\" is as the cloud has it")
            } catch {
                flash("not discarded: \(error)", .error)
            }
        case .deleteComment(let comment):
            do {
                try context.store.deleteComment(comment, by: context.account.id)
                changed()
                flash("comment deleted")
            } catch {
                flash("comment not deleted: \(error)", .error)
            }
        case .removeParticipant(let post, let address, let name):
            cloudWork("removed \(name) from \"\(post.title)\"") { try $0.removeParticipant(email: address, from: post) }
        case .stopSharing(let post):
            cloudWork("stopped sharing \(sharedName(of: post).text)") { try $0.stopSharing(post) }
        case .leave(let post):
            cloudWork("left \(sharedName(of: post).text)") { try $0.leave(post) }
        }
    }

    /// Esc in the browser: one level back: from another pane to the list, then the search, then the other
    /// filters, then the notebook.
    func stepBack() {
        var filter = state.filter
        if state.focus != .list {
            return state.focus = .list
        } else if let search = filter.search {
            filter.search = nil
            flash("search for \"\(search.text)\" cleared")
        } else if filter.kind != nil || filter.tag != nil || filter.owner != nil {
            (filter.kind, filter.tag, filter.owner) = (nil, nil, nil)
            flash("filters cleared")
        } else if let book = filter.notebook {
            filter.notebook = nil
            flash("all notebooks shown (was \(book.title))")
        } else {
            return
        }
        show(filter)
    }
}
