import Foundation
import Notes

/// What one frame shows, gathered by the front end from its state and the
/// store; `Renderer` turns it into cells without asking anything else.
public struct ScreenModel: Sendable {
    public struct Row: Equatable, Sendable {
        public var title: String
        public var notebook: String
        public var sharing: SharingMark.Sharing = .notShared
        public var readOnly = false
        public var conflicted = false
        public var pending = false
        /// The cloud refused its change; kept here, not sent.
        public var refused = false
        /// Someone else changed it since this device last showed it.
        public var unread = false
        public var comments = 0
        /// How long ago its content last changed ("5m"), and who changed it ("you" when you did).
        public var age = ""
        public var editor = ""
        /// Whose notebook it is in, when not yours.
        public var owner: String?
    }

    public struct Detail: Sendable {
        public var title: String
        /// "label  value" lines under the title.
        public var facts: [(label: String, value: String)]
        public var content: String
        public var comments: [(by: String, text: String)]
        public var notice: String?
    }

    public struct Participant: Equatable, Sendable {
        public var name: String
        public var role: String
        public var permission: String
        public var status: String
    }

    /// The share screen: drawn over the panes without a border, so its URL can be selected whole.
    public struct SharePage: Sendable {
        public var title: String
        /// Above the URL: what it is for.
        public var urlLabel: String
        public var url: String?
        /// What anyone with the URL gets.
        public var anyone: String
        public var people: [Participant]
        public var selection: Int
    }

    /// A list to choose from over the panes (history, trash), and what the chosen one holds.
    public struct Browser: Sendable {
        public var title: String
        public var rows: [String]
        public var selection: Int
        public var body: [(text: String, role: Role)]
        /// The body is read whole (a message): the list gives it the room it needs, down to one row.
        public var bodyFirst = false
    }

    public struct FooterItem: Equatable, Sendable {
        public var key: String
        public var label: String
        public var enabled: Bool
    }

    public var account = ""
    public var device = ""
    public var status = ""
    /// Invitations waiting in the account's inbox.
    public var invitations = 0
    /// Requests to join the account's shares.
    public var requests = 0
    public var statusLevel: Flash.Level = .info
    public var listTitle = "Posts"
    /// Where the selection stands in the whole list ("120 of 3,401"), shown on the list's lower border.
    public var listPosition: String?
    public var rows: [Row] = []
    /// The selected row among `rows`.
    public var selectedRow: Int?
    public var detail: Detail?
    public var detailScroll = 0
    public var participants: [Participant]?
    public var publicPermission: String?
    public var selectedParticipant = 0
    public var focus: Pane = .list
    public var footer: [FooterItem] = []
    public var flash: Flash?
    public var mode: Mode = .browse
    /// The help overlay's lines: keys and what they do, with the reason where disabled.
    public var help: [HelpLine] = []
    public var browser: Browser?
    public var sharePage: SharePage?
}

/// Where the panes go at a size. The list takes two fifths of a wide screen;
/// the participants pane appears under the detail for a shared post.
public struct Layout: Equatable, Sendable {
    public struct Rect: Equatable, Sendable {
        public var x, y, width, height: Int
    }

    public var list: Rect
    public var detail: Rect
    public var participants: Rect?
    /// The line for flashes and prompts, and the footer's.
    public var messageLine: Int
    public var footerLine: Int

    public init(width: Int, height: Int, participants: Int?) {
        let body = max(0, height - 3)  // top line, message line, footer
        let listWidth = width >= 60 ? max(28, width * 2 / 5) : width
        list = Rect(x: 0, y: 1, width: listWidth, height: body)
        let rest = Rect(x: listWidth, y: 1, width: max(0, width - listWidth), height: body)
        if let count = participants, body >= 12 {
            let wanted = min(count + 3, body / 2)
            detail = Rect(x: rest.x, y: 1, width: rest.width, height: body - wanted)
            self.participants = Rect(x: rest.x, y: 1 + body - wanted, width: rest.width, height: wanted)
        } else {
            detail = rest
            self.participants = nil
        }
        messageLine = max(0, height - 2)
        footerLine = max(0, height - 1)
    }

    /// Where a post's editor draws: over the detail pane (and the participants under it); over the whole
    /// body where that pane has no room (below 60 columns the list takes the width).
    public var editor: Rect {
        detail.width >= 30 ? detail.union(participants) : Rect(x: 0, y: list.y, width: list.width + detail.width, height: list.height)
    }

    /// How many posts the list shows at once (inside its border).
    public var listRows: Int { max(0, list.height - 2) }
}
