import Cloud
import Foundation

/// Answers one request of the protocol from a cloud, for a caller the
/// transport has already authenticated: the HTTP layer hands it a path, a
/// body and an account, and sends back the status and body it returns. It
/// knows nothing of HTTP or of who signed what, so the whole protocol is
/// tested here without a socket.
public struct WireService: Sendable {
    public let cloud: LocalCloud
    let uuids: @Sendable () -> String
    let storageFailed: @Sendable (_ uuid: String, _ failure: CloudError) -> Void

    /// - Parameters:
    ///   - uuids: makes each error's `uuid` (injected, so a failing run replays).
    ///   - storageFailed: hears what a failure of the cloud's store said, which callers are not told (the
    ///     server's log), under the `uuid` of the error they are answered.
    public init(cloud: LocalCloud, uuids: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
                storageFailed: @escaping @Sendable (_ uuid: String, _ failure: CloudError) -> Void = { _, _ in }) {
        self.cloud = cloud
        self.uuids = uuids
        self.storageFailed = storageFailed
    }

    /// The protocol's error for `error`. A failure of the cloud's store is answered in general words: its own
    /// (a database's host, user and name, where the cloud moved, PostgreSQL's message) are the operator's, not
    /// any caller's, and go to `storageFailed` under the answer's `uuid`.
    public func wireError(_ error: CloudError, recordName: String? = nil) -> WireError {
        let uuid = uuids()
        guard case .storage = error else { return WireError(error, uuid: uuid, recordName: recordName) }
        storageFailed(uuid, error)
        return WireError(.storage("the cloud's store failed; the server's log says why, under \(uuid)"), uuid: uuid, recordName: recordName)
    }

    /// A status and a JSON body.
    public struct Answer: Sendable {
        public var status: Int
        public var body: Data

        public init(status: Int, body: Data) {
            self.status = status
            self.body = body
        }
    }

    public func handle(_ path: WirePath, body: Data, caller: Account) -> Answer {
        guard path.container == cloud.container else {
            return failure(WireError(uuid: uuids(), serverErrorCode: "NOT_FOUND", reason: "no container \(path.container) here"))
        }
        guard let scope = path.scope else {
            return failure(WireError(uuid: uuids(), serverErrorCode: "BAD_REQUEST", reason: "\(path.operation) names no database"))
        }
        let database = cloud.database(scope, as: caller)
        return answering { try answer(path.operation, body: body.isEmpty ? Data("{}".utf8) : body, database: database) }
    }

    /// An answer, or the failure the protocol writes for what went wrong.
    func answering(_ body: () throws -> Answer) -> Answer {
        do {
            return try body()
        } catch let error as WireFormatError {
            return failure(WireError(uuid: uuids(), serverErrorCode: "BAD_REQUEST", reason: error.why))
        } catch let error as CloudError {
            return failure(wireError(error))
        } catch let error as DecodingError {
            return failure(WireError(uuid: uuids(), serverErrorCode: "BAD_REQUEST", reason: "the body is not this operation's JSON: \(Self.words(error))"))
        } catch {
            return failure(WireError(uuid: uuids(), serverErrorCode: "INTERNAL_ERROR", reason: "\(error)"))
        }
    }

    public func failure(_ error: WireError) -> Answer {
        // (A wire error is strings and numbers: encoding cannot fail; the status says what failed anyway.)
        Answer(status: error.httpStatus, body: (try? error.json.encoded()) ?? Data())
    }

    // MARK: Operations

    /// Items a request may name (records, zones, users, shares), as CloudKit allows per request.
    public static let maxItems = 400

    private func answer(_ operation: String, body: Data, database: CloudDatabase) throws -> Answer {
        switch operation {
        case "records/modify": return try ok(modify(try within(decode(RecordsModifyRequest.self, body), \.operations.count), database))
        case "records/lookup": return try ok(lookup(try within(decode(RecordsLookupRequest.self, body), \.records.count), database))
        case "records/query": return try ok(WireQuery.run(try decode(RecordsQueryRequest.self, body), database))
        case "records/changes": return try ok(recordChanges(try decode(RecordsChangesRequest.self, body), database))
        case "changes/zone": return try ok(zoneChanges(try within(decode(ZoneChangesRequest.self, body), \.zones.count), database))
        case "changes/database": return try ok(databaseChanges(try decode(DatabaseChangesRequest.self, body), database))
        case "zones/list": return try ok(ZonesResponse(zones: database.allZones().map { .value(WireZone(zoneID: WireZoneID($0))) }))
        case "zones/lookup": return try ok(lookupZones(try within(decode(ZonesRequest.self, body), \.zones.count), database))
        case "zones/modify": return try ok(modifyZones(try within(decode(ZonesModifyRequest.self, body), \.operations.count), database))
        case "users/current": return try ok(WireUser(database.caller))
        case "users/lookup/email": return try ok(lookupUsers(try within(decode(UsersLookupRequest.self, body), \.users.count)))
        case "records/resolve", "records/accept":
            return try ok(shortGUIDs(try within(decode(ShortGUIDsRequest.self, body), \.shortGUIDs.count), accept: operation == "records/accept",
                                     database))
        default:
            guard let call = WireCalls.operations[operation] else {
                throw WireFormatError("no operation \(operation) (docs/PROTOCOL.md lists them)")
            }
            return try ok(call(cloud, try decode(CallRequest.self, body), database))
        }
    }

    /// The request, if it names no more items than one may.
    private func within<Request>(_ request: Request, _ count: KeyPath<Request, Int>) throws -> Request {
        guard request[keyPath: count] <= Self.maxItems else {
            throw CloudError.limitExceeded("a request names at most \(Self.maxItems) items, not \(request[keyPath: count])")
        }
        return request
    }

    private func modify(_ request: RecordsModifyRequest, _ database: CloudDatabase) throws -> RecordsResponse {
        let zone = request.zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName)
        var saves: [(record: Record, policy: SavePolicy)] = [], deletes: [RecordID] = [], deletionTags: [RecordID: String] = [:]
        var order: [(RecordID, isDelete: Bool)] = []
        let replaced = try currentRecords(of: request.operations.filter { $0.operationType.hasSuffix("eplace") }, zone, database)
        for operation in request.operations {
            let type = operation.operationType
            if type == "delete" || type == "forceDelete" {
                let id = RecordID(name: operation.record.recordName, zone: operation.record.zoneID?.zoneID ?? zone)
                deletes.append(id)
                // A delete naming a change tag is made only from that version; forceDelete whatever the record holds.
                if type == "delete", let tag = operation.record.recordChangeTag { deletionTags[id] = tag }
                order.append((id, true))
                continue
            }
            var record = try operation.record.changes(in: zone)
            let policy: SavePolicy
            switch type {
            case "create", "update": policy = .ifServerRecordUnchanged
            case "forceUpdate": policy = .changedKeys
            case "forceReplace": policy = .allKeys
            case "replace":
                // Every key the request leaves out goes; the change tag still guards the save.
                for key in replaced[record.id]?.allKeys ?? [] where !record.allKeys.contains(key) { record[key] = nil }
                if record.parent == nil, replaced[record.id]?.parent != nil { record.setParent(nil) }
                policy = .ifServerRecordUnchanged
            default: throw WireFormatError("operationType \(type) is not one of create, update, forceUpdate, replace, forceReplace, delete, forceDelete")
            }
            saves.append((record, policy))
            order.append((record.id, false))
        }
        // Apple's default: atomic in a custom zone.
        let atomic = request.atomic ?? !zone.isDefault
        let result = try cloud.modifyRecords(saving: saves, deleting: deletes, deletionTags: deletionTags, atomically: atomic, in: database)
        let items: [WireItem] = order.map { id, isDelete in
            if isDelete {
                switch result.deleteResults[id] {
                case .success?, nil:
                    return .value(.deleted(id))
                case .failure(let error)?: return .error(wireError(error, recordName: id.name))
                }
            }
            switch result.saveResults[id] {
            case .success(let record)?: return .value(WireRecord(record, keys: request.desiredKeys))
            case .failure(let error)?: return .error(wireError(error, recordName: id.name))
            case nil: return .error(WireError(.invalidArguments("no result"), uuid: uuids(), recordName: id.name))
            }
        }
        return RecordsResponse(records: items, commit: result.commit)
    }

    /// The records `replace` operations name, as the server has them now (to know which keys they drop).
    private func currentRecords(of operations: [RecordsModifyRequest.Operation], _ zone: ZoneID,
                                _ database: CloudDatabase) throws -> [RecordID: Record] {
        guard !operations.isEmpty else { return [:] }
        let ids = operations.map { RecordID(name: $0.record.recordName, zone: $0.record.zoneID?.zoneID ?? zone) }
        // (A record not there is a new one, with nothing to drop; any other failure fails its save too, which says why.)
        return try database.records(ids).compactMapValues { try? $0.get() }
    }

    private func lookup(_ request: RecordsLookupRequest, _ database: CloudDatabase) throws -> RecordsResponse {
        let zone = request.zoneID?.zoneID ?? ZoneID(name: ZoneID.defaultName)
        let ids = request.records.map { RecordID(name: $0.recordName, zone: zone) }
        let found = try database.records(ids)
        return RecordsResponse(records: ids.map { id in
            switch found[id] {
            case .success(let record)?: .value(WireRecord(record))
            case .failure(let error)?: .error(wireError(error, recordName: id.name))
            case nil: .error(WireError(.unknownItem(id), uuid: uuids(), recordName: id.name))
            }
        })
    }

    private func recordChanges(_ request: RecordsChangesRequest, _ database: CloudDatabase) throws -> RecordsResponse {
        let changes = try database.zoneChanges(in: request.zoneID.zoneID, since: try request.syncToken.map(ChangeToken.init(parsing:)),
                                               limit: request.resultsLimit)
        return RecordsResponse(records: Self.records(changes).map(WireItem.value), syncToken: changes.token.description,
                               moreComing: changes.moreComing)
    }

    private func zoneChanges(_ request: ZoneChangesRequest, _ database: CloudDatabase) throws -> ZoneChangesResponse {
        ZoneChangesResponse(zones: try request.zones.map { zone in
            do {
                let changes = try database.zoneChanges(in: zone.zoneID.zoneID, since: try zone.syncToken.map(ChangeToken.init(parsing:)),
                                                       limit: zone.resultsLimit, known: zone.knownRecords ?? [:])
                return ZoneChangesResponse.Zone(zoneID: zone.zoneID, records: Self.records(changes),
                                                syncToken: changes.token.description, moreComing: changes.moreComing)
            } catch let error as CloudError where !error.isTransient {
                return ZoneChangesResponse.Zone(zoneID: zone.zoneID, records: nil, syncToken: nil, moreComing: nil,
                                                error: wireError(error))
            }
        })
    }

    /// A zone's changes as one `records` array: saved records whole, deleted ones as `{recordName, deleted, recordType}`.
    static func records(_ changes: ZoneChanges) -> [WireRecord] {
        changes.modified.map { WireRecord($0) } + changes.deleted.map { WireRecord.deleted($0.id, type: $0.type) }
    }

    private func databaseChanges(_ request: DatabaseChangesRequest, _ database: CloudDatabase) throws -> DatabaseChangesResponse {
        let changes = try database.databaseChanges(since: try request.syncToken.map(ChangeToken.init(parsing:)), limit: request.resultsLimit)
        let zones = changes.modified.map { WireZone(zoneID: WireZoneID($0)) }
            + changes.deleted.map { WireZone(zoneID: WireZoneID($0.zone), deleted: true, deletionReason: $0.reason.rawValue) }
        return DatabaseChangesResponse(zones: zones, syncToken: changes.token.description, moreComing: changes.moreComing)
    }

    private func lookupZones(_ request: ZonesRequest, _ database: CloudDatabase) throws -> ZonesResponse {
        ZonesResponse(zones: try request.zones.map { zone in
            do {
                return .value(WireZone(zoneID: WireZoneID(try database.fetchZone(zone.zoneID.zoneID))))
            } catch let error as CloudError where !error.isTransient {
                return .error(wireError(error))
            }
        })
    }

    private func modifyZones(_ request: ZonesModifyRequest, _ database: CloudDatabase) throws -> ZonesResponse {
        var saves: [ZoneID] = [], deletes: [ZoneID] = [], tokens: [ZoneID: ChangeToken] = [:]
        for operation in request.operations {
            switch operation.operationType {
            case "create": saves.append(operation.zone.zoneID.zoneID)
            case "delete":
                deletes.append(operation.zone.zoneID.zoneID)
                if let token = operation.syncToken { tokens[operation.zone.zoneID.zoneID] = try ChangeToken(parsing: token) }
            default: throw WireFormatError("a zone's operationType is create or delete")
            }
        }
        let reason = try request.deletionReason.map { text throws(WireFormatError) in
            guard let reason = ZoneDeletionReason(rawValue: text) else { throw WireFormatError("no deletion reason \(text)") }
            return reason
        } ?? .deleted
        let result = try database.modifyZones(saving: saves, deleting: deletes, reason: reason, deletionTokens: tokens)
        let items = saves.map { zone -> WireZoneItem in
            switch result.saveResults[zone]! {
            case .success(let saved): .value(WireZone(zoneID: WireZoneID(saved)))
            case .failure(let error): .error(wireError(error))
            }
        } + deletes.map { zone -> WireZoneItem in
            switch result.deleteResults[zone]! {
            case .success(let reason): .value(WireZone(zoneID: WireZoneID(zone), deleted: true, deletionReason: reason.rawValue))
            case .failure(let error): .error(wireError(error))
            }
        }
        return ZonesResponse(zones: items, commit: result.commit)
    }

    private func lookupUsers(_ request: UsersLookupRequest) throws -> UsersResponse {
        UsersResponse(users: try request.users.compactMap { info in
            try info.emailAddress.flatMap { try cloud.account(email: $0) }.map(WireUser.init)
        })
    }

    private func shortGUIDs(_ request: ShortGUIDsRequest, accept: Bool, _ database: CloudDatabase) throws -> ShortGUIDsResponse {
        ShortGUIDsResponse(results: try request.shortGUIDs.map { guid in
            do {
                let url = try ShareURL(container: cloud.container, shortGUID: guid.value)
                let metadata = accept ? try cloud.acceptShare(url, as: database.caller) : try cloud.fetchShareMetadata(url, as: database.caller)
                return .init(shortGUID: guid.value, metadata: metadata, error: nil)
            } catch let error as CloudError where !error.isTransient {
                return .init(shortGUID: guid.value, metadata: nil, error: wireError(error))
            }
        })
    }

    // MARK: JSON

    func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T { try WireJSON.decode(type, from: body) }

    func ok(_ value: some Encodable) throws -> Answer { Answer(status: 200, body: try WireJSON.encode(value)) }

    private static func words(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (at.isEmpty ? "" : "\(at): ") + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
