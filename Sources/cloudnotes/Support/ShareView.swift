import Cloud
import Foundation
import Notes

/// A share as the command line shows it.
struct ShareView: Encodable {
    struct Participant: Encodable {
        var name: String
        var email: String?
        var role: ShareRole
        var permission: SharePermission
        var status: AcceptanceStatus
        var oneTimeID: String?
    }

    var share: String
    var zone: String
    var owner: String
    var rootRecord: String?
    var title: String
    var type: String?
    var publicPermission: SharePermission
    var participants: [Participant]
    /// When the share was just created, or (the app) where this device opens the share's sealed link.
    var url: String?

    init(_ share: Share, url: ShareURL? = nil, names: AccountNames) {
        self.share = share.id.name
        zone = share.id.zone.name
        owner = names(share.id.zone.owner)
        rootRecord = share.rootRecord
        title = share.title
        type = share.type
        publicPermission = share.publicPermission
        participants = share.participants.map {
            Participant(name: $0.displayName, email: $0.email, role: $0.role, permission: $0.permission,
                        status: $0.status, oneTimeID: $0.oneTimeID)
        }
        self.url = url?.absoluteString
    }

    func printText() {
        let what = rootRecord.map { "record \($0)" } ?? "the whole zone"
        Output.line("share \(share) of \(what) in zone \(zone), owned by \(owner)")
        Output.line("  title   \(title)\(type.map { " (\($0))" } ?? "")")
        Output.line("  public  \(publicPermission.text)")
        if let url { Output.line("  url     \(url)") }
        printParticipants()
    }

    func printParticipants() {
        Output.table([["PARTICIPANT", "EMAIL", "ROLE", "PERMISSION", "STATUS"]] + participants.map {
            [$0.name + ($0.oneTimeID.map { " [\($0)]" } ?? ""), $0.email ?? "-", $0.role.text, $0.permission.text, $0.status.rawValue]
        })
    }
}

/// The share behind a URL, reached as the account acting on it: its owner
/// through their private database, a participant through their shared one.
struct ShareContext {
    let cloud: any Cloud
    let caller: Account
    let url: ShareURL
    let metadata: ShareMetadata
    let database: CloudDatabase

    init(cloud options: CloudOptions, url text: String, account: String) throws {
        url = try ShareURL(parsing: text)
        cloud = try options.open()
        caller = try cloud.account(named: account)
        metadata = try cloud.fetchShareMetadata(url, as: caller)
        database = cloud.database(metadata.role == .owner ? .private : .shared, as: caller)
    }

    var isOwner: Bool { metadata.role == .owner }

    func share() throws -> Share { try database.fetchShare(metadata.share) }

    /// The participant with this email, on the share or, to invite, in the cloud.
    func participant(email: String) throws -> ShareParticipant {
        if let known = try share().participants.first(where: { $0.email?.lowercased() == email.lowercased() }) {
            return known
        }
        return try database.lookUpParticipant(email: email)
    }

    /// The user record ID of someone who takes part in the share.
    func participantID(email: String) throws -> String {
        guard let id = try participant(email: email).userRecordID else {
            throw CLIError(message: "\(email) does not take part in this share")
        }
        return id
    }

    func show(_ share: Share, json: Bool) throws {
        let view = ShareView(share, names: try AccountNames(cloud))
        if json { try Output.json(view) } else { view.printText() }
    }
}
