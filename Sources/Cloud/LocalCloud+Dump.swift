import Foundation

/// Everything a cloud holds, for inspection (`cloudnotes cloud dump`).
/// Encrypted fields appear only as the bytes the clients sealed.
public struct CloudDump: Codable, Sendable {
    public struct Database: Codable, Sendable {
        public var container: String
        public var scope: DatabaseScope
        /// The owning account's name; nil for the public database.
        public var owner: String?
        public var zones: [Zone]
    }

    public struct Zone: Codable, Sendable {
        public var name: String
        public var deleted: ZoneDeletionReason?
        public var records: [Record]
        public var tombstones: [String]
    }

    public var accounts: [Account]
    public var databases: [Database]
}

extension LocalCloud {
    /// A consistent snapshot of the whole cloud, read in one transaction.
    public func dump() throws(CloudError) -> CloudDump {
        let accounts = try self.accounts()
        let names = Dictionary(uniqueKeysWithValues: accounts.map { ($0.id, $0.name) })
        return try storage.read { db in
            var databases: [CloudDump.Database] = []
            let rows = try db.all("SELECT id, container, scope, owner FROM databases ORDER BY container, scope, owner") {
                (id: $0.int64(0), container: $0.text(1), scope: DatabaseScope(rawValue: $0.text(2)) ?? .private, owner: $0.text(3))
            }
            for row in rows {
                let (scope, owner) = (row.scope, row.owner)
                var zones: [CloudDump.Zone] = []
                for zone in try db.all("SELECT * FROM zones WHERE database = ? ORDER BY name", [row.id], { ZoneRow($0) }) {
                    let zoneID = ZoneID(name: zone.name, owner: scope == .public ? ZoneID.defaultOwner : owner)
                    let stored = try RecordTable.changed(db, zone: zone.id, after: 0, limit: Int.max, zoneID: zoneID)
                    zones.append(CloudDump.Zone(
                        name: zone.name, deleted: zone.deletionReason,
                        records: stored.compactMap(\.record).sorted { $0.id.name < $1.id.name },
                        tombstones: stored.filter(\.isDeleted).map(\.name).sorted()))
                }
                databases.append(CloudDump.Database(
                    container: row.container, scope: scope, owner: owner.isEmpty ? nil : names[owner] ?? owner, zones: zones))
            }
            return CloudDump(accounts: accounts, databases: databases)
        }
    }
}
