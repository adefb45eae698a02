import ArgumentParser
import Cloud
import Foundation
import Notes

struct SharePost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share a post (its comments follow) or, with --notebook, a whole notebook; prints the URL.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post (ID, ID prefix or exact title).") var post: String?
    @Option(help: "Share this notebook as a whole instead.") var notebook: String?
    @Option(help: "Emails or account names to invite: repeat it, or separate them with commas.") var invite: [String] = []
    @Flag(help: "Invitees may only read (the default).") var readOnly = false
    @Flag(help: "Invitees may edit.") var readWrite = false
    @Option(name: .customLong("public"), help: "What anyone with the URL gets: none (a new share's default), read-only, read-write; on a shared post, changes it.")
    var publicPermission: SharePermission?
    @Flag(help: "Print a link that admits exactly one person, the first to accept it (the post must be shared).") var oneTime = false

    func validate() throws {
        if (post == nil) == (notebook == nil) { throw ValidationError("name a post, or --notebook, not both") }
        if readOnly && readWrite { throw ValidationError("choose --read-only or --read-write") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let sharing = session.postSharing
        let emails = invite.joined(separator: ",").commaSeparated  // every --invite, not the last alone
        let permission: SharePermission = readWrite ? .readWrite : .readOnly
        defer { session.sync() }
        if let notebook {
            let url = try sharing.share(notebook: notebook, inviting: emails, permission: permission, publicPermission: publicPermission ?? .none)
            Output.line(url.absoluteString)
            return hintIfNobodyCanJoin("notebook \(notebook)", invited: emails, publicPermission: publicPermission)
        }
        let found = try session.store.post(post!)
        if oneTime {
            return Output.line(try sharing.oneTimeLink(for: found, permission: permission).absoluteString)
        }
        switch try sharing.share(found, inviting: emails, permission: permission, publicPermission: publicPermission) {
        case .shared(let url):
            Output.line(url.absoluteString)
            hintIfNobodyCanJoin("\"\(found.title)\"", invited: emails, publicPermission: publicPermission)
        case .existing(let url):
            Output.line(url)
        case .invited(let people):
            Output.line("invited \(people.joined(separator: ", ")) to \"\(found.title)\"; it waits in their invitations (cloudnotes invitations)")
            if let publicPermission { Output.note("anyone with the URL: \(publicPermission.text) now") }
        case .updated(let publicPermission, let url):
            if let url { Output.line(url) }
            Output.note("anyone with the URL of \"\(found.title)\": \(publicPermission.text) now"
                        + (url == nil ? " (its URL is not on this device yet: sync to see it)" : ""))
        }
    }

    /// A new share with nobody invited and nobody let in by the URL: said how people join (on stderr: the URL
    /// alone stays on stdout for scripts).
    private func hintIfNobodyCanJoin(_ name: String, invited: [String], publicPermission: SharePermission?) {
        guard invited.isEmpty, (publicPermission ?? .none) == .none else { return }
        Output.note("nobody can join \(name) yet: share it again with --invite EMAIL, or with --public read-only to let in anyone with the URL")
    }
}

struct AcceptShare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a share URL, or an invitation from your inbox: its posts appear in this account's shared store.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The URL.") var url: String?
    @Option(help: "The ID of an invitation waiting for you (cloudnotes invitations lists them).") var invitation: String?

    func validate() throws {
        if (url == nil) == (invitation == nil) { throw ValidationError("give a URL or --invitation ID") }
    }

    func run() throws {
        if let url { _ = try ShareURL(parsing: url) }  // a malformed URL is refused before the device is touched
        let session = try device.open()
        let metadata = try url.map { try session.postSharing.accept($0) } ?? session.postSharing.acceptInvitation(invitation!)
        if let note = session.sync() { Output.line(note) }
        Output.line("accepted \"\(metadata.title)\" from \(metadata.ownerName) (\(metadata.permission.text))")
    }
}

struct PostParticipants: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "participants", abstract: "Who takes part in a post's share, with what rights.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        let share = try session.postSharing.currentShare(of: found, throughParents: true)
        var view = ShareView(share, names: try AccountNames(session.cloud))
        view.url = try session.postSharing.url(of: found)
        guard !json else { return try Output.json(view) }
        view.printParticipants()
        Output.line(view.url.map { "URL: \($0)" } ?? "URL: not on this device yet (sync, or ask the owner)")
    }
}

struct RemovePostParticipant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-participant", abstract: "Take someone off a post's share, or off a notebook shared as a whole.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: ArgumentHelp("The post and the participant's email (with --notebook, the email only).",
                                 valueName: "POST EMAIL")) var words: [String] = []
    @Option(help: "A notebook of yours shared as a whole (also one with no post yet).") var notebook: String?

    private var email: String { words[words.count - 1] }

    func validate() throws {
        guard words.count == (notebook == nil ? 2 : 1) else { throw ValidationError("say where: POST EMAIL, or --notebook NAME EMAIL") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        if let notebook {
            let book = try session.store.notebook(named: notebook)
            try session.postSharing.removeParticipant(email: email, from: book)
            session.sync()
            return Output.line("removed \(email) from notebook \(book.title)")  // (one of this account's)
        }
        let found = try session.store.post(words[0])
        // A post shared as part of its notebook: the person leaves the whole notebook, and is told so (not the post alone).
        let whole = try session.store.share(for: found)?.isZoneWide == true
        try session.postSharing.removeParticipant(email: email, from: found)
        session.sync()
        let notebook = try session.store.notebooks().first { $0.zone == found.zone }?.title ?? found.zone.name
        Output.line(whole ? "removed \(email) from notebook \(notebook), which \"\(found.title)\" is shared as part of"
                          : "removed \(email) from \"\(found.title)\"")
    }
}

struct SetPostPermission: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-permission", abstract: "Change what a participant may do with a post, or with a notebook shared as a whole.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: ArgumentHelp("The post, the participant's email, and read-only or read-write (with --notebook, no post).",
                                 valueName: "POST EMAIL PERMISSION")) var words: [String] = []
    @Option(help: "A notebook of yours shared as a whole (also one with no post yet).") var notebook: String?

    private var post: String? { notebook == nil ? words.first : nil }
    private var email: String { words[words.count - 2] }
    private var permission: SharePermission { SharePermission(argument: words[words.count - 1])! }  // validated

    func validate() throws {
        guard words.count == (notebook == nil ? 3 : 2) else {
            throw ValidationError("say where: POST EMAIL PERMISSION, or --notebook NAME EMAIL PERMISSION")
        }
        let word = words[words.count - 1]
        // "none" would cut the person off while they stay listed; taking someone off is its own command, and says so.
        guard let permission = SharePermission(argument: word), permission != .none else {
            throw ValidationError(word.lowercased() == "none" ? "to take someone off, use remove-participant"
                                                 : "'\(word)' is not a permission: read-only or read-write")
        }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        if let notebook {
            let book = try session.store.notebook(named: notebook)
            try session.postSharing.setPermission(permission, email: email, on: book)
            session.sync()
            return Output.line("\(email) is now \(permission.text) in notebook \(book.title)")  // (one of this account's)
        }
        let found = try session.store.post(post!)
        // A post shared as part of its notebook: the permission is the whole notebook's, and is said so.
        let whole = try session.store.share(for: found)?.isZoneWide == true
        try session.postSharing.setPermission(permission, email: email, on: found)
        session.sync()
        let notebook = try session.store.notebooks().first { $0.zone == found.zone }?.title ?? found.zone.name
        Output.line(whole ? "\(email) is now \(permission.text) in notebook \(notebook), which \"\(found.title)\" is shared as part of"
                          : "\(email) is now \(permission.text) on \"\(found.title)\"")
    }
}

struct StopSharingPost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop-sharing", abstract: "Stop sharing a post, or a notebook shared as a whole: every participant loses it.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String?
    @Option(help: "Stop sharing this notebook of yours shared as a whole (also one with no post yet).") var notebook: String?

    func validate() throws {
        if (post == nil) == (notebook == nil) { throw ValidationError("say what to stop sharing: POST or --notebook NAME") }
    }

    func run() throws {
        if let post { return try endShare(of: post, on: device, saying: "stopped sharing") { try $0.stopSharing($1) } }
        let session = try device.open(syncFirst: true)
        let book = try session.store.notebook(named: notebook!)
        try session.postSharing.stopSharing(notebook: book)
        session.sync()
        Output.line("stopped sharing notebook \(book.title)")
    }
}

struct LeaveShare: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave the share a post came in: only you lose it.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String?
    @Option(help: "Leave this notebook shared with you as a whole (also when no post is left in it).") var notebook: String?

    func validate() throws {
        if (post == nil) == (notebook == nil) { throw ValidationError("say what to leave: POST or --notebook NAME") }
    }

    func run() throws {
        if let post { return try endShare(of: post, on: device, saying: "left") { try $0.leave($1) } }
        let session = try device.open(syncFirst: true)
        let book = try session.store.notebook(named: notebook!)
        let name = session.store.label(book)
        try session.postSharing.leave(notebook: book)
        session.sync()
        Output.line("left notebook \(name)")
    }
}

/// Ends a post's share as `end` does (stopping it, or leaving it), syncs, and says what went: the post, or the
/// whole notebook it was shared with.
private func endShare(of post: String, on device: DeviceOptions, saying done: String, _ end: (PostSharing, Post) throws -> Void) throws {
    let session = try device.open(syncFirst: true)
    let found = try session.store.post(post)
    let name = try session.store.sharedName(of: found).text
    try end(session.postSharing, found)
    session.sync()
    Output.line("\(done) \(name)")
}
