import Foundation
import GRDB

/// One account's view of one database: every request names its caller,
/// and the cloud checks each against the caller's rights.
///
/// - Private: only its owner reads or writes it.
/// - Public: everyone reads, any account creates, only a record's creator
///   changes or deletes it. It has only the default zone.
/// - Shared: the zones other accounts shared with the caller.
public struct CloudDatabase: Sendable {
    public let cloud: Cloud
    public let scope: DatabaseScope
    public let caller: Account

    /// The topic this database's changes are posted to.
    public var pushTopic: PushTopic { .database(scope, of: caller.id) }

    /// Calls `handler` shortly after any change to this database.
    public func subscribe(_ handler: @escaping @Sendable (PushTopic) -> Void) -> PushSubscription {
        cloud.subscribe(to: [pushTopic], handler: handler)
    }

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
            // Zones appear here only once shared with the caller.
            throw .zoneNotFound(zone)
        }
    }

    /// The owner of the stored database this view reads and writes.
    private var storedOwner: String { scope == .public ? "" : caller.id }

    func databaseID(_ db: Database, create: Bool) throws -> Int64? {
        let id = try ZoneTable.databaseID(db, container: cloud.container, scope: scope, owner: storedOwner, create: create)
        return id
    }

    /// The live zone a read addresses; nil for a default zone never written to.
    func liveZone(_ db: Database, _ zoneID: ZoneID) throws -> ZoneRow? {
        if let database = try databaseID(db, create: false),
           let row = try ZoneTable.find(db, database: database, name: zoneID.name), row.isLive {
            return row
        }
        guard zoneID.isDefault else { throw CloudError.zoneNotFound(zoneID) }
        return nil
    }

    /// The live zone a write addresses; the default zone springs into being on first write.
    func liveZone(_ zoneID: ZoneID, for request: inout Request) throws -> ZoneRow {
        if let row = try liveZone(request.db, zoneID) { return row }
        let database = try databaseID(request.db, create: true)!
        return try ZoneTable.create(request.db, database: database, name: zoneID.name, seq: request.nextSequence())
    }

    /// Whether the caller may change or delete an existing record.
    func checkWrite(_ existing: StoredRecord) throws(CloudError) {
        if scope == .public && existing.createdBy != caller.id {
            throw .permissionFailure("only its creator changes a record in the public database")
        }
    }

    /// Who hears of a change in this zone.
    func topics(for zone: ZoneRow) -> Set<PushTopic> { [pushTopic] }

    func currentSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM sequence WHERE id = 1") ?? 0
    }
}
