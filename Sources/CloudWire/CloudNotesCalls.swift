import Cloud
import Foundation

/// The body of one of CloudNotes' own operations (the ones Apple does not
/// have: history, trash, participants, permissions, access requests,
/// one-time links, the inbox…), under the same path prefix and in the same
/// style: flat keys, records and zone IDs as Apple writes them, shares and
/// their metadata in CloudNotes' own dictionaries. Each operation reads the
/// keys `docs/PROTOCOL.md` lists for it and ignores the rest.
public struct CallRequest: Codable, Sendable {
    public var recordName: String?
    public var recordNames: [String]?
    public var zoneID: WireZoneID?
    public var recordType: String?
    public var userRecordName: String?
    public var emailAddress: String?
    public var accountName: String?
    public var invitationID: String?
    public var shortGUID: String?
    public var permission: SharePermission?
    public var share: Share?
    public var rootRecord: WireRecord?
    public var policy: SavePolicy?
    public var participant: ShareParticipant?
    public var response: AccessResponse?
    public var account: WireUser?

    public init() {}

    /// The record a share operation names.
    public func recordID(default zone: ZoneID = ZoneID(name: ZoneID.defaultName)) throws(WireFormatError) -> RecordID {
        guard let recordName else { throw WireFormatError("the request names no recordName") }
        return RecordID(name: recordName, zone: zoneID?.zoneID ?? zone)
    }

    public func zone() throws(WireFormatError) -> ZoneID {
        guard let zoneID else { throw WireFormatError("the request names no zoneID") }
        return zoneID.zoneID
    }

    public func require<T>(_ value: T?, _ key: String) throws(WireFormatError) -> T {
        guard let value else { throw WireFormatError("the request has no \(key)") }
        return value
    }
}

/// One version of a record's history (`records/history`, `records/trash`).
public struct WireVersion: Codable, Sendable {
    public var number: Int
    public var record: WireRecord
    /// For a deleted record: when and by whom (ms, user record name).
    public var deletedAt: Double?
    public var deletedBy: String?

    public init(_ version: RecordVersion) {
        number = version.number
        record = WireRecord(version.record)
    }

    public init(_ deleted: DeletedRecord) {
        self.init(deleted.last)
        deletedAt = deleted.deletedAt.timeIntervalSince1970 * 1000
        deletedBy = deleted.deletedBy
    }

    public func version(in zone: ZoneID) throws(WireFormatError) -> RecordVersion {
        RecordVersion(number: number, record: try record.stored(in: zone))
    }

    public func deleted(in zone: ZoneID) throws(WireFormatError) -> DeletedRecord {
        DeletedRecord(last: try version(in: zone), deletedAt: Date(timeIntervalSince1970: (deletedAt ?? 0) / 1000), deletedBy: deletedBy ?? "")
    }
}

/// The answer of one of CloudNotes' own operations: the keys it fills.
public struct CallResponse: Codable, Sendable {
    public var identity: CloudIdentity?
    public var users: [WireUser]?
    public var metadata: ShareMetadata?
    public var invitations: [InboxInvitation]?
    public var ownedRequests: [OwnedShareRequest]?
    public var versions: [WireVersion]?
    public var count: Int?
    public var ended: [EndedShare]?
    public var participant: ShareParticipant?
    public var share: Share?
    public var shares: [Share]?
    public var rootRecord: WireRecord?
    public var records: [WireRecord]?
    public var url: ShareURL?
    public var accessRequests: [AccessRequest]?

    public init() {}
}
