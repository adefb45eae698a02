import Cloud
import Foundation
import Notes

/// The panes focus moves between with Tab.
public enum Pane: String, CaseIterable, Sendable {
    case list, detail, participants
}

/// A message that clears itself after a few seconds (k9s's flash).
public struct Flash: Equatable, Sendable {
    public enum Level: Sendable { case info, warning, error }
    public var text: String
    public var level: Level
    public var until: Date
}

/// A one-line question at the bottom of the screen.
public struct Prompt: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable {
        case command, search, comment, accept, newNotebook
        case editComment(Comment)
        case invite(Post)
    }
    public var purpose: Purpose
    public var label: String
    public var editor = TextEditor(text: "", multiline: false)
    /// The command line's completions of what is typed, as whole lines; Tab steps through them.
    public var candidates: [String] = []
    public var candidate: Int?
    /// Where ↑/↓ stand in the command lines run before (nil: on the line being typed), and that line.
    public var historyIndex: Int?
    public var draft = ""
}

/// A destructive action waiting for a yes; Cancel is focused first.
public struct Confirmation: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case delete(Post)
        /// The person's address for the cloud (an email, else an account name), and their name for people.
        case removeParticipant(Post, address: String, name: String)
        case stopSharing(Post)
        case leave(Post)
        case deleteComment(Comment)
        case restoreVersion(Post, PostHistory.Version)
        case requestAccess(String)
        case restoreDeleted(PostHistory.Deleted)
        case emptyTrash
        /// Giving up a change the cloud refused, for the cloud's copy (or none).
        case discardRefused(Post)
        case discard(PostForm)
        /// Saving a form whose text still holds conflict markers.
        case saveWithMarkers(PostForm)
        /// Saving, as a new post of the account's own, a form whose post can no longer be edited here.
        case saveAsOwn(PostForm)
    }

    public var question: String
    public var confirmLabel: String
    public var action: Action
    public var confirmFocused = false
}

/// The in-place editor of a post: title, tags, location, content.
public struct PostForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case title, tags, location, content }
    /// The post as the form opened it: the base its edit merges from, however long the form stays open.
    public var post: Post
    public var isNew: Bool
    public var field: Field = .title
    public var title: TextEditor
    public var tags: TextEditor
    public var location: TextEditor
    public var content: TextEditor
    public var scroll = 0

    public init(post: Post, isNew: Bool) {
        self.post = post
        self.isNew = isNew
        title = TextEditor(text: post.title, multiline: false)
        tags = TextEditor(text: post.tags.joined(separator: ", "), multiline: false)
        location = TextEditor(text: post.location ?? "", multiline: false)
        content = TextEditor(text: post.content)
        field = isNew ? .title : .content
    }

    public var isChanged: Bool { isNew || [title, tags, location, content].contains { $0.isChanged } }

    public subscript(field: Field) -> TextEditor {
        get { [title, tags, location, content][field.rawValue] }
        set {
            switch field {
            case .title: title = newValue
            case .tags: tags = newValue
            case .location: location = newValue
            case .content: content = newValue
            }
        }
    }

    /// The post with the form's values: the fields the person changed, the others as the form opened them
    /// (a one-line field shows a multi-line value joined, and leaving it alone must not change it).
    public var edited: Post {
        var post = post
        func changed(_ editor: TextEditor, from value: String) -> Bool {
            editor.text != TextEditor(text: value, multiline: editor.multiline).text
        }
        if changed(title, from: post.title) { post.title = title.text.trimmingCharacters(in: .whitespaces) }
        if changed(tags, from: post.tags.joined(separator: ", ")) {
            post.tags = tags.text.commaSeparated
        }
        if changed(location, from: post.location ?? "") {
            let place = location.text.trimmingCharacters(in: .whitespaces)
            post.location = place.isEmpty ? nil : place
        }
        if changed(content, from: post.content) { post.content = content.text }
        return post
    }
}

/// The share dialog: who to invite, with what rights; then the URL.
public struct ShareDialog: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        case post(Post)
        case notebook(Notebook)
    }
    public enum Field: Int, CaseIterable, Sendable { case invitees, permission, publicPermission, share, cancel }
    public var target: Target
    public var field: Field = .invitees
    public var invitees = TextEditor(text: "", multiline: false)
    public var permission: SharePermission = .readWrite
    public var publicPermission: SharePermission = .none
    /// Set once shared: the URL to send (shown once; the cloud keeps only its hash).
    public var url: String?
    public var working = false

    public var title: String {
        switch target {
        case .post(let post): "Share \"\(post.title)\""
        case .notebook(let book): "Share notebook \(book.title)"
        }
    }
}

/// A post's comments, to edit or delete one of your own.
public struct CommentPicker: Equatable, Sendable {
    public var post: Post
    public var comments: [Comment]
    public var selection = 0
}

/// `f`: choosing what the list shows: a notebook, posts by how they stand, a tag, an owner (they combine).
public struct FilterPicker: Equatable, Sendable {
    public enum Entry: Equatable, Sendable {
        case everything
        case notebook(Notebook)
        case kind(PostFilter.Kind)
        case tag(String)
        case owner(id: String, name: String)
    }
    public struct Item: Equatable, Sendable {
        public var entry: Entry
        /// Part of the filter now.
        public var on: Bool
    }
    public var entries: [Item]
    public var selection: Int
}

public enum Mode: Equatable, Sendable {
    case browse
    case help(HelpScreen)
    case prompt(Prompt)
    case confirm(Confirmation)
    case edit(PostForm)
    case share(ShareDialog)
    case pickFilter(FilterPicker)
    case pickComment(CommentPicker)
    case history(HistoryBrowser)
    case trash(TrashBrowser)
    case notices([Notice])
    /// `:messages`: what the message line said lately, newest first, the selected one whole.
    case messages(selection: Int)
    case inbox(InboxBrowser)
    case shareScreen(ShareScreen)
}

/// A share as it is (`s` on a shared post, `b` on a shared notebook): its URL again, its people, and what
/// its owner changes there.
public struct ShareScreen: Equatable, Sendable {
    /// The post it was opened on (a notebook share's: any post of the notebook).
    public var post: Post
    /// The URL, opened from the share's sealed link; nil where this device cannot open it (yet).
    public var url: String?
    public var selection = 0
    /// Just shared: the screen says so, and where invitees find it.
    public var fresh = false
    /// A one-time link just made: the URL shown admits one person.
    public var oneTime = false
}

/// Invitations waiting for the account, to accept or decline.
public struct InboxBrowser: Equatable, Sendable {
    public var invitations: [InboxInvitation]
    /// Requests to join the account's shares, after the invitations.
    public var requests: [PostSharing.Request] = []
    public var selection = 0
}

/// A post's versions, newest first, to read and restore one.
public struct HistoryBrowser: Equatable, Sendable {
    public var post: Post
    public var versions: [PostHistory.Version]
    public var selection = 0
}

/// The posts deleted from notebooks this device holds, to bring one back.
public struct TrashBrowser: Equatable, Sendable {
    public var deleted: [PostHistory.Deleted]
    public var selection = 0
}

/// Everything the screen shows that is not in the store.
public struct FrontEndState: Equatable, Sendable {
    public var focus: Pane = .list
    public var mode: Mode = .browse
    /// The selected post's position in the list, and the first row shown.
    public var selection = 0
    public var scroll = 0
    public var detailScroll = 0
    public var participantSelection = 0
    /// What the list shows: every part `f` and `/` set.
    public var filter: PostFilter = .all
    /// The words `/` filters by.
    public var search: String? { filter.search?.text }
    public var flash: Flash?
    /// What `S` (send) or `r` (refresh) asked of sync, said when the round after it ends.
    public var awaitingRound: RoundAsked?
    public enum RoundAsked: Sendable { case send, fetch }
    public var quit = false
}
