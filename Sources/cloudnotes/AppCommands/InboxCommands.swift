import ArgumentParser
import Cloud
import Foundation
import Notes

struct ShowInvitations: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invitations",
        abstract: "Invitations waiting for you: accept one with cloudnotes accept --invitation ID, or decline it.")

    @OptionGroup var device: DeviceOptions
    @Flag(help: "Print JSON.") var json = false

    struct InvitationView: Encodable {
        var id: String
        var title: String
        var owner: String
        var notebook: Bool
        var permission: String
    }

    func run() throws {
        let session = try device.open()
        let views = try session.postSharing.invitations().map {
            InvitationView(id: $0.id, title: $0.metadata.title, owner: $0.metadata.ownerName, notebook: $0.metadata.rootRecord == nil,
                           permission: $0.metadata.permission.text)
        }
        if json { return try Output.json(views) }
        if views.isEmpty { return Output.line("no invitations wait for you") }
        Output.table([["ID", "SHARED", "BY", "YOU MAY"]] + views.map {
            [$0.id, $0.notebook ? "notebook \($0.title)" : "\"\($0.title)\"", $0.owner, $0.permission]
        })
    }
}

struct DeclineInvitation: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline an invitation waiting for you.")

    @OptionGroup var device: DeviceOptions
    @Argument(help: "The invitation's ID (cloudnotes invitations lists them).") var id: String

    func run() throws {
        let session = try device.open()
        let title = try session.postSharing.invitations().first { $0.id == id }?.metadata.title
        try session.postSharing.declineInvitation(id)
        Output.line("declined the invitation to \"\(title ?? id)\"")
    }
}
