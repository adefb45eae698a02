import Cloud
import Foundation
import Notes

/// What the list shows: `/` filters it as you type, `f` picks a notebook, a kind of post, a tag or an owner;
/// they combine, and the list's title says which are on.
extension FrontEnd {
    // MARK: Search

    /// `/`: the search line, holding the current search to change it; the list follows each key.
    func startSearch() {
        var prompt = Prompt(purpose: .search, label: "/")
        if let text = state.search { prompt.editor = TextEditor(text: text, multiline: false) }
        state.mode = .prompt(prompt)
    }

    /// Shows only the posts with every word of `text` (see `PostSearch`), the first of them selected;
    /// empty text shows them all again. `kept`: the search is done (Enter, `:search`), so a search that
    /// finds nothing says so.
    func search(_ text: String, kept: Bool = false) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard state.filter.search?.text != text else { return }
        let search = PostSearch.words(text).isEmpty ? nil : PostSearch(text, people: people(named:))
        defer {
            if kept, search != nil, postCount() == 0 { flash("nothing matches \"\(text)\"", .warning) }
            if search == nil, !text.isEmpty { flash("\"\(text.prefix(40))\" holds no letter, digit or emoji to look for", .warning) }
        }
        guard search != state.filter.search else { return }
        state.filter.search = search
        state.selection = 0
        state.scroll = 0
        state.focus = .list
        state.flash = nil  // what an earlier search said is no longer true
        invalidateList()
    }

    /// The accounts this device knows whose names hold a word starting with `word`.
    func people(named word: String) -> [String] {
        (readStore("the people this device knows", { try context.store.knownPeople() }) ?? []).filter { PostSearch.matches(context.names($0), word) }.sorted()
    }

    /// `n`/`N`: the next or previous match, which in a filtered list is the next or previous row.
    func nextMatch(_ step: Int) {
        state.focus = .list
        let total = state.selection + step < 0 || state.selection + step >= postCount() ? exactPostCount() : postCount()
        guard total > 0 else { return flash("nothing matches \"\(state.search ?? "")\"", .warning) }
        state.selection = (state.selection + step + total) % total
    }

    // MARK: The filter picker

    /// What the list can be filtered by: `f` lists these, and `:filter` completes them. Owners by name.
    func filterEntries() -> [FilterPicker.Entry] {
        let books = readStore("the notebooks", { try context.store.notebooks() }) ?? []
        let owners = Set(books.map(\.zone.owner)).subtracting([context.account.id]).map { (id: $0, name: context.names($0)) }
            .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        return [.everything] + books.map { .notebook($0) } + PostFilter.Kind.allCases.map { .kind($0) }
            + (readStore("the tags", { try context.store.tags(limit: 20) }) ?? []).map { .tag($0) }
            + owners.map { .owner(id: $0.id, name: $0.name) }
    }

    func pickFilter() {
        let entries = filterEntries()
        let current = entries.firstIndex { isOn($0) && $0 != .everything } ?? 0
        state.mode = .pickFilter(FilterPicker(entries: entries.map { .init(entry: $0, on: isOn($0)) }, selection: current))
    }

    /// Whether an entry of the picker is part of the filter now.
    func isOn(_ entry: FilterPicker.Entry) -> Bool {
        switch entry {
        case .everything: state.filter.isEmpty
        case .notebook(let book): state.filter.notebook == book
        case .kind(let kind): state.filter.kind == kind
        case .tag(let tag): state.filter.tag == tag
        case .owner(let id, _): state.filter.owner == id
        }
    }

    /// Turns an entry on (or off, when it is on); "All posts" takes every filter but the search off.
    func toggle(_ entry: FilterPicker.Entry) {
        var filter = state.filter
        let on = isOn(entry)
        switch entry {
        case .everything: filter = PostFilter(search: filter.search)
        case .notebook(let book): filter.notebook = on ? nil : book
        case .kind(let kind): filter.kind = on ? nil : kind
        case .tag(let tag): filter.tag = on ? nil : tag
        case .owner(let id, _): filter.owner = on ? nil : id
        }
        show(filter)
    }

    func turnOn(_ entry: FilterPicker.Entry) {
        if !isOn(entry) { toggle(entry) }
    }

    /// `:filter NAME`: a notebook by name, a kind ("shared with me"), `tag:NAME` or `owner:NAME`; "all" takes
    /// every filter but the search off.
    func filter(named name: String) {
        let name = name.trimmingCharacters(in: .whitespaces)
        if name.isEmpty || name == "all" { return turnOn(.everything) }
        if let kind = PostFilter.Kind(rawValue: name) { return turnOn(.kind(kind)) }
        if name.hasPrefix("tag:") { return turnOn(.tag(String(name.dropFirst(4)))) }
        if name.hasPrefix("owner:") {
            let wanted = String(name.dropFirst(6))
            guard let books = readStore("the notebooks", { try context.store.notebooks() }) else { return }
            let owners = Set(books.map(\.zone.owner))
            guard let id = owners.first(where: { context.names($0) == wanted || $0 == wanted }) else {
                return flash("no notebooks here are owned by \(wanted)", .warning)
            }
            return turnOn(.owner(id: id, name: wanted))
        }
        guard let books = readStore("the notebooks", { try context.store.notebooks() }) else { return }
        guard let book = books.first(where: { $0.title == name }) else {
            return flash("no notebook named \"\(name)\" (:filter then Tab lists what there is)", .warning)
        }
        show(book)
    }

    /// `:open TITLE`: the post of that title (in any case; the exact spelling first), or the one post the words
    /// find; where several could be meant, the list shows them, to choose one.
    func open(titled text: String) {
        let found: [Post]
        do {
            found = try context.store.listedPosts(PostFilter(search: PostSearch(text)), offset: 0, limit: 50).map(\.post)
        } catch {
            return flash("could not look for \"\(text)\": \(error)", .error)
        }
        let titled = found.filter { $0.title.compare(text, options: .caseInsensitive) == .orderedSame }
        let exactly = titled.filter { $0.title == text }
        let meant = exactly.count == 1 ? exactly : titled.isEmpty ? found : titled
        guard meant.count == 1, let post = meant.first else {
            if meant.isEmpty { return flash("no post holds \"\(text)\"", .warning) }
            search(text, kept: true)
            let what = titled.isEmpty ? "hold \"\(text)\"" : "are titled \"\(text)\""
            return flash("\(meant.count == 50 ? "50 or more" : String(meant.count)) posts \(what): the list shows them; Enter opens one", .warning)
        }
        state.flash = nil  // found: what an earlier try said is no longer true
        // (Unreadable: select, which reads it again, leaves the selection where it is and the list says why.)
        if (try? context.store.position(of: post, state.filter)) == nil { show(PostFilter()) }
        select(post)
        state.focus = .detail
    }

    /// One notebook (nil: all of them), the rest of the filter kept.
    func show(_ notebook: Notebook?) {
        var filter = state.filter
        filter.notebook = notebook
        show(filter)
    }

    func show(_ filter: PostFilter) {
        state.filter = filter
        state.selection = 0
        state.scroll = 0
        invalidateList()
    }

    /// `:export DIR`: the posts the list shows, as Markdown files (see `PostMarkdown`).
    func export(to path: String) {
        let directory = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        do {
            let shown = try context.store.listedPosts(state.filter, offset: 0, limit: exactPostCount())
            let posts = try shown.compactMap { try context.store.post(id: $0.post.id, zone: $0.post.zone, scope: $0.post.scope) }
            let files = try PostMarkdown.export(posts, notebooks: try context.store.notebooks(), comments: context.store.comments(on:),
                                                names: context.names, to: directory)
            flash("exported \(files.count.counting("post")) to \(directory.path)")
        } catch {
            flash("could not export: \(error)", .error)
        }
    }

    /// The list's title: what it shows, how many of how many, and each filter on.
    func listTitle(shown: Int) -> String {
        let filter = state.filter
        var parts = [filter.notebook.map { "Notebook \($0.title)" } ?? "Posts"]
        let count = countIsPartial ? "\(Self.grouped(searchCountCap))+" : Self.grouped(shown)
        parts[0] += filter.isEmpty ? " (\(count))" : " (\(count) of \(Self.grouped(totalCount())))"
        if let kind = filter.kind { parts.append(kind.rawValue) }
        if let tag = filter.tag { parts.append("tag \(tag)") }
        if let owner = filter.owner { parts.append("owner \(context.names(owner))") }
        if let search = filter.search { parts.append("/\(search.text)") }
        return parts.joined(separator: " · ")
    }

    /// Every post this device holds, whatever the filter.
    func totalCount() -> Int {
        if let allCount { return allCount }
        guard let counted = readStore("the posts", { try context.store.postCount() }) else { return 0 }  // said; read again next time
        allCount = counted
        return counted
    }

    /// 3401 as "3,401".
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        let groups = stride(from: digits.count, to: 0, by: -3).reversed().map { end in
            String(digits[digits.index(digits.startIndex, offsetBy: max(0, end - 3))..<digits.index(digits.startIndex, offsetBy: end)])
        }
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
