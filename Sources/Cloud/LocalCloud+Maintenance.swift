import Foundation

/// What a purge removed.
public struct PurgeSummary: Equatable, Codable, Sendable {
    public var records: Int
    public var zones: Int

    public init(records: Int, zones: Int) {
        self.records = records
        self.zones = zones
    }
}

extension LocalCloud {
    /// Forgets tombstones older than `age` seconds, as CloudKit's server
    /// eventually does. A change token from before a purged tombstone then
    /// gets *change token expired*: its holder must fetch everything again.
    ///
    /// A tombstone that records still name as their parent stays: it keeps
    /// them where they hang, so what share participants see does not change.
    @discardableResult
    public func purgeTombstones(olderThan age: TimeInterval) throws(CloudError) -> PurgeSummary {
        let cutoff = clock.now().timeIntervalSince1970 - age
        return try storage.write { db in
            try db.execute("""
                UPDATE zones SET purged_through = \(db.dialect.greatest("purged_through", """
                    (SELECT max(seq) FROM records r WHERE r.zone = zones.id AND r.deleted = 1 AND r.modified_at < ?)
                    """))
                WHERE EXISTS (SELECT 1 FROM records r WHERE r.zone = zones.id AND r.deleted = 1 AND r.modified_at < ?)
                """, [cutoff, cutoff])
            let records = try db.execute("""
                DELETE FROM records WHERE deleted = 1 AND modified_at < ?
                    AND NOT EXISTS (SELECT 1 FROM records child WHERE child.zone = records.zone AND child.parent = records.name)
                """, [cutoff])
            // Their versions go with them: what was deleted is past the trash.
            try db.execute("""
                DELETE FROM versions WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.zone = versions.zone AND r.name = versions.name)
                """)
            try db.execute("""
                UPDATE databases SET purged_through = \(db.dialect.greatest("purged_through", """
                    (SELECT max(seq) FROM zones z WHERE z.database = databases.id AND z.deleted_at < ?)
                    """))
                WHERE EXISTS (SELECT 1 FROM zones z WHERE z.database = databases.id AND z.deleted_at < ?)
                """, [cutoff, cutoff])
            // A zone forgotten takes all it held: its records, versions and cascades, its shares and their
            // participants and requests (each refers to it, and a purge they refused would never run again).
            let gone = "SELECT id FROM zones WHERE deleted_at < ?1"
            let goneShares = "SELECT id FROM shares WHERE zone IN (\(gone))"
            for statement in [
                "DELETE FROM access_requests WHERE share IN (\(goneShares))", "DELETE FROM participants WHERE share IN (\(goneShares))",
                "DELETE FROM shares WHERE zone IN (\(gone))", "DELETE FROM versions WHERE zone IN (\(gone))",
                "DELETE FROM cascades WHERE zone IN (\(gone))", "DELETE FROM records WHERE zone IN (\(gone))",
            ] {
                try db.execute(statement, [cutoff])
            }
            let zones = try db.execute("DELETE FROM zones WHERE deleted_at < ?", [cutoff])
            return PurgeSummary(records: records, zones: zones)
        }
    }

    /// Runs the store's own consistency check; "ok" when sound.
    public func integrityCheck() throws(CloudError) -> String {
        try storage.integrityCheck()
    }
}
