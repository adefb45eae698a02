@testable import Cloud
import Testing

/// The share-update rules alone, without a cloud.
@Suite struct ShareRulesTests {
    static let zone = ZoneID(name: "Notes", owner: "_owner")

    static func person(_ id: String, _ role: ShareRole = .privateUser, _ permission: SharePermission = .readOnly,
                       _ status: AcceptanceStatus = .accepted) -> ShareParticipant {
        ShareParticipant(userRecordID: id, name: id, email: "\(id)@example.com", role: role, permission: permission, status: status)
    }

    static func stored(_ others: [ShareParticipant], publicPermission: SharePermission = .none) -> Share {
        var share = Share(rootRecord: RecordID(name: "p1", zone: zone), title: "t")
        share.participants = [person("_owner", .owner, .readWrite)] + others
        share.publicPermission = publicPermission
        return share
    }

    func apply(_ desired: Share, to stored: Share, as role: ShareRole = .owner, max: Int = 100) throws -> Share {
        try ShareRules.apply(desired: desired, to: stored, callerRole: role, maxParticipants: max)
    }

    @Test func newInviteesArePendingAndClientStatusesAreIgnored() throws {
        let stored = Self.stored([])
        var desired = stored
        desired.participants.append(Self.person("_h", .privateUser, .readWrite, .accepted))
        let result = try apply(desired, to: stored)
        #expect(result.participant("_h")?.status == .pending)
        #expect(result.participant("_h")?.permission == .readWrite)
    }

    @Test func leavingSomeoneOutRemovesThemButNeverTheOwner() throws {
        let stored = Self.stored([Self.person("_h"), Self.person("_m")])
        var desired = stored
        desired.participants = [Self.person("_m")]
        let result = try apply(desired, to: stored)
        #expect(result.participant("_h")?.status == .removed)
        #expect(result.participant("_m")?.status == .accepted)
        #expect(result.owner?.status == .accepted)
    }

    @Test func onlyOwnersAndAdministratorsChangeShares() throws {
        let stored = Self.stored([Self.person("_h")])
        var desired = stored
        desired.participants.append(Self.person("_m"))
        #expect(throws: CloudError.permissionFailure("only the owner or an administrator changes a share")) {
            try apply(desired, to: stored, as: .privateUser)
        }
        #expect(try apply(desired, to: stored, as: .administrator).participant("_m")?.status == .pending)
        var retitled = stored
        retitled.title = "new"
        #expect(throws: CloudError.self) { try apply(retitled, to: stored, as: .administrator) }
    }

    @Test func publicAndPrivateTransitionsFollowCloudKit() throws {
        let stored = Self.stored([Self.person("_pending", .privateUser, .readOnly, .pending), Self.person("_in")])
        var goingPublic = stored
        goingPublic.publicPermission = .readOnly
        let open = try apply(goingPublic, to: stored)
        #expect(open.participant("_pending")?.status == .removed)
        #expect(open.participant("_in")?.status == .accepted)

        let withPublicUser = Self.stored([Self.person("_pub", .publicUser), Self.person("_in")], publicPermission: .readWrite)
        var goingPrivate = withPublicUser
        goingPrivate.publicPermission = .none
        let closed = try apply(goingPrivate, to: withPublicUser)
        #expect(closed.participant("_pub")?.status == .removed)
        #expect(closed.participant("_in")?.status == .accepted)
    }

    @Test func removedParticipantsStayRemovedUntilInvitedAgain() throws {
        let stored = Self.stored([Self.person("_h", .privateUser, .readOnly, .removed)])
        #expect(try apply(stored, to: stored).participant("_h")?.status == .removed, "saving a fetched share back invites nobody")

        var desired = stored
        desired.addParticipant(Self.person("_h"), permission: .readWrite)
        let result = try apply(desired, to: stored)
        #expect(result.participant("_h")?.status == .pending)
        #expect(result.participant("_h")?.permission == .readWrite)
    }

    @Test func theParticipantLimitCountsEveryoneButTheOwnerAndTheRemoved() throws {
        let stored = Self.stored([Self.person("_a"), Self.person("_gone", .privateUser, .readOnly, .removed)])
        var desired = stored
        desired.participants.append(Self.person("_b"))
        #expect(throws: CloudError.tooManyParticipants(limit: 1)) { try apply(desired, to: stored, max: 1) }
        #expect(try apply(desired, to: stored, max: 2).participants.count == 4)
    }
}
