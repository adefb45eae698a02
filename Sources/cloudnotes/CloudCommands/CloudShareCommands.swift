import ArgumentParser
import Cloud
import Foundation
import Notes

struct ShareRecord: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share a record and the records below it (--record), or a whole zone; prints the URL.",
        discussion: "The cloud keeps only a hash of the URL's token: keep the URL this prints.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The owning account.") var account: String
    @Option(help: "The zone to share, or that holds the record.") var zone: String
    @Option(help: "The root record; without it the whole zone is shared.") var record: String?
    @Option(help: "The share's title (default: the record's title field, or the zone's name).") var title: String?
    @Option(help: "What is shared, e.g. Post or Notebook.") var type: String?
    @Option(name: .customLong("public"), help: "What anyone holding the URL gets: none, read-only, read-write.")
    var publicPermission: SharePermission = .none
    @Option(help: ArgumentHelp("Invite an account by email, read-only unless :read-write follows.", valueName: "EMAIL[:PERMISSION]"))
    var invite: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let invitations = try invite.map(Self.parseInvitation)
        let cloud = try cloud.open()
        let owner = cloud.database(.private, as: try cloud.account(named: account))
        let zoneID = ZoneID(name: zone)
        var share: Share
        var root: Record?
        if let record {
            let fetched = try owner.record(RecordID(name: record, zone: zoneID))
            var defaultTitle = record
            if case .string(let t)? = fetched["title"] { defaultTitle = t }
            share = Share(rootRecord: fetched.id, title: title ?? defaultTitle, type: type)
            root = fetched
        } else {
            share = Share(zoneWide: zoneID, title: title ?? zone, type: type)
        }
        share.publicPermission = publicPermission
        for (email, permission) in invitations {
            share.addParticipant(try owner.lookUpParticipant(email: email), permission: permission)
        }
        let saved = try owner.saveShare(share, rootRecord: root)
        let view = ShareView(saved.share, url: saved.url, names: try AccountNames(cloud))
        if json { try Output.json(view) } else { view.printText() }
    }

    static func parseInvitation(_ text: String) throws -> (String, SharePermission) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let email = parts.first, !email.isEmpty else { throw CLIError.usage("--invite needs an email") }
        guard parts.count == 2 else { return (email, .readOnly) }
        guard let permission = SharePermission(argument: parts[1]), permission != .none else {
            throw CLIError.usage("--invite \(text): the permission is read-only or read-write")
        }
        return (email, permission)
    }
}

/// `URL --account A`: the options every command on an existing share takes.
struct ShareTarget: ParsableArguments {
    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The share's URL.") var url: String
    @Option(help: "The account acting on the share.") var account: String

    func open() throws -> ShareContext { try ShareContext(cloud: cloud, url: url, account: account) }
}

struct Invite: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Invite an account to a share, or change its permission.")

    @OptionGroup var target: ShareTarget
    @Option(help: "The invitee's email.") var participant: String
    @Option(help: "read-only or read-write.") var permission: SharePermission = .readOnly

    func run() throws {
        guard permission != .none else { throw CLIError.usage("--permission is read-only or read-write") }
        let context = try target.open()
        let share = try context.database.addParticipant(try context.participant(email: participant), permission: permission,
                                                        to: context.metadata.share)
        Output.line("invited \(participant) (\(permission.text)); they accept with: cloudnotes cloud accept URL --account NAME")
        ShareView(share, names: try AccountNames(context.cloud)).printParticipants()
    }
}

struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What a share URL leads to, and the caller's part in it.")

    @OptionGroup var target: ShareTarget
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let m = try target.open().metadata
        if json { return try Output.json(m) }
        Output.line("\(m.title)\(m.type.map { " (\($0))" } ?? ""), shared by \(m.ownerName) <\(m.ownerEmail)>")
        Output.line("  \(m.rootRecord.map { "record \($0.name) in zone \(m.zone.name)" } ?? "the whole zone \(m.zone.name)")")
        Output.line("  you: \(m.role.text), \(m.permission.text), \(m.status.rawValue)")
    }
}

struct Accept: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Accept a share: its zone appears in the account's shared database.")

    @OptionGroup var target: ShareTarget

    func run() throws {
        let url = try ShareURL(parsing: target.url)
        let cloud = try target.cloud.open()
        let account = target.account
        let m = try cloud.acceptShare(url, as: try cloud.account(named: account))
        Output.line("accepted \"\(m.title)\" from \(m.ownerName) as \(m.role.text), \(m.permission.text)")
        Output.line("  read it with: cloudnotes cloud changes --account \(account) --database shared --owner \(m.ownerName) --zone \(m.zone.name)")
    }
}

struct Participants: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The participants of a share: role, permission, status.")

    @OptionGroup var target: ShareTarget
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let context = try target.open()
        try context.show(try context.share(), json: json)
    }
}

struct RemoveParticipant: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Take a participant off a share; they lose it on their next request.")

    @OptionGroup var target: ShareTarget
    @Option(help: "The participant's email.") var participant: String

    func run() throws {
        let context = try target.open()
        try context.database.removeParticipant(try context.participantID(email: participant), from: context.metadata.share)
        Output.line("removed \(participant)")
    }
}

struct SetPermission: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Change what a participant may do, from their next request.")

    @OptionGroup var target: ShareTarget
    @Option(help: "The participant's email.") var participant: String
    @Option(help: "none, read-only or read-write.") var permission: SharePermission

    func run() throws {
        let context = try target.open()
        try context.database.setPermission(permission, for: try context.participantID(email: participant), on: context.metadata.share)
        Output.line("\(participant) is now \(permission.text)")
    }
}

struct SetPublic: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change what anyone holding the URL gets.",
        discussion: "Turning public drops pending invitations; turning private removes every public user.")

    @OptionGroup var target: ShareTarget
    @Option(help: "none, read-only or read-write.") var permission: SharePermission

    func run() throws {
        let context = try target.open()
        try context.database.setPublicPermission(permission, on: context.metadata.share)
        Output.line("public permission is now \(permission.text)")
    }
}

struct StopSharing: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End a share: every participant loses it; the owner keeps the records.")

    @OptionGroup var target: ShareTarget

    func run() throws {
        let context = try target.open()
        guard context.isOwner else { throw CLIError(message: "only the owner stops sharing; a participant leaves with 'cloudnotes cloud leave'") }
        try context.database.deleteShare(context.metadata.share)
        Output.line("stopped sharing \"\(context.metadata.title)\"")
    }
}

struct Leave: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Leave a share: only the caller loses it.")

    @OptionGroup var target: ShareTarget

    func run() throws {
        let context = try target.open()
        guard !context.isOwner else { throw CLIError(message: "the owner cannot leave a share; end it with 'cloudnotes cloud stop-sharing'") }
        try context.database.deleteShare(context.metadata.share)
        Output.line("left \"\(context.metadata.title)\"")
    }
}
