import ArgumentParser
import Cloud
import Foundation
import Notes

/// The share a post belongs to, reached from its owner's or a participant's side.
struct PostShare {
    let session: DeviceSession
    let post: Post
    let database: CloudDatabase
    let share: Share

    init(_ session: DeviceSession, _ post: Post) throws {
        self.session = session
        self.post = post
        database = session.cloud.database(post.scope, as: session.account)
        let local = try session.store.share(for: post)
        let id = local?.id ?? RecordID(name: "share-" + post.id, zone: post.zone)
        do {
            share = try database.fetchShare(id)
        } catch {
            throw CLIError(message: "\"\(post.title)\" is not shared")
        }
    }

    func participantID(email: String) throws -> String {
        guard let id = share.participants.first(where: { $0.email?.lowercased() == email.lowercased() && $0.status != .removed })?.userRecordID
        else { throw CLIError(message: "\(email) does not take part in \"\(post.title)\"") }
        return id
    }
}

struct SharePost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share a post (its comments follow) or, with --notebook, a whole notebook; prints the URL.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post (ID, ID prefix or exact title).") var post: String?
    @Option(help: "Share this notebook as a whole instead.") var notebook: String?
    @Option(help: "Emails or account names to invite, comma-separated.") var invite: String?
    @Flag(help: "Invitees may only read (the default).") var readOnly = false
    @Flag(help: "Invitees may edit.") var readWrite = false
    @Option(name: .customLong("public"), help: "What anyone with the URL gets: none, read-only, read-write.")
    var publicPermission: SharePermission = .none

    func validate() throws {
        if (post == nil) == (notebook == nil) { throw ValidationError("name a post, or --notebook, not both") }
        if readOnly && readWrite { throw ValidationError("choose --read-only or --read-write") }
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let db = session.cloud.database(.private, as: session.account)
        let emails = invite.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        var share: Share
        var root: Record?
        if let notebook {
            guard let book = try session.store.notebooks().first(where: { $0.title == notebook && $0.scope == .private }) else {
                throw CLIError(message: "no notebook of yours named '\(notebook)'")
            }
            share = Share(zoneWide: book.zone, title: notebook, type: "Notebook")
        } else {
            let found = try session.store.post(post!)
            guard found.scope == .private else { throw CLIError(message: "\"\(found.title)\" is shared with you; only its owner shares it") }
            if let existing = try session.store.share(for: found) {
                guard !existing.isZoneWide else {
                    throw CLIError(message: "\"\(found.title)\" is in notebook \(found.zone.name), which is shared as a whole; share the notebook instead")
                }
                return try invite(emails, to: existing, post: found, session: session, db: db)
            }
            share = Share(rootRecord: found.recordID, title: found.title, type: "Post")
            root = try session.store.record(for: found.recordID, in: .private)
        }
        share.publicPermission = publicPermission
        for participant in try Self.lookUp(emails, in: db) {
            share.addParticipant(participant, permission: readWrite ? .readWrite : .readOnly)
        }
        // The post is saved with the share only if the cloud still has the version this device knows:
        // otherwise someone's newer edit would be overwritten.
        switch Result(catching: { () throws(CloudError) in try db.saveShare(share, rootRecord: root) }) {
        case .success(let saved):
            // Participants receive the zone's key, wrapped for each of them, inside what is shared.
            let invitees = saved.share.participants.filter { $0.role != .owner }.compactMap(\.userRecordID)
            try session.store.keyring?.grant(zone: saved.share.id.zone, root: saved.share.rootRecord, to: invitees)
            session.sync()
            Output.line(saved.url!.absoluteString)
        case .failure(.serverRecordChanged):
            session.sync()
            throw CLIError(message: "\"\(share.title)\" changed in the cloud meanwhile; it is up to date now, share again")
        case .failure(.alreadyShared):
            throw CLIError(message: notebook == nil
                ? "\"\(share.title)\" already belongs to a share (its notebook may be shared as a whole)"
                : "notebook \(notebook!) already has shared posts or is shared already")
        case .failure(let error):
            throw error
        }
    }
}

extension SharePost {
    /// Adds invitees to a post's existing share. The cloud keeps no copy of
    /// the URL, so the one printed when the post was first shared is the one to send.
    func invite(_ invitees: [String], to share: Share, post: Post, session: DeviceSession, db: CloudDatabase) throws {
        guard !invitees.isEmpty else { throw CLIError(message: "\"\(post.title)\" is shared already; add people with --invite") }
        var updated = share
        for participant in try Self.lookUp(invitees, in: db) {
            updated = try db.addParticipant(participant, permission: readWrite ? .readWrite : .readOnly, to: share.id)
        }
        let ids = updated.participants.filter { $0.role != .owner && $0.status != .removed }.compactMap(\.userRecordID)
        try session.store.keyring?.grant(zone: share.id.zone, root: share.rootRecord, to: ids)
        session.sync()
        Output.line("invited \(invitees.joined(separator: ", ")) to \"\(post.title)\"; send them the URL you got when you first shared it")
    }

    /// Invitees by email, or by account name when there is no '@'.
    static func lookUp(_ invitees: [String], in db: CloudDatabase) throws -> [ShareParticipant] {
        var found: [ShareParticipant] = []
        for who in invitees {
            found.append(who.contains("@") ? try db.lookUpParticipant(email: who) : try db.lookUpParticipant(accountName: who))
        }
        return found
    }
}

struct AcceptShare: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "accept", abstract: "Accept a share URL: its posts appear in this account's shared store.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The URL.") var url: String

    func run() throws {
        let link = try ShareURL(parsing: url)
        let session = try device.open()
        let metadata = try session.cloud.acceptShare(link, as: session.account)
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
        let target = try PostShare(session, try session.store.post(post))
        let view = ShareView(target.share, names: try AccountNames(session.cloud))
        if json { try Output.json(view) } else { view.printParticipants() }
    }
}

struct RemovePostParticipant: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove-participant", abstract: "Take someone off a post's share.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String
    @Argument(help: "The participant's email.") var email: String

    func run() throws {
        let session = try device.open(syncFirst: true)
        let target = try PostShare(session, try session.store.post(post))
        try target.database.removeParticipant(try target.participantID(email: email), from: target.share.id)
        session.sync()
        Output.line("removed \(email) from \"\(target.post.title)\"")
    }
}

struct SetPostPermission: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set-permission", abstract: "Change what a participant may do with a post.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String
    @Argument(help: "The participant's email.") var email: String
    @Argument(help: "read-only or read-write.") var permission: SharePermission

    func run() throws {
        let session = try device.open(syncFirst: true)
        let target = try PostShare(session, try session.store.post(post))
        try target.database.setPermission(permission, for: try target.participantID(email: email), on: target.share.id)
        session.sync()
        Output.line("\(email) is now \(permission.text) on \"\(target.post.title)\"")
    }
}

struct StopSharingPost: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop-sharing", abstract: "Stop sharing a post: every participant loses it.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        guard found.scope == .private else { throw CLIError(message: "only the owner stops sharing; leave it with 'cloudnotes leave'") }
        let target = try PostShare(session, found)
        try target.database.deleteShare(target.share.id)
        session.sync()
        Output.line("stopped sharing \"\(found.title)\"")
    }
}

struct LeaveShare: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave the share a post came in: only you lose it.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The post.") var post: String

    func run() throws {
        let session = try device.open(syncFirst: true)
        let found = try session.store.post(post)
        guard found.scope == .shared else { throw CLIError(message: "\"\(found.title)\" is yours; stop sharing it instead") }
        let target = try PostShare(session, found)
        try target.database.deleteShare(target.share.id)
        session.sync()
        Output.line("left \"\(found.title)\"")
    }
}
