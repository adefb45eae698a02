import Cloud
import Foundation

// Request and response bodies of the operations Apple documents, in Apple's keys; keys marked "ours" are
// CloudNotes' extensions, which other clients leave out and may ignore.

/// One item of a `records` or `zones` array: the record or zone, or why it failed (a dictionary with a
/// `serverErrorCode`).
public enum WireOutcome<Value: Codable & Hashable & Sendable>: Hashable, Sendable, Codable {
    case value(Value)
    case error(WireError)

    private enum Key: String, CodingKey { case serverErrorCode }

    public init(from decoder: any Decoder) throws {
        if try decoder.container(keyedBy: Key.self).contains(.serverErrorCode) {
            self = .error(try WireError(from: decoder))
        } else {
            self = .value(try Value(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let value): try value.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }
}

extension WireOutcome: JSONConvertible where Value: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        self = json["serverErrorCode"] == nil ? .value(try Value(json: json)) : .error(try WireError(json: json))
    }

    public var json: JSON {
        switch self {
        case .value(let value): value.json
        case .error(let error): error.json
        }
    }
}

public typealias WireItem = WireOutcome<WireRecord>
public typealias WireZoneItem = WireOutcome<WireZone>

/// `records/modify`: `operationType` is create, update, forceUpdate, replace, forceReplace, delete or forceDelete.
public struct RecordsModifyRequest: JSONConvertible, Sendable {
    public struct Operation: JSONConvertible, Sendable {
        public var operationType: String
        public var record: WireRecord
        public init(operationType: String, record: WireRecord) {
            self.operationType = operationType
            self.record = record
        }

        public init(json: JSON) throws(WireFormatError) {
            let object = try json.object("an operation")
            operationType = try object.requiredString("operationType")
            guard let record = try object.value("record", as: WireRecord.self) else { throw WireFormatError("an operation has a record") }
            self.record = record
        }

        public var json: JSON { .object(["operationType": .string(operationType), "record": record.json]) }
    }

    public var operations: [Operation]
    public var zoneID: WireZoneID?
    /// Apple's default is true in a custom zone.
    public var atomic: Bool?
    /// The fields the answer's records carry (all when absent; none when empty: a client that sent the whole
    /// record needs only its new change tag and stamps back).
    public var desiredKeys: [String]?

    public init(operations: [Operation], zoneID: WireZoneID? = nil, atomic: Bool?, desiredKeys: [String]? = nil) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
        self.desiredKeys = desiredKeys
    }

    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("the body")
        guard let operations = try object.values("operations", as: Operation.self) else { throw WireFormatError("operations is required") }
        self.init(operations: operations, zoneID: try object.value("zoneID"), atomic: try object.bool("atomic"),
                  desiredKeys: try object.strings("desiredKeys"))
    }

    public var json: JSON {
        var object: JSONObject = ["operations": .array(operations.map(\.json))]
        object.add("zoneID", zoneID)
        object.add("atomic", atomic)
        object.add("desiredKeys", desiredKeys)
        return .object(object)
    }
}

/// The answer of `records/modify`, `records/lookup`, `records/query` and `records/changes`.
public struct RecordsResponse: JSONConvertible, Sendable {
    public var records: [WireItem]
    public var continuationMarker: String?
    public var syncToken: String?
    public var moreComing: Bool?
    /// Ours: the commit as the caller's database saw it (see `Commit`), so a device drops the push of its own change.
    public var commit: Commit?

    public init(records: [WireItem], continuationMarker: String? = nil, syncToken: String? = nil, moreComing: Bool? = nil,
                commit: Commit? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.commit = commit
    }

    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("the answer")
        guard let records = try object.values("records", as: WireItem.self) else { throw WireFormatError("records is required") }
        self.records = records
        continuationMarker = try object.string("continuationMarker")
        syncToken = try object.string("syncToken")
        moreComing = try object.bool("moreComing")
        if let commit = object["commit"], commit != .null {
            let written = try commit.object("commit")
            guard let sequence = try written.int("sequence"), let previous = try written.int("previous") else {
                throw WireFormatError("a commit is {sequence, previous}")
            }
            self.commit = Commit(sequence: sequence, previous: previous)
        }
    }

    public var json: JSON {
        var object: JSONObject = ["records": .array(records.map(\.json))]
        object.add("continuationMarker", continuationMarker)
        object.add("syncToken", syncToken)
        object.add("moreComing", moreComing)
        object.add("commit", commit.map { .object(["sequence": .int($0.sequence), "previous": .int($0.previous)]) })
        return .object(object)
    }
}

/// `records/lookup`.
public struct RecordsLookupRequest: Codable, Sendable {
    public struct Name: Codable, Sendable {
        public var recordName: String
        public init(recordName: String) { self.recordName = recordName }
    }

    public var records: [Name]
    public var zoneID: WireZoneID?

    public init(records: [Name], zoneID: WireZoneID?) {
        self.records = records
        self.zoneID = zoneID
    }
}

/// `records/query`: the records of one type in a zone that pass every filter, sorted, a page at a time.
public struct RecordsQueryRequest: Codable, Sendable {
    public struct Filter: Codable, Sendable {
        public var comparator: String
        public var fieldName: String
        public var fieldValue: WireValue
    }

    public struct Sort: Codable, Sendable {
        public var fieldName: String
        public var ascending: Bool?
    }

    public struct Query: Codable, Sendable {
        public var recordType: String
        public var filterBy: [Filter]?
        public var sortBy: [Sort]?
    }

    public var zoneID: WireZoneID?
    public var query: Query
    public var resultsLimit: Int?
    public var continuationMarker: String?
}

/// `records/changes`: one zone's changes since a token.
public struct RecordsChangesRequest: Codable, Sendable {
    public var zoneID: WireZoneID
    public var syncToken: String?
    public var resultsLimit: Int?
}

/// `changes/zone`: several zones' changes, each since its own token.
public struct ZoneChangesRequest: JSONConvertible, Sendable {
    public struct Zone: JSONConvertible, Sendable {
        public var zoneID: WireZoneID
        public var syncToken: String?
        public var resultsLimit: Int?
        /// Ours: change tags of versions the caller holds (by record name), left out of the answer.
        public var knownRecords: [String: String]?

        public init(zoneID: WireZoneID, syncToken: String?, resultsLimit: Int?, knownRecords: [String: String]?) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.knownRecords = knownRecords
        }

        public init(json: JSON) throws(WireFormatError) {
            let object = try json.object("a zone")
            guard let zoneID = try object.value("zoneID", as: WireZoneID.self) else { throw WireFormatError("a zone names its zoneID") }
            var known: [String: String]?
            if let written = object["knownRecords"], written != .null {
                known = [:]
                for member in try written.object("knownRecords").members {
                    guard let tag = member.value.string else { throw WireFormatError("knownRecords maps record names to change tags") }
                    known?[member.key] = tag
                }
            }
            self.init(zoneID: zoneID, syncToken: try object.string("syncToken"), resultsLimit: try object.int("resultsLimit").map(Int.init),
                      knownRecords: known)
        }

        public var json: JSON {
            var object: JSONObject = ["zoneID": zoneID.json]
            object.add("syncToken", syncToken)
            object.add("resultsLimit", resultsLimit.map(Int64.init))
            if let knownRecords {
                var known = JSONObject()
                for (name, tag) in knownRecords { known.add(name, tag) }
                object.add("knownRecords", .object(known))
            }
            return .object(object)
        }
    }

    public var zones: [Zone]
    public init(zones: [Zone]) { self.zones = zones }

    public init(json: JSON) throws(WireFormatError) {
        guard let zones = try json.object("the body").values("zones", as: Zone.self) else { throw WireFormatError("zones is required") }
        self.zones = zones
    }

    public var json: JSON { .object(["zones": .array(zones.map(\.json))]) }
}

/// The answer of `changes/zone`: per zone, its changed records (a deleted one as `{recordName, deleted: true}`) or its error.
public struct ZoneChangesResponse: JSONConvertible, Sendable {
    public struct Zone: JSONConvertible, Sendable {
        public var zoneID: WireZoneID
        public var records: [WireRecord]?
        public var syncToken: String?
        public var moreComing: Bool?
        public var error: WireError?

        public init(zoneID: WireZoneID, records: [WireRecord]?, syncToken: String?, moreComing: Bool?, error: WireError? = nil) {
            self.zoneID = zoneID
            self.records = records
            self.syncToken = syncToken
            self.moreComing = moreComing
            self.error = error
        }

        public init(json: JSON) throws(WireFormatError) {
            let object = try json.object("a zone's changes")
            guard let zoneID = try object.value("zoneID", as: WireZoneID.self) else { throw WireFormatError("a zone's changes name its zoneID") }
            self.init(zoneID: zoneID, records: try object.values("records"), syncToken: try object.string("syncToken"),
                      moreComing: try object.bool("moreComing"), error: object["serverErrorCode"] == nil ? nil : try WireError(json: json))
        }

        /// A zone that failed is its error with its zoneID.
        public var json: JSON {
            if var error = error {
                error.zoneID = zoneID
                return error.json
            }
            var object: JSONObject = ["zoneID": zoneID.json]
            object.add("records", records)
            object.add("syncToken", syncToken)
            object.add("moreComing", moreComing)
            return .object(object)
        }
    }

    public var zones: [Zone]
    public init(zones: [Zone]) { self.zones = zones }

    public init(json: JSON) throws(WireFormatError) {
        zones = try json.object("the answer").values("zones") ?? []
    }

    public var json: JSON { .object(["zones": .array(zones.map(\.json))]) }
}

/// `changes/database`.
public struct DatabaseChangesRequest: Codable, Sendable {
    public var syncToken: String?
    public var resultsLimit: Int?
    public init(syncToken: String?, resultsLimit: Int?) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// A zone in a `zones` array: its ID, whether it is gone and why (ours), or its error.
public struct WireZone: Codable, Hashable, Sendable {
    public var zoneID: WireZoneID
    public var deleted: Bool?
    /// Ours: deleted, purged or encryptedDataReset.
    public var deletionReason: String?

    public init(zoneID: WireZoneID, deleted: Bool? = nil, deletionReason: String? = nil) {
        self.zoneID = zoneID
        self.deleted = deleted
        self.deletionReason = deletionReason
    }
}

/// The answer of `changes/database`.
public struct DatabaseChangesResponse: Codable, Sendable {
    public var zones: [WireZone]
    public var syncToken: String
    public var moreComing: Bool
    public init(zones: [WireZone], syncToken: String, moreComing: Bool) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

/// `zones/lookup` (and the `zones` of `zones/list`'s answer).
public struct ZonesRequest: Codable, Sendable {
    /// A zone named as `{"zoneID": {…}}`, or (as `zones/lookup` documents it) as the zone ID itself.
    public struct Zone: Codable, Sendable {
        public var zoneID: WireZoneID
        public init(zoneID: WireZoneID) { self.zoneID = zoneID }

        private enum Key: String, CodingKey { case zoneID }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            zoneID = c.contains(.zoneID) ? try c.decode(WireZoneID.self, forKey: .zoneID) : try WireZoneID(from: decoder)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(zoneID, forKey: .zoneID)
        }
    }

    public var zones: [Zone]
    public init(zones: [Zone]) { self.zones = zones }
}

/// `zones/modify`: `operationType` is create or delete.
public struct ZonesModifyRequest: Codable, Sendable {
    public struct Operation: Codable, Sendable {
        public var operationType: String
        public var zone: ZonesRequest.Zone
        /// Ours, on a delete: the change token its caller last fetched the zone to; the zone is deleted only where
        /// nothing in it changed since (else `CONFLICT`, `zoneChanged`).
        public var syncToken: String?
        public init(operationType: String, zone: ZonesRequest.Zone, syncToken: String? = nil) {
            self.operationType = operationType
            self.zone = zone
            self.syncToken = syncToken
        }
    }

    public var operations: [Operation]
    /// Ours: why deleted zones go (deleted by default).
    public var deletionReason: String?

    public init(operations: [Operation], deletionReason: String?) {
        self.operations = operations
        self.deletionReason = deletionReason
    }
}

/// The answer of `zones/list`, `zones/lookup` and `zones/modify`.
public struct ZonesResponse: Codable, Sendable {
    public var zones: [WireZoneItem]
    /// Ours (`zones/modify`): see `RecordsResponse.commit`.
    public var commit: Commit?
    public init(zones: [WireZoneItem], commit: Commit? = nil) {
        self.zones = zones
        self.commit = commit
    }
}

/// `users/current` and the users of `users/lookup/email`.
public struct WireUser: Codable, Hashable, Sendable {
    public struct LookupInfo: Codable, Hashable, Sendable {
        public var emailAddress: String?
        public init(emailAddress: String?) { self.emailAddress = emailAddress }
    }

    public struct NameComponents: Codable, Hashable, Sendable {
        public var givenName: String?
    }

    public var userRecordName: String
    public var lookupInfo: LookupInfo?
    public var nameComponents: NameComponents?
    /// Ours: when the account was made (ms).
    public var created: Double?

    public init(_ account: Account) {
        userRecordName = account.id
        lookupInfo = LookupInfo(emailAddress: account.email)
        nameComponents = NameComponents(givenName: account.name)
        created = account.createdAt.timeIntervalSince1970 * 1000
    }

    public var account: Account {
        Account(id: userRecordName, name: nameComponents?.givenName ?? userRecordName, email: lookupInfo?.emailAddress ?? "",
                createdAt: Date(timeIntervalSince1970: (created ?? 0) / 1000))
    }
}

/// `users/lookup/email`.
public struct UsersLookupRequest: Codable, Sendable {
    public var users: [WireUser.LookupInfo]
    public init(users: [WireUser.LookupInfo]) { self.users = users }
}

/// The answer of the `users/…` operations.
public struct UsersResponse: Codable, Sendable {
    public var users: [WireUser]
    public init(users: [WireUser]) { self.users = users }
}

/// `records/resolve` and `records/accept`: shares named by their `shortGUID` (a share URL's token).
public struct ShortGUIDsRequest: Codable, Sendable {
    public struct GUID: Codable, Sendable {
        public var value: String
        public var shouldFetchRootRecord: Bool?
        public init(value: String) { self.value = value }
    }

    public var shortGUIDs: [GUID]
    public init(shortGUIDs: [GUID]) { self.shortGUIDs = shortGUIDs }
}

/// The answer of `records/resolve` and `records/accept`: per GUID, the share's metadata (in CloudNotes' own
/// dictionary) or its error.
public struct ShortGUIDsResponse: Codable, Sendable {
    public struct Result: Codable, Sendable {
        public var shortGUID: String
        public var metadata: ShareMetadata?
        public var error: WireError?
        public init(shortGUID: String, metadata: ShareMetadata?, error: WireError?) {
            self.shortGUID = shortGUID
            self.metadata = metadata
            self.error = error
        }
    }

    public var results: [Result]
    public init(results: [Result]) { self.results = results }
}

/// The answer of `devices/enrol`: the key ID the device signs with from now on, and whose it is.
public struct EnrolledDevice: Codable, Sendable {
    public var keyID: String
    public var user: WireUser
    public init(keyID: String, user: WireUser) {
        self.keyID = keyID
        self.user = user
    }
}
