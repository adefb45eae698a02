import Cloud
import Foundation
import GRDB

extension DeviceStore {
    /// Makes sure every participant of this account's shares can open the
    /// zone's key. Granting happens when sharing, but a grant can be lost (a
    /// request that failed, a participant who joined later); every sync of
    /// the owner's device repairs what is missing.
    public func repairKeyGrants() throws {
        guard let keyring else { return }
        let shares = try read { db in
            Self.shares(fromStored: try Data.fetchAll(db, sql: "SELECT record FROM main.server_records WHERE name LIKE 'share-%' OR name = ?",
                                                      arguments: [Share.zoneWideRecordName]))
        }
        for share in shares where share.id.zone.owner == keyring.account.id {
            let wanted = share.invitees.compactMap(\.userRecordID)
            let keyID = Keyring.keyRecordID(zone: share.id.zone, root: share.rootRecord)
            let granted = try read { db in
                try Self.keyRecords(db, .private, zone: share.id.zone).first { $0.id == keyID }.map(Keyring.envelopes(of:)) ?? [:]
            }
            if wanted.contains(where: { granted[$0] == nil }) {
                try keyring.grant(zone: share.id.zone, root: share.rootRecord, to: wanted)
            }
        }
    }
}
