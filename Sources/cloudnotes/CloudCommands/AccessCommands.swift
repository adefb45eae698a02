import ArgumentParser
import Cloud
import Foundation
import Notes

struct OneTimeLink: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "one-time-link",
        abstract: "Make a link that admits exactly one account, the first to accept it, and nobody after.")

    @OptionGroup var target: ShareTarget
    @Option(help: "read-only or read-write.") var permission: SharePermission = .readOnly

    func run() throws {
        let context = try target.open()
        let (_, url) = try context.database.makeOneTimeInvitation(for: context.metadata.share, permission: permission)
        Output.line(url.absoluteString)
    }
}

struct RequestAccess: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask the owner of a share you were not invited to for access.")

    @OptionGroup var target: ShareTarget

    func run() throws {
        let url = try ShareURL(parsing: target.url)
        let cloud = try target.cloud.open()
        try cloud.requestAccess(url, as: try cloud.account(named: target.account))
        Output.line("asked the owner for access; you will see the share once they approve")
    }
}

struct AccessRequests: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List who asked to join a share, and who is blocked.")

    @OptionGroup var target: ShareTarget
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let context = try target.open()
        let requests = try context.database.accessRequests(for: context.metadata.share)
        if json { return try Output.json(requests) }
        if requests.isEmpty { return Output.line("no access requests") }
        Output.table([["NAME", "EMAIL", "ASKED", "STATUS"]]
            + requests.map { [$0.name, $0.email, Output.date($0.requestedAt), $0.status.rawValue] })
    }
}

/// Approve, deny or block: one requester of one share.
struct RequestAnswer: ParsableArguments {
    @OptionGroup var target: ShareTarget
    @Option(help: "The requester's email.") var requester: String

    func answer(_ response: AccessResponse) throws {
        let context = try target.open()
        guard let account = try context.cloud.account(email: requester) else {
            throw CloudError.participantNeedsVerification(requester)
        }
        try context.database.respond(to: account.id, requestingAccessTo: context.metadata.share, with: response)
    }
}

struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Let a requester in; the share appears for them at once.")

    @OptionGroup var request: RequestAnswer
    @Option(help: "read-only or read-write.") var permission: SharePermission = .readOnly

    func run() throws {
        try request.answer(.approve(permission))
        Output.line("approved \(request.requester) (\(permission.text))")
    }
}

struct Deny: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Drop a request; the requester may ask again.")

    @OptionGroup var request: RequestAnswer

    func run() throws {
        try request.answer(.deny)
        Output.line("denied \(request.requester)")
    }
}

struct Block: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Drop a request and refuse any further one from the requester.")

    @OptionGroup var request: RequestAnswer

    func run() throws {
        try request.answer(.block)
        Output.line("blocked \(request.requester)")
    }
}

struct Shares: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the shares in one of an account's zones.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The owning account.") var account: String
    @Option(help: "The zone.") var zone: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let cloud = try cloud.open()
        let shares = try cloud.database(.private, as: try cloud.account(named: account)).shares(in: ZoneID(name: zone))
        let names = try AccountNames(cloud)
        let views = shares.map { ShareView($0, names: names) }
        if json { return try Output.json(views) }
        if views.isEmpty { return Output.line("no shares in zone \(zone)") }
        Output.table([["SHARE", "ROOT", "TITLE", "PUBLIC", "PARTICIPANTS"]] + views.map {
            [$0.share, $0.rootRecord ?? "(whole zone)", $0.title, $0.publicPermission.text,
             String($0.participants.filter { $0.status != .removed && $0.role != .owner }.count)]
        })
    }
}
