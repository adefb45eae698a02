import Cloud
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// A share's URL kept in its zone, sealed with the zone's key, so the owner's other devices and the share's
/// accepted participants can show it again. The cloud holds only the token's hash and this ciphertext; a
/// hierarchical share's link hangs below its root, so only that share's participants read it.
enum ShareLink {
    static let recordType = "ShareLink"
    static let field = "url"

    static func recordID(of share: Share) -> RecordID { RecordID(name: "link-" + share.id.name, zone: share.id.zone) }
}

extension DeviceStore {
    /// Seals a new share's URL into its zone, on the owner's device right after sharing.
    func keepShareLink(_ url: ShareURL, of share: Share) throws {
        guard let keyring else { return }
        let zone = share.id.zone
        let known = try read { db in try Self.keyRecords(db, .private, zone: zone) }
        let key = try keyring.ownZoneKey(zone, known: known, kept: keptKeyRecords(zone))
        var record = Record(type: ShareLink.recordType, id: ShareLink.recordID(of: share))
        if let root = share.rootRecord { record.setParent(root) }
        record.setEncrypted(ShareLink.field, try Sealing.seal(url.absoluteString, key: key, record: record.id))
        let saved = try keyring.cloud.database(.private, as: keyring.account).save(record, policy: .allKeys)
        try write(.private) { db in try Self.remember(db, .private, saved) }
    }

    /// A share's URL, where this device has its link and holds a key it was sealed with.
    public func shareURL(of share: Share, scope: DatabaseScope) throws -> String? {
        guard let keyring else { return nil }
        return try read { db in
            // Only the zone's owner writes a share's link: one planted by a participant (who holds the key too)
            // could send people to a share of theirs.
            guard let record = try Self.lastKnown(db, scope, [ShareLink.recordID(of: share)]).values.first,
                  record.system?.modifiedBy == share.id.zone.owner,
                  let sealed = record.encrypted(ShareLink.field) else { return nil }
            let keys = keyring.openZoneKeys(from: try Self.openingKeyRecords(db, scope, zone: share.id.zone), zone: share.id.zone)
            return Self.open(sealed, keys, record.id)
        }
    }
}
