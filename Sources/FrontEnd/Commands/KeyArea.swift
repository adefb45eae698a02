/// The places outside the browser where keys work (the editor, each dialog), each with its keys: one table
/// feeds both the footer while the place is open and the `?` help.
public enum KeyArea: String, CaseIterable, Sendable {
    case help, searchLine, promptLine, commandLine, confirm, editor, shareDialog, shareURL, filters, comments, history, trash,
         inbox, messages, notices, shareScreen

    public var title: String {
        switch self {
        case .help: "This help"
        case .searchLine: "The search line (/)"
        case .promptLine: "Other lines at the bottom (comments, names, URLs)"
        case .commandLine: "The command line (:)"
        case .confirm: "Questions (delete, leave, …)"
        case .editor: "The editor (e, a)"
        case .shareDialog: "The share dialog (s)"
        case .shareURL: "The share's URL, just made"
        case .filters: "What the list shows (f)"
        case .comments: "Comments (C)"
        case .history: "History (h)"
        case .trash: "Trash (T)"
        case .inbox: "Invitations (I)"
        case .messages: "Messages (:messages)"
        case .notices: "Notices (:notices)"
        case .shareScreen: "A share's screen (s on a shared post)"
        }
    }

    /// Its keys, most useful first (the footer keeps the first ones when narrow).
    public var keys: [(key: String, label: String)] {
        switch self {
        case .help: [("j/k", "scroll"), ("g/G", "top/end"), ("/", "find"), ("Esc", "close")]
        case .searchLine: [("Enter", "keep the filter"), ("Esc", "clear it"), ("←→", "move"), ("^A/^E", "start/end")]
        case .promptLine: [("Enter", "ok"), ("Esc", "cancel"), ("←→", "move"), ("^U/^K", "delete to start/end"), ("^Z", "undo")]
        case .commandLine: [("Enter", "run"), ("Tab", "complete"), ("↑↓", "earlier commands"), ("Esc", "cancel")]
        case .confirm: [("←→", "choose"), ("Enter", "do it"), ("y", "yes"), ("n/Esc", "no")]
        case .editor: [("^S", "save"), ("Esc", "leave"), ("Tab", "next field"), ("^Z", "undo"), ("Home/End", "line start/end")]
        case .shareDialog: [("Tab", "next"), ("Space", "change"), ("Enter", "share"), ("Esc", "cancel")]
        case .shareURL: [("Enter", "close"), ("Esc", "close")]
        case .filters: [("j/k", "choose"), ("Enter", "turn on or off"), ("Esc", "cancel")]
        case .comments: [("j/k", "choose"), ("e", "edit yours"), ("d", "delete yours"), ("Esc", "close")]
        case .history: [("j/k", "choose"), ("r", "restore this version"), ("Esc", "close")]
        case .trash: [("j/k", "choose"), ("r", "bring back"), ("Esc", "close")]
        case .inbox: [("j/k", "choose"), ("a", "accept / let in"), ("x", "decline / deny"), ("b", "block"), ("Esc", "close")]
        case .messages: [("j/k", "choose"), ("Esc", "close")]
        case .notices: [("Esc", "close")]
        // Copying the URL first: at 80 columns the last keys give way. The owner's keys are for the owner only.
        case .shareScreen: [("y", "copy URL"), ("i", "invite"), ("p", "permission"), ("x", "remove"), ("P", "anyone"),
                            ("o", "one-time link"), ("Esc", "back")]
        }
    }
}

/// One line of the `?` help: a heading, or keys and what they do.
public struct HelpLine: Equatable, Sendable {
    public var keys: String
    public var text: String
    public var isHeading = false

    public static func heading(_ text: String) -> HelpLine { HelpLine(keys: "", text: text, isHeading: true) }
}

/// The help screen's state: where it is scrolled to, and what `/` looks for in it.
public struct HelpScreen: Equatable, Sendable {
    public var scroll = 0
    public var search = TextEditor(text: "", multiline: false)
    /// `/` was pressed and keys go to the search.
    public var searching = false
}
