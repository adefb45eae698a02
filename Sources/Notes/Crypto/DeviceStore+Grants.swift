import Cloud
import Crypto
import Foundation
import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

extension DeviceStore {
    /// Makes sure every device key of this account, and every participant of
    /// its shares, can open each generation of the zone keys this device
    /// holds. Granting happens when sharing, but a grant can be lost (a
    /// request that failed, a participant who joined later, a device with a
    /// new keychain, two devices that made a key at once); every sync of the
    /// owner's devices repairs what is missing, so they all converge.
    public func repairKeyGrants() throws {
        guard let keyring else { return }
        var keys: [String: [String: Curve25519.KeyAgreement.PublicKey]] = [:]
        func keysOf(_ user: String) throws -> [String: Curve25519.KeyAgreement.PublicKey] {
            if let known = keys[user] { return known }
            let fetched = try keyring.publicKeys(of: user)
            keys[user] = fetched
            return fetched
        }
        let me = keyring.account.id
        let (records, shares) = try read { db in
            (try Data.fetchAll(db, sql: "SELECT record FROM main.server_records WHERE name LIKE 'keys%'").compactMap { try? RecordArchive.decode($0) },
             Self.shares(fromStored: try Data.fetchAll(db, sql: "SELECT record FROM main.server_records WHERE name LIKE 'share-%' OR name = ?",
                                                        arguments: [Share.zoneWideRecordName])))
        }
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for own in records where own.id.name == "keys" && own.id.zone.owner == me {
            let kept = try keptKeyRecords(own.id.zone)
            if try keyring.lacksEnvelopes(own, of: own, for: [me], keysOf: keysOf) || keyring.lacksGenerations(of: kept, in: own) {
                try keyring.grant(zone: own.id.zone, root: nil, to: [], kept: kept)
            }
        }
        // A participant removed while holding the newest key: later locations are sealed with a new one.
        var rotated = Set<ZoneID>()
        for share in shares where share.id.zone.owner == me && !rotated.contains(share.id.zone) {
            let removed = share.participants.filter { $0.status == .removed }.compactMap(\.userRecordID)
            guard !removed.isEmpty, let own = byID[ZoneKeys.recordID(zone: share.id.zone, root: nil)],
                  let granted = byID[ZoneKeys.recordID(zone: share.id.zone, root: share.rootRecord)],
                  keyring.holdsNewest(granted, of: own, users: removed) else { continue }
            try keyring.rotate(zone: share.id.zone, kept: keptKeyRecords(share.id.zone))
            rotated.insert(share.id.zone)
            try keepOwnKeysAtHand(share.id.zone)  // before the next send: nothing more sealed with the key they hold
        }
        for share in shares where share.id.zone.owner == me {
            let wanted = share.invitees.compactMap(\.userRecordID)
            if rotated.contains(share.id.zone) {
                try grantKeys(zone: share.id.zone, root: share.rootRecord, to: wanted)  // the new generation, at once
                continue
            }
            guard let own = byID[ZoneKeys.recordID(zone: share.id.zone, root: nil)] else {
                try grantKeys(zone: share.id.zone, root: share.rootRecord, to: wanted)  // no key here yet
                continue
            }
            let granted = byID[ZoneKeys.recordID(zone: share.id.zone, root: share.rootRecord)]
            if try keyring.lacksEnvelopes(granted, of: own, for: [me] + wanted, keysOf: keysOf) {
                try grantKeys(zone: share.id.zone, root: share.rootRecord, to: wanted)
            }
        }
    }

    /// Wraps every generation of the zone's key this device holds for the account's device keys and for
    /// `users` (a share's participants), in the share's key record (`root`) or the zone's own.
    public func grantKeys(zone: ZoneID, root: String?, to users: [String]) throws {
        try keyring?.grant(zone: zone, root: root, to: users, kept: keptKeyRecords(zone))
    }

    /// The key records of one of this account's zones this device holds, retired ones too: what a record
    /// written over lost is put back from them.
    func keptKeyRecords(_ zone: ZoneID) throws -> [Record] {
        try read { db in try Self.openingKeyRecords(db, .private, zone: zone) }
    }
}
