import Foundation

extension LocalDatabase {
    /// Creates zones (saving an existing one changes nothing) and deletes
    /// others, leaving a tombstone with the reason and deleting their records.
    public func modifyZones(
        saving: [ZoneID], deleting: [ZoneID], reason: ZoneDeletionReason = .deleted, deletionTokens: [ZoneID: ChangeToken] = [:]
    ) throws(CloudError) -> ZoneModifyResult {
        let (result, committed) = try cloud.performCommitting { request in
            var result = ZoneModifyResult()
            for zone in saving {
                result.saveResults[zone] = Result { () throws(CloudError) in try save(zone, &request) }
            }
            for zone in deleting {
                result.deleteResults[zone] = Result { () throws(CloudError) in
                    try delete(zone, reason: reason, ifUnchangedSince: deletionTokens[zone], &request)
                    return reason
                }
            }
            return result
        }
        var told = result
        told.commit = committed.seen(by: self)
        return told
    }

    /// The zone, if it exists and the caller may see it.
    public func fetchZone(_ zone: ZoneID) throws(CloudError) -> ZoneID {
        let id = try normalize(zone)
        return try cloud.performRead { db in
            _ = try access(db, id)
            return id
        }
    }

    /// Every live zone the caller sees in this database, by name.
    public func allZones() throws(CloudError) -> [ZoneID] {
        try cloud.performRead { db in
            switch scope {
            case .public:
                return [ZoneID(name: ZoneID.defaultName)]
            case .private:
                guard let database = try databaseID(db, owner: caller.id, create: false) else { return [] }
                return try ZoneTable.live(db, database: database).map { ZoneID(name: $0.name, owner: caller.id) }
            case .shared:
                return try SharedDatabase.liveZones(db, of: caller.id, container: cloud.container).map(\.id)
            }
        }
    }

    private func save(_ zone: ZoneID, _ request: inout Request) throws(CloudError) -> ZoneID {
        guard scope == .private else { throw .permissionFailure("zones are created in the private database") }
        let id = try normalize(zone)
        try Self.validate(zoneName: id.name)
        try wrapStorage {
            let database = try databaseID(request.db, owner: caller.id, create: true)!
            if let row = try ZoneTable.find(request.db, database: database, name: id.name), row.isLive { return }
            _ = try ZoneTable.create(request.db, database: database, name: id.name, seq: request.nextSequence())
            request.topics.insert(.database(.private, of: caller.id))
        }
        return id
    }

    /// Deletes a zone, ending its shares: every participant loses it.
    private func delete(_ zone: ZoneID, reason: ZoneDeletionReason, ifUnchangedSince token: ChangeToken? = nil,
                        _ request: inout Request) throws(CloudError) {
        guard scope == .private else { throw .permissionFailure("only the owner deletes a zone") }
        let id = try normalize(zone)
        guard !id.isDefault else { throw .invalidArguments("the default zone cannot be deleted") }
        try wrapStorage {
            let access = try access(id, for: &request)
            // Changed since: a record saved there after the caller's token (what went, moved out or deleted, is not
            // lost with the zone; the caller's own moves out, a rename, leave only tombstones).
            if let token, try request.db.exists("SELECT EXISTS(SELECT 1 FROM records WHERE zone = ? AND deleted = 0 AND seq > ?)",
                                                [access.zone.id, token.sequence]) {
                throw CloudError.zoneChanged(id)
            }
            try request.notify(access)  // the audience before the shares end
            let seq = request.nextSequence()
            for share in try ShareTable.live(request.db, zone: access.zone.id) {
                try ShareTable.delete(request.db, share: share.id, seq: seq)
            }
            try ZoneTable.delete(request.db, zone: access.zone, reason: reason, seq: seq, now: request.now)
        }
    }

    static func validate(zoneName name: String) throws(CloudError) {
        try NameRules.validate(name: name, of: "zone")
        guard !name.hasPrefix("_") || name == ZoneID.defaultName else {
            throw .invalidArguments("zone name \(name.inlineQuoted) must not start with '_'")
        }
    }
}

/// Runs storage code inside a request, keeping cloud errors typed.
func wrapStorage<T>(_ body: () throws -> T) throws(CloudError) -> T {
    do { return try body() } catch { throw CloudError(storageFailure: error) }
}

