/// Every command of the front end, in one registry that feeds the footer's
/// key hints, the `?` help overlay, the `:` command line and read-only
/// enforcement (lazygit's bindings: a description, whether it shows, and a
/// reason when disabled).
public enum CommandID: String, CaseIterable, Sendable {
    case quit, help, commandLine
    case down, up, top, bottom, pageDown, pageUp, nextPane, previousPane, open
    case newPost, edit, editExternal, delete, comment, comments, history, trash, emptyTrash, notices, messages, inbox
    case search, searchNext, searchPrevious, filter, newNotebook
    case refresh, send
    case share, shareNotebook, removeParticipant, togglePermission, stopSharing, leave, accept
    case keepMine, keepTheirs, keepBoth
    case reupload, export, discardRefused
}

public struct Command: Sendable {
    public let id: CommandID
    public let keys: [Key]
    /// The name on the `:` command line.
    public let name: String
    /// The footer's word for it.
    public let label: String
    public let help: String
    /// Where it applies; empty means every pane.
    public let panes: Set<Pane>
    public let inFooter: Bool
    /// Whether the command line passes it the rest of the line (`:accept URL`).
    public let takesArgument: Bool

    public func applies(in pane: Pane) -> Bool { panes.isEmpty || panes.contains(pane) }
}

public enum Commands {
    public static let all: [Command] = [
        c(.edit, [.char("e")], "edit", "edit", "Edit the post in place (Ctrl-S saves, Esc leaves)", [.list, .detail]),
        c(.newPost, [.char("a")], "new", "new", "Write a new post in the notebook shown (or Notes)"),
        c(.delete, [.char("d")], "delete", "delete", "Delete the post (asks first)", [.list, .detail]),
        c(.comment, [.char("c")], "comment", "comment", "Comment on the post", [.list, .detail]),
        c(.share, [.char("s")], "share", "share", "Share the post: invite people, choose rights, get the URL", [.list, .detail]),
        c(.removeParticipant, [.char("x")], "remove-participant", "remove", "Take the selected participant off the share", [.participants]),
        c(.togglePermission, [.char("p")], "toggle-permission", "permission", "Switch the selected participant between read-only and read-write", [.participants]),
        c(.search, [.char("/")], "search", "search", "Show only posts holding every word typed (title, text, tags, comments, notebook, people), as you type", [], argument: true),
        c(.nextPane, [.tab], "next-pane", "pane", "Move focus to the next pane"),
        c(.refresh, [.char("r")], "refresh", "refresh", "Fetch from the cloud now"),
        c(.quit, [.char("q"), .ctrl("c")], "quit", "quit", "Leave CloudNotes (changes are kept and sent later)"),
        c(.help, [.char("?")], "help", "help", "Show every key (the footer always ends with it)"),
        c(.editExternal, [.char("E")], "edit-external", "$EDITOR", "Edit the post in $EDITOR", [.list, .detail], footer: false),
        c(.searchNext, [.char("n")], "search-next", "next", "Next match (the next post of the filtered list)", [], footer: false),
        c(.searchPrevious, [.char("N")], "search-previous", "previous", "Previous match", [], footer: false),
        c(.filter, [.char("f")], "filter", "filter", "Show a notebook, posts shared with or by you, with conflicts, waiting, a tag or an owner (they combine)", [], footer: false, argument: true),
        c(.newNotebook, [.char("B")], "new-notebook", "new notebook", "Create a notebook", [], footer: false, argument: true),
        c(.shareNotebook, [.char("b")], "share-notebook", "share notebook", "Share the post's whole notebook", [.list, .detail], footer: false),
        c(.stopSharing, [.char("X")], "stop-sharing", "stop sharing", "Stop sharing the post: every participant loses it", [], footer: false),
        c(.leave, [.char("L")], "leave", "leave", "Leave a share: only you lose the post", [], footer: false),
        c(.comments, [.char("C")], "comments", "comments", "The post's comments: edit or delete yours", [.list, .detail], footer: false),
        c(.history, [.char("h")], "history", "history", "The post's versions: who changed which lines, when; bring one back", [.list, .detail], footer: false),
        c(.trash, [.char("T")], "trash", "trash", "Recently deleted posts: bring one back", [], footer: false),
        c(.inbox, [.char("I")], "invitations", "invitations", "Invitations waiting for you: accept or decline them", [], footer: false),
        c(.notices, [], "notices", "notices", "What others did lately that touches you (removed you, accepted, left...)", [], footer: false),
        c(.messages, [], "messages", "messages", "What the message line said lately, each in full", [], footer: false),
        c(.emptyTrash, [], "empty-trash", "empty trash", "Empty the trash of your notebooks (asks first)", [], footer: false),
        c(.accept, [.char("A")], "accept", "accept", "Accept a share URL", [], footer: false, argument: true),
        c(.send, [.char("S")], "send", "send", "Send waiting changes now", [], footer: false),
        c(.keepMine, [.char("m")], "keep-mine", "keep mine", "Resolve the post's conflict: keep the text you wrote", [.list, .detail], footer: false),
        c(.keepTheirs, [.char("t")], "keep-theirs", "keep theirs", "Resolve the post's conflict: keep the other person's text", [.list, .detail], footer: false),
        c(.export, [], "export", "export", "Write the posts the list shows as Markdown files into a directory (./cloudnotes-export when none is named)",
          [], footer: false, argument: true),
        c(.discardRefused, [], "discard", "discard", "Give up a change the cloud refused (too large, say): the post goes back to the cloud's copy (asks first)",
          [.list, .detail], footer: false),
        c(.reupload, [], "reupload", "reupload", "Rebuild a cloud that was emptied or restored, from this device's posts", [], footer: false),
        c(.keepBoth, [.char("o")], "keep-both", "keep both", "Resolve the post's conflict: keep both texts, without the markers", [.list, .detail], footer: false),
        c(.commandLine, [.char(":")], "command", "command", "Type a command (:accept URL, :search WORDS, :quit): Tab completes, ↑ brings back earlier ones", [], footer: false),
        c(.down, [.char("j"), .down], "down", "down", "Next post (or scroll, or next participant)", [], footer: false),
        c(.up, [.char("k"), .up], "up", "up", "Previous post (or scroll, or previous participant)", [], footer: false),
        c(.top, [.char("g"), .home], "top", "top", "First post", [], footer: false),
        c(.bottom, [.char("G"), .end], "bottom", "bottom", "Last post", [], footer: false),
        c(.pageDown, [.pageDown, .ctrl("d")], "page-down", "page down", "A page down", [], footer: false),
        c(.pageUp, [.pageUp, .ctrl("u")], "page-up", "page up", "A page up", [], footer: false),
        c(.previousPane, [.backTab], "previous-pane", "pane", "Move focus to the previous pane", [], footer: false),
        c(.open, [.enter], "open", "open", "Show the post (focus its detail); with a title, find it first", [.list], footer: false, argument: true),
    ]

    private static let byKey: [Key: [Command]] = Dictionary(grouping: all.flatMap { command in command.keys.map { ($0, command) } }, by: \.0)
        .mapValues { $0.map(\.1) }

    /// The command a key runs in a pane.
    public static func command(for key: Key, in pane: Pane) -> Command? {
        byKey[key]?.first { $0.applies(in: pane) }
    }

    public static func command(named name: String) -> Command? {
        all.first { $0.name == name || $0.rawName == name }
    }

    public static subscript(id: CommandID) -> Command { all.first { $0.id == id }! }

    private static func c(_ id: CommandID, _ keys: [Key], _ name: String, _ label: String, _ help: String,
                          _ panes: Set<Pane> = [], footer: Bool = true, argument: Bool = false) -> Command {
        Command(id: id, keys: keys, name: name, label: label, help: help, panes: panes, inFooter: footer, takesArgument: argument)
    }
}

extension Command {
    fileprivate var rawName: String { id.rawValue }
}
