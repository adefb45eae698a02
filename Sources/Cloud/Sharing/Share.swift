import Foundation

/// A participant's part in a share (CloudKit's `CKShare.ParticipantRole`).
public enum ShareRole: String, Codable, Sendable, CaseIterable {
    case owner, administrator, privateUser, publicUser
}

/// What a participant, or anyone holding the link, may do; ordered from least to most.
public enum SharePermission: String, Codable, Sendable, CaseIterable, Comparable {
    case none, readOnly, readWrite

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// Where a participant stands with a share.
public enum AcceptanceStatus: String, Codable, Sendable, CaseIterable {
    case unknown, pending, accepted, removed
}

/// One account (or one unclaimed one-time invitation) on a share.
public struct ShareParticipant: Hashable, Codable, Sendable {
    /// Nil only for a one-time invitation nobody has claimed yet.
    public var userRecordID: String?
    public var name: String?
    public var email: String?
    public var role: ShareRole
    public var permission: SharePermission
    public var status: AcceptanceStatus
    /// Names a one-time invitation slot, so the owner can refer to it.
    public var oneTimeID: String?

    public init(userRecordID: String?, name: String?, email: String?, role: ShareRole = .privateUser,
                permission: SharePermission = .readOnly, status: AcceptanceStatus = .unknown, oneTimeID: String? = nil) {
        self.userRecordID = userRecordID
        self.name = name
        self.email = email
        self.role = role
        self.permission = permission
        self.status = status
        self.oneTimeID = oneTimeID
    }

    init(account: Account, role: ShareRole, permission: SharePermission, status: AcceptanceStatus) {
        self.init(userRecordID: account.id, name: account.name, email: account.email,
                  role: role, permission: permission, status: status)
    }

    /// Whether this participant currently reaches the shared records.
    public var hasAccess: Bool { status == .accepted && permission != .none }

    /// Name, else email, else a placeholder: what a list shows.
    public var displayName: String { name ?? email ?? "one-time invitation" }
}

/// A share: the grant that lets other accounts reach records of one zone.
///
/// Hierarchical shares have a root record: the root and every record whose
/// parent chain reaches it are shared. Zone-wide shares (record name
/// `Share.zoneWideRecordName`) share every record of their zone.
/// The cloud stores a share as a record of type `Share.recordType` in its
/// zone, so it travels with zone changes like any other record.
public struct Share: Hashable, Codable, Sendable {
    public static let recordType = "cloudkit.share"
    public static let zoneWideRecordName = "cloudkit.zoneshare"

    public var id: RecordID
    /// The root record's name; nil for a zone-wide share.
    public var rootRecord: String?
    public var title: String
    /// What kind of thing is shared ("Post", "Notebook"), for the invitation.
    public var type: String?
    public var publicPermission: SharePermission
    public var participants: [ShareParticipant]
    /// The change tag of the share's record; nil until saved.
    public var changeTag: String?

    /// A new hierarchical share of `root`, to be saved together with it.
    public init(rootRecord root: RecordID, title: String, type: String? = nil) {
        id = RecordID(name: "share-" + root.name, zone: root.zone)
        rootRecord = root.name
        self.title = title
        self.type = type
        publicPermission = .none
        participants = []
    }

    /// A new share of every record in `zone`, now and later.
    public init(zoneWide zone: ZoneID, title: String, type: String? = nil) {
        id = RecordID(name: Self.zoneWideRecordName, zone: zone)
        rootRecord = nil
        self.title = title
        self.type = type
        publicPermission = .none
        participants = []
    }

    public var isZoneWide: Bool { rootRecord == nil }

    public var owner: ShareParticipant? { participants.first { $0.role == .owner } }

    /// Participants not removed: who is on the share now, owner included.
    public var currentParticipants: [ShareParticipant] { participants.filter { $0.status != .removed } }

    /// Current participants other than the owner: the people it is shared with.
    public var invitees: [ShareParticipant] { currentParticipants.filter { $0.role != .owner } }

    public func participant(_ userRecordID: String) -> ShareParticipant? {
        participants.first { $0.userRecordID == userRecordID }
    }

    /// Adds a looked-up participant, or changes the permission of one already there.
    public mutating func addParticipant(_ participant: ShareParticipant, permission: SharePermission) {
        var added = participant
        added.permission = permission
        if added.role == .owner || added.role == .publicUser { added.role = .privateUser }
        if let i = participants.firstIndex(where: { $0.userRecordID == participant.userRecordID && $0.userRecordID != nil }) {
            participants[i].permission = permission
            if participants[i].status == .removed { participants[i].status = .pending }
        } else {
            added.status = .pending
            participants.append(added)
        }
    }

    /// Takes a participant off the share; they lose access on their next request.
    public mutating func removeParticipant(_ userRecordID: String) {
        participants.removeAll { $0.userRecordID == userRecordID && $0.role != .owner }
    }
}

/// What the holder of a share URL learns before accepting it.
public struct ShareMetadata: Hashable, Codable, Sendable {
    public var share: RecordID
    public var title: String
    public var type: String?
    public var ownerName: String
    public var ownerEmail: String
    /// The shared root record; nil for a zone-wide share.
    public var rootRecord: RecordID?
    public var zone: ZoneID
    public var publicPermission: SharePermission
    /// The caller's part, as it is or as it would be on accepting.
    public var role: ShareRole
    public var permission: SharePermission
    public var status: AcceptanceStatus
}

/// Someone who holds a share's URL, was not invited, and asked to join.
public struct AccessRequest: Hashable, Codable, Sendable {
    public enum Status: String, Codable, Sendable { case pending, blocked }
    public var userRecordID: String
    public var name: String
    public var email: String
    public var requestedAt: Date
    public var status: Status
}

/// What saving a share returns.
public struct SavedShare: Sendable {
    public var share: Share
    /// The root as saved with a new share.
    public var rootRecord: Record?
    /// The invitation link; only when the share was created, since the cloud
    /// keeps no copy of it. Keep it.
    public var url: ShareURL?

    public init(share: Share, rootRecord: Record?, url: ShareURL?) {
        self.share = share
        self.rootRecord = rootRecord
        self.url = url
    }
}
