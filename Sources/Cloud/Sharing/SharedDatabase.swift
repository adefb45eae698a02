import Foundation

/// The shared database of one account: a view over other accounts' zones,
/// derived from the participant rows that name the account.
enum SharedDatabase {
    struct Entry {
        let id: ZoneID
        let zone: ZoneRow
        /// Whether the account reaches the zone now.
        let isLive: Bool
        /// The later of the zone's last change and the account's last change of part in it.
        let seq: Int64
    }

    /// Every zone of `container` the account has ever taken part in, most recently changed last.
    static func entries(_ db: any SQLTransaction, of account: String, container: String) throws -> [Entry] {
        try db.all("""
            SELECT z.*, d.owner AS owner,
                (SELECT max(p.seq) FROM participants p JOIN shares s ON p.share = s.id
                 WHERE s.zone = z.id AND p.account = ?1) AS grant_seq,
                EXISTS (SELECT 1 FROM participants p JOIN shares s ON p.share = s.id
                        WHERE s.zone = z.id AND s.deleted = 0 AND p.account = ?1
                        AND p.status = 'accepted' AND p.permission != 'none') AS granted
            FROM zones z JOIN databases d ON z.database = d.id
            WHERE d.container = ?2 AND z.id IN (
                SELECT s.zone FROM shares s JOIN participants p ON p.share = s.id
                WHERE p.account = ?1 AND p.role != 'owner' AND p.status != 'pending')
            """, [account, container]) { row in
            let zone = ZoneRow(row)
            return Entry(id: ZoneID(name: zone.name, owner: row.text("owner")), zone: zone,
                         isLive: row.bool("granted") && zone.isLive, seq: max(zone.seq, row.optionalInt64("grant_seq") ?? 0))
        }.sorted { ($0.seq, $0.id.name) < ($1.seq, $1.id.name) }
    }

    static func liveZones(_ db: any SQLTransaction, of account: String, container: String) throws -> [Entry] {
        try entries(db, of: account, container: container).filter(\.isLive).sorted { $0.id.name < $1.id.name }
    }
}
