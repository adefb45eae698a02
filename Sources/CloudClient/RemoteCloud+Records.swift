import Cloud
import CloudWire
import Foundation

extension RemoteCloud {
    public func modifyRecords(saving: [Record], deleting: [RecordID], deletionTags: [RecordID: String], policy: SavePolicy,
                              atomically: Bool, in database: CloudDatabase) throws(CloudError) -> ModifyResult {
        let type = switch policy {
        case .ifServerRecordUnchanged: "update"
        case .changedKeys: "forceUpdate"
        case .allKeys: "forceReplace"
        }
        // Records of one zone (a batch's, nearly always) name it once, in the request.
        let zones = Set(saving.map(\.id.zone) + deleting.map(\.zone))
        let zone = zones.count == 1 ? zones.first : nil
        var operations = saving.map { record in
            RecordsModifyRequest.Operation(operationType: policy == .ifServerRecordUnchanged && record.changeTag == nil ? "create" : type,
                                           record: WireRecord(saving: record))
        } + deleting.map { id in
            var record = WireRecord(deleting: id)
            record.recordChangeTag = deletionTags[id]
            return RecordsModifyRequest.Operation(operationType: record.recordChangeTag == nil ? "forceDelete" : "delete", record: record)
        }
        if zone != nil { for i in operations.indices { operations[i].record.zoneID = nil } }
        // A save checked against its change tag stores the record as sent (the tag says the server held what the
        // device did): the answer need carry only the new tag and stamps, not the fields back.
        // (Only where every zone is named by its owner: the cloud's answer spells a caller's default owner out.)
        let lean = policy == .ifServerRecordUnchanged && saving.allSatisfy { $0.id.zone.owner != ZoneID.defaultOwner }
        let answer: RecordsResponse = try call(database.scope, "records/modify",
                                               RecordsModifyRequest(operations: operations, zoneID: zone.map(WireZoneID.init),
                                                                    atomic: atomically, desiredKeys: lean ? [] : nil))
        guard answer.records.count == operations.count else { throw missing("a result for each operation", in: "records/modify") }
        var result = ModifyResult()
        result.commit = answer.commit
        let ids = saving.map(\.id) + deleting
        for (index, (id, item)) in zip(ids, answer.records).enumerated() {
            let isSave = index < saving.count
            switch item {
            case .value(let record) where isSave && lean:
                result.saveResults[id] = Result { () throws(CloudError) in try saved(saving[index], as: record) }
            case .value(let record) where isSave:
                result.saveResults[id] = Result { () throws(CloudError) in try stored(record, in: id.zone) }
            case .value:
                result.deleteResults[id] = .success(())
            case .error(let error) where isSave:
                result.saveResults[id] = .failure(error.cloudError)
            case .error(let error):
                result.deleteResults[id] = .failure(error.cloudError)
            }
        }
        return result
    }

    public func records(_ ids: [RecordID], in database: CloudDatabase) throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        var out: [RecordID: Result<Record, CloudError>] = [:]
        for (zone, inZone) in Dictionary(grouping: ids, by: \.zone) {
            let request = RecordsLookupRequest(records: inZone.map { .init(recordName: $0.name) }, zoneID: WireZoneID(zone))
            let answer: RecordsResponse = try call(database.scope, "records/lookup", request)
            guard answer.records.count == inZone.count else { throw missing("a result for each record", in: "records/lookup") }
            for (id, item) in zip(inZone, answer.records) {
                switch item {
                case .value(let record): out[id] = Result { () throws(CloudError) in try stored(record, in: zone) }
                case .error(let error): out[id] = .failure(error.cloudError)
                }
            }
        }
        return out
    }

    public func modifyZones(saving: [ZoneID], deleting: [ZoneID], reason: ZoneDeletionReason, deletionTokens: [ZoneID: ChangeToken],
                            in database: CloudDatabase) throws(CloudError) -> ZoneModifyResult {
        let operations = saving.map { ZonesModifyRequest.Operation(operationType: "create", zone: .init(zoneID: WireZoneID($0))) }
            + deleting.map {
                ZonesModifyRequest.Operation(operationType: "delete", zone: .init(zoneID: WireZoneID($0)), syncToken: deletionTokens[$0]?.description)
            }
        let answer: ZonesResponse = try call(database.scope, "zones/modify", ZonesModifyRequest(operations: operations, deletionReason: reason.rawValue))
        guard answer.zones.count == operations.count else { throw missing("a result for each operation", in: "zones/modify") }
        var result = ZoneModifyResult()
        result.commit = answer.commit
        for (index, (zone, item)) in zip(saving + deleting, answer.zones).enumerated() {
            switch item {
            case .value(let saved) where index < saving.count: result.saveResults[zone] = .success(saved.zoneID.zoneID)
            case .value: result.deleteResults[zone] = .success(reason)
            case .error(let error) where index < saving.count: result.saveResults[zone] = .failure(error.cloudError)
            case .error(let error): result.deleteResults[zone] = .failure(error.cloudError)
            }
        }
        return result
    }

    public func fetchZone(_ zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> ZoneID {
        let answer: ZonesResponse = try call(database.scope, "zones/lookup", ZonesRequest(zones: [.init(zoneID: WireZoneID(zone))]))
        switch answer.zones.first {
        case .value(let found)?: return found.zoneID.zoneID
        case .error(let error)?: throw error.cloudError
        case nil: throw missing("zones", in: "zones/lookup")
        }
    }

    public func allZones(in database: CloudDatabase) throws(CloudError) -> [ZoneID] {
        let answer: ZonesResponse = try call(database.scope, "zones/list", ZonesRequest(zones: []))
        return answer.zones.compactMap { if case .value(let zone) = $0 { zone.zoneID.zoneID } else { nil } }
    }

    public func databaseChanges(since token: ChangeToken?, limit: Int?, in database: CloudDatabase) throws(CloudError) -> DatabaseChanges {
        readAhead.drop()
        let answer: DatabaseChangesResponse = try call(database.scope, "changes/database",
                                                       DatabaseChangesRequest(syncToken: token?.description, resultsLimit: limit))
        var changes = DatabaseChanges(token: try ChangeToken(parsing: answer.syncToken), moreComing: answer.moreComing)
        for zone in answer.zones {
            if zone.deleted == true {
                changes.deleted.append(ZoneDeletion(zone: zone.zoneID.zoneID,
                                                    reason: zone.deletionReason.flatMap(ZoneDeletionReason.init(rawValue:)) ?? .deleted))
            } else {
                changes.modified.append(zone.zoneID.zoneID)
            }
        }
        return changes
    }

    /// A zone's changes; while the caller applies a page that says more are coming, the next is on its way (read
    /// as far as its token, so the one after can be asked for; its records are made on the caller's thread).
    public func zoneChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int?, known: [String: String],
                            in database: CloudDatabase) throws(CloudError) -> ZoneChanges {
        let request = ZonePage.Request(scope: database.scope, zone: zone, token: token, limit: limit, known: known)
        let page: ZonePage
        if let ahead = readAhead.take(request) { page = ahead } else { page = try zonePage(request) }
        if page.moreComing {
            var next = request
            next.token = page.token
            readAhead.start(next) { [self] request throws(CloudError) in try zonePage(request) }
        }
        var changes = ZoneChanges(token: page.token, moreComing: page.moreComing)
        for record in page.records {
            if record.deleted == true {
                changes.deleted.append(RecordDeletion(id: RecordID(name: record.recordName, zone: record.zoneID?.zoneID ?? zone),
                                                      type: record.recordType ?? ""))
            } else {
                changes.modified.append(try stored(record, in: zone))
            }
        }
        return changes
    }

    private func zonePage(_ page: ZonePage.Request) throws(CloudError) -> ZonePage {
        let request = ZoneChangesRequest(zones: [.init(zoneID: WireZoneID(page.zone), syncToken: page.token?.description, resultsLimit: page.limit,
                                                       knownRecords: page.known.isEmpty ? nil : page.known)])
        let answer: ZoneChangesResponse = try call(page.scope, "changes/zone", request)
        guard let result = answer.zones.first else { throw missing("zones", in: "changes/zone") }
        if let error = result.error { throw error.cloudError }
        guard let syncToken = result.syncToken else { throw missing("syncToken", in: "changes/zone") }
        return ZonePage(token: try ChangeToken(parsing: syncToken), moreComing: result.moreComing ?? false, records: result.records ?? [])
    }

    public func history(of id: RecordID, in database: CloudDatabase) throws(CloudError) -> [RecordVersion] {
        let versions = try ask(database.scope, "records/history") {
            $0.recordName = id.name
            $0.zoneID = WireZoneID(id.zone)
        }.versions ?? []
        return try versions.map { version throws(CloudError) in try wire { () throws(WireFormatError) in try version.version(in: id.zone) } }
    }

    public func trash(in zone: ZoneID, type: String, in database: CloudDatabase) throws(CloudError) -> [DeletedRecord] {
        let versions = try ask(database.scope, "records/trash") {
            $0.zoneID = WireZoneID(zone)
            $0.recordType = type
        }.versions ?? []
        return try versions.map { version throws(CloudError) in try wire { () throws(WireFormatError) in try version.deleted(in: zone) } }
    }

    public func restoreDeleted(_ names: [String], in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [Record] {
        let records = try ask(database.scope, "records/restore") {
            $0.zoneID = WireZoneID(zone)
            $0.recordNames = names
        }.records ?? []
        guard records.count == names.count else { throw missing("each record restored", in: "records/restore") }
        return try records.map { record throws(CloudError) in try stored(record, in: zone) }
    }

    public func emptyTrash(in zone: ZoneID, counting type: String?, in database: CloudDatabase) throws(CloudError) -> Int {
        try ask(database.scope, "records/emptyTrash") {
            $0.zoneID = WireZoneID(zone)
            $0.recordType = type
        }.count ?? 0
    }

    public func endedShares(in zone: ZoneID, in database: CloudDatabase) throws(CloudError) -> [EndedShare] {
        try ask(database.scope, "shares/ended") { $0.zoneID = WireZoneID(zone) }.ended ?? []
    }

    /// A record as sent, stamped with the system fields the server's answer gave it.
    func saved(_ sent: Record, as answer: WireRecord) throws(CloudError) -> Record {
        guard let stamped = try stored(answer, in: sent.id.zone).system else { throw missing("the saved record's change tag", in: "records/modify") }
        var record = sent
        record.markClean()
        record.restoreSystemFields(stamped)
        record.movedFrom = nil
        return record
    }

    /// A record of an answer, as the cloud holds it.
    func stored(_ record: WireRecord, in zone: ZoneID) throws(CloudError) -> Record {
        try wire { () throws(WireFormatError) in try record.stored(in: zone) }
    }

    func wire<T>(_ body: () throws(WireFormatError) -> T) throws(CloudError) -> T {
        do {
            return try body()
        } catch {
            throw .storage("the server's answer does not follow the protocol: \(error.why)")
        }
    }
}

/// A page of a zone's changes as the server wrote it.
struct ZonePage: Sendable {
    typealias Request = PageReadAhead<ZonePage>.Request

    var token: ChangeToken
    var moreComing: Bool
    var records: [WireRecord]
}
