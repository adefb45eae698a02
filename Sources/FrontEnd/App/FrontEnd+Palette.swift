import Foundation
import Notes

/// The `:` command line as a palette: completions of commands and their arguments (notebooks, filters, post
/// titles, people) shown as you type and taken with Tab, and the lines run before, across runs, with ↑/↓.
extension FrontEnd {
    /// Keys of the command line that are not editing; false for those that are.
    func paletteKey(_ prompt: inout Prompt, _ key: Key) -> Bool {
        switch key {
        case .tab, .backTab:
            guard !prompt.candidates.isEmpty else { return true }
            let common = Self.commonPrefix(prompt.candidates.filter { $0.hasPrefix(prompt.editor.text) })
            if prompt.candidates.count == 1 || (common.count > prompt.editor.text.count && prompt.candidate == nil) {
                // One left, or a longer start they all share: take it (and a space where an argument follows).
                let line = prompt.candidates.count == 1 ? prompt.candidates[0] : common
                let complete = prompt.candidates.count == 1 && !line.contains(" ") && Commands.command(named: line)?.takesArgument == true
                prompt.editor = TextEditor(text: line + (complete ? " " : ""), multiline: false)
                prompt.candidates = completions(prompt.editor.text)
                prompt.candidate = nil
            } else {
                // Step through them, the line showing the one chosen.
                let step = key == .tab ? 1 : -1
                let index = prompt.candidate.map { ($0 + step + prompt.candidates.count) % prompt.candidates.count } ?? (step > 0 ? 0 : prompt.candidates.count - 1)
                prompt.candidate = index
                prompt.editor = TextEditor(text: prompt.candidates[index], multiline: false)
            }
            return true
        case .up, .down:
            let history = commandHistory()
            guard !history.isEmpty else { return true }
            if prompt.historyIndex == nil { prompt.draft = prompt.editor.text }  // given back past the newest
            let index = key == .up ? max(0, (prompt.historyIndex ?? history.count) - 1) : (prompt.historyIndex ?? history.count) + 1
            prompt.historyIndex = index < history.count ? index : nil
            prompt.editor = TextEditor(text: prompt.historyIndex.map { history[$0] } ?? prompt.draft, multiline: false)
            prompt.candidates = []
            prompt.candidate = nil
            return true
        default:
            return false
        }
    }

    /// Whole lines that complete `line`: command names, or a command's arguments once its name is typed.
    func completions(_ line: String) -> [String] {
        guard let space = line.firstIndex(of: " ") else {
            guard !line.isEmpty else { return [] }
            let names = Commands.all.map(\.name).sorted()
            return names.filter { $0.hasPrefix(line) } + names.filter { !$0.hasPrefix(line) && $0.contains(line) }
        }
        let name = String(line[..<space]), typed = line[line.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard let command = Commands.command(named: name), command.takesArgument else { return [] }
        let arguments: [String]
        switch command.id {
        case .filter:
            arguments = filterEntries().map(\.argument)
        case .open:
            let search = PostFilter(search: PostSearch(typed))
            // (Completion only: :open itself says what fails when it reads.)
            arguments = typed.isEmpty ? [] : ((try? context.store.listedPosts(search, offset: 0, limit: 8)) ?? []).map(\.post.title)
            return arguments.map { "\(command.name) \($0)" }  // the index matched them already
        default:
            arguments = []
        }
        return arguments.filter { typed.isEmpty || PostSearch.matches($0, typed) || $0.hasPrefix(typed) }.map { "\(command.name) \($0)" }
    }

    /// The longest start every line shares.
    static func commonPrefix(_ lines: [String]) -> String {
        guard var prefix = lines.first else { return "" }
        for line in lines.dropFirst() { while !line.hasPrefix(prefix) { prefix.removeLast() } }
        return prefix
    }

    // MARK: History

    /// Where the command lines run before are kept: beside the device's store, so they outlive the run.
    var historyFile: URL { context.store.directory.appendingPathComponent("command-history") }

    func commandHistory() -> [String] {
        if let history = loadedHistory { return history }
        // (None yet, or unreadable: the palette's history is a convenience, and starts afresh.)
        let lines = ((try? String(contentsOf: historyFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        loadedHistory = lines
        return lines
    }

    /// Keeps a line run (the last 200, the same line twice in a row once).
    func remember(_ line: String) {
        var history = commandHistory()
        guard history.last != line, !line.contains("\n") else { return }
        history = Array((history + [line]).suffix(200))
        loadedHistory = history
        // (A convenience: a failed write only forgets the line at the next start.)
        try? (history.joined(separator: "\n") + "\n").write(to: historyFile, atomically: true, encoding: .utf8)
    }
}

extension FilterPicker.Entry {
    /// The entry as `:filter` takes it.
    var argument: String {
        switch self {
        case .everything: "all"
        case .notebook(let book): book.title
        case .kind(let kind): kind.rawValue
        case .tag(let tag): "tag:" + tag
        case .owner(_, let name): "owner:" + name
        }
    }
}
