import ArgumentParser
import Cloud
import Foundation
import Notes

struct AskForAccess: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request-access", abstract: "Ask the owner of a share you were not invited to (you hold its URL) to let you in.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The URL.") var url: String

    func run() throws {
        _ = try ShareURL(parsing: url)
        let session = try device.open()
        try session.postSharing.requestAccess(url)
        Output.line("asked the owner to let you in; once they approve, cloudnotes accept URL brings it here")
    }
}

struct ListAccessRequests: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests", abstract: "Who asked to join your shares (and who is blocked from asking).")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false

    struct RequestView: Encodable {
        var share: String
        var who: String
        var email: String
        var since: Date
        var status: String
    }

    func run() throws {
        let session = try device.open(syncFirst: true)
        let views = try session.postSharing.accessRequests().map {
            RequestView(share: Self.name(of: $0.share), who: $0.request.name, email: $0.request.email, since: $0.request.requestedAt,
                        status: $0.request.status.rawValue)
        }
        if json { return try Output.json(views) }
        if views.isEmpty { return Output.line("nobody asked to join your shares") }
        Output.table([["SHARE", "WHO", "EMAIL", "SINCE", "STATUS"]] + views.map { [$0.share, $0.who, $0.email, Output.date($0.since), $0.status] })
    }

    static func name(of share: Share) -> String { share.isZoneWide ? "notebook \(share.title)" : "\"\(share.title)\"" }
}

/// `approve`, `deny` and `block`: an answer to a request to join one of your shares.
struct AnswerAccessRequest: ParsableArguments {
    @OptionGroup var device: DeviceOptions
    @Argument(help: "Who asked: their account name or email (cloudnotes requests lists them).") var who: String
    @Option(help: "The share, by its post's title or ID, or 'notebook NAME', when they asked to join several.") var share: String?

    /// What `--share` may say of a share: its post's title or ID, or "notebook NAME".
    static func names(_ share: Share) -> [String] {
        [ListAccessRequests.name(of: share), "notebook \(share.title)", share.title] + (share.rootRecord.map { [$0] } ?? [])
    }

    func answer(_ response: AccessResponse, _ verb: String) throws {
        let session = try device.open(syncFirst: true)
        let matching = try session.postSharing.accessRequests().filter { asked in
            (asked.request.name.lowercased() == who.lowercased() || asked.request.email.lowercased() == who.lowercased())
                && share.map { Self.names(asked.share).contains($0) } ?? true
        }
        guard let request = matching.first else { throw CLIError(message: "\(who) has not asked to join \(share ?? "any of your shares") (cloudnotes requests lists who did)") }
        guard matching.count == 1 else {
            throw CLIError(message: "\(who) asked to join several shares: \(matching.map { ListAccessRequests.name(of: $0.share) }.joined(separator: ", ")); name one with --share")
        }
        try session.postSharing.respond(to: request, with: response)
        Output.line("\(verb) \(request.request.name) for \(ListAccessRequests.name(of: request.share))")
        session.sync()
    }
}

struct ApproveRequest: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "approve", abstract: "Let someone who asked join your share.")
    @OptionGroup var answer: AnswerAccessRequest
    @Flag(help: "They may edit (read-only by default).") var readWrite = false
    func run() throws { try answer.answer(.approve(readWrite ? .readWrite : .readOnly), "approved") }
}

struct DenyRequest: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Turn down a request to join your share (they may ask again).")
    @OptionGroup var answer: AnswerAccessRequest
    func run() throws { try answer.answer(.deny, "denied") }
}

struct BlockRequest: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "block", abstract: "Turn down a request and stop them from asking again.")
    @OptionGroup var answer: AnswerAccessRequest
    func run() throws { try answer.answer(.block, "blocked") }
}
