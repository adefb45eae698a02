import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// The device's notices: written as syncs learn of what others did, shown once by the front end, listed on demand.
extension DeviceStore {
    /// How many notices a device keeps; older ones go.
    static let noticesKept = 200

    func addNotices(_ db: Database, _ notices: [Notice]) throws {
        for notice in notices {
            try db.cachedStatement(sql: "INSERT INTO main.notices(at, kind, by, subject, detail, shown) VALUES (?, ?, ?, ?, ?, 0)")
                .execute(arguments: [notice.at.timeIntervalSince1970, notice.kind.rawValue, notice.by, notice.subject, notice.detail])
        }
        if !notices.isEmpty {
            try db.execute(sql: "DELETE FROM main.notices WHERE id <= (SELECT max(id) FROM main.notices) - ?", arguments: [Self.noticesKept])
        }
    }

    public func addNotices(_ notices: [Notice]) throws {
        guard !notices.isEmpty else { return }
        try write(.private) { db in try addNotices(db, notices) }
    }

    /// The latest notices, newest first.
    public func notices(limit: Int = 50) throws -> [Notice] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM main.notices ORDER BY id DESC LIMIT ?", arguments: [limit]).compactMap(Self.notice(from:))
        }
    }

    /// Notices no front end has shown yet, oldest first, marked shown as they are taken. Asked after every
    /// store change: a read answers the usual "none", and only notices to take need the write lock.
    public func takeUnshownNotices() throws -> [Notice] {
        guard try read({ db in try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM main.notices WHERE shown = 0)") }) == true else {
            return []
        }
        return try write(.private) { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM main.notices WHERE shown = 0 ORDER BY id")
            try db.execute(sql: "UPDATE main.notices SET shown = 1 WHERE shown = 0")
            return rows.compactMap(Self.notice(from:))
        }
    }

    /// The shares among the last known records of `ids` (before a fetch replaces them).
    func knownShares(_ scope: DatabaseScope, _ ids: [RecordID]) throws -> [RecordID: Share] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            try Self.lastKnown(db, scope, ids).filter { $0.value.type == Share.recordType }.mapValues { try Share(record: $0) }
        }
    }

    /// The shares of a zone this device last fetched, by record name.
    func knownShares(_ scope: DatabaseScope, zone: ZoneID) throws -> [String: Share] {
        try read { db in
            let rows = try Data.fetchAll(db.cachedStatement(sql: """
                SELECT record FROM \(Self.schema(scope)).server_records WHERE zone_name = ? AND zone_owner = ? AND \(Self.shareNames)
                """), arguments: [zone.name, zone.owner])
            return Dictionary(try Self.shares(fromStored: rows).map { ($0.id.name, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    private static func notice(from row: Row) -> Notice? {
        guard let kind = Notice.Kind(rawValue: row["kind"]) else { return nil }
        var notice = Notice(at: Date(timeIntervalSince1970: row["at"]), kind: kind, by: row["by"], subject: row["subject"], detail: row["detail"])
        notice.id = row["id"]
        return notice
    }
}
