import Foundation

/// One account's view of one database of the cloud in a directory (what a
/// `CloudDatabase` handle on a `LocalCloud` reaches): every request names its
/// caller, and the cloud checks each against the caller's rights.
///
/// - Private: only its owner reads or writes it.
/// - Public: everyone reads, any account creates, only a record's creator
///   changes or deletes it. It has only the default zone.
/// - Shared: the zones other accounts shared with the caller, named with
///   their owner's user record ID; what the caller sees and may change
///   there follows the shares they accepted.
struct LocalDatabase: Sendable {
    let cloud: LocalCloud
    let scope: DatabaseScope
    let caller: Account

    /// The topic this database's changes are posted to.
    var pushTopic: PushTopic { .database(scope, of: caller.id) }

    // MARK: Addressing

    /// The zone ID as the cloud spells it for this caller, or the reason the
    /// caller may not address it here.
    func normalize(_ zone: ZoneID) throws(CloudError) -> ZoneID {
        switch scope {
        case .private:
            guard zone.owner == ZoneID.defaultOwner || zone.owner == caller.id else {
                throw .permissionFailure("only the owner reads or writes a private database")
            }
            return ZoneID(name: zone.name, owner: caller.id)
        case .public:
            guard zone.isDefault else { throw .invalidArguments("the public database has only the default zone") }
            return ZoneID(name: zone.name, owner: ZoneID.defaultOwner)
        case .shared:
            // Your own zones are in your private database, not here.
            guard zone.owner != ZoneID.defaultOwner, zone.owner != caller.id, !zone.isDefault else {
                throw .zoneNotFound(zone)
            }
            return zone
        }
    }

    /// The owner of the stored database that holds a (normalized) zone.
    func storedOwner(of zone: ZoneID) -> String {
        switch scope {
        case .private: caller.id
        case .public: ""
        case .shared: zone.owner
        }
    }

    /// The scope a database is stored under: a shared zone lives in its owner's private database.
    static func storedScope(owner: String) -> DatabaseScope { owner.isEmpty ? .public : .private }

    func databaseID(_ db: any SQLTransaction, owner: String, create: Bool) throws -> Int64? {
        try ZoneTable.databaseID(db, container: cloud.container, scope: Self.storedScope(owner: owner), owner: owner, create: create)
    }

    /// `owner`'s database, with the sequence its history was purged through; nil when it has none yet.
    func database(_ db: any SQLTransaction, owner: String) throws -> (id: Int64, purgedThrough: Int64)? {
        try ZoneTable.database(db, container: cloud.container, scope: Self.storedScope(owner: owner), owner: owner)
    }

    /// The caller's access to a live zone for a read; nil for a default zone
    /// never written to (nothing is in it).
    func access(_ db: any SQLTransaction, _ zoneID: ZoneID) throws -> ZoneAccess? {
        let owner = storedOwner(of: zoneID)
        // One statement for the database and the zone: every request on records starts here.
        guard let row = try ZoneTable.find(db, container: cloud.container, scope: Self.storedScope(owner: owner), owner: owner,
                                           name: zoneID.name),
              row.isLive else {
            guard zoneID.isDefault, scope != .shared else { throw CloudError.zoneNotFound(zoneID) }
            return nil
        }
        return try access(db, zoneID, row: row, owner: owner)
    }

    /// The caller's access to a live zone for a write; the default zone
    /// springs into being on first write.
    func access(_ zoneID: ZoneID, for request: inout Request) throws -> ZoneAccess {
        if let access = try access(request.db, zoneID) { return access }
        let owner = storedOwner(of: zoneID)
        let database = try databaseID(request.db, owner: owner, create: true)!
        let row = try ZoneTable.create(request.db, database: database, name: zoneID.name, seq: request.nextSequence())
        return try access(request.db, zoneID, row: row, owner: owner)
    }

    private func access(_ db: any SQLTransaction, _ zoneID: ZoneID, row: ZoneRow, owner: String) throws -> ZoneAccess {
        let grant: ZoneAccess.Grant
        switch scope {
        case .private: grant = .owner
        case .public: grant = .publicDatabase
        case .shared:
            let grants = try ShareTable.grants(db, zone: row.id, account: caller.id)
            if let zoneWide = grants.first(where: { $0.share.root == nil }) {
                grant = .zoneWide(zoneWide.share, zoneWide.participant)
            } else if !grants.isEmpty {
                grant = .hierarchies(grants)
            } else {
                throw CloudError.zoneNotFound(zoneID)  // not shared with the caller: nothing to learn here
            }
        }
        return ZoneAccess(zone: row, zoneID: zoneID, ownerID: owner, callerID: caller.id, grant: grant)
    }
}
