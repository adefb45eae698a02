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
            (try Data.fetchAll(db, sql: "SELECT record FROM main.server_records WHERE name LIKE 'keys%'").map { try RecordArchive.decode($0) },
             try Self.shares(fromStored: try Data.fetchAll(db, sql: "SELECT record FROM main.server_records WHERE name LIKE 'share-%' OR name = ?",
                                                        arguments: [Share.zoneWideRecordName])))
        }
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        var rotated = Set<ZoneID>()
        for own in records where own.id.name == "keys" && own.id.zone.owner == me {
            let zone = own.id.zone, kept = try keptKeyRecords(zone)
            // Whoever holds the newest generation must still take part in a share of the zone: one removed, one
            // who left, everyone of a share that ended kept what they held, so what is sealed next needs a new one.
            // So must anyone removed whom the newest was not made to shut out: they may hold it though no envelope
            // says so now (a copy of the record put back from before their envelope).
            let zoneShares = shares.filter { $0.id.zone == zone }
            let taking = Set(zoneShares.flatMap(Self.keyHolders) + [me]), removed = Self.shutOut(of: zoneShares, owner: me)
            if !keyring.holdersOfNewest(own, in: kept).isSubset(of: taking) || !removed.isSubset(of: keyring.excludedByNewest(own)) {
                try rotateKeys(zone: zone, excluding: removed)  // kept at hand before the next send: nothing more sealed with the key they hold
                rotated.insert(zone)
            } else if try keyring.lacksEnvelopes(own, of: own, for: [me], keysOf: keysOf) || keyring.lacksGenerations(of: kept, in: own) {
                try keyring.grant(zone: zone, root: nil, to: [], kept: kept)
            }
        }
        for share in shares where share.id.zone.owner == me {
            let wanted = Self.keyHolders(of: share)
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

    /// Adds a new generation to one of this account's zones' keys now, and seals with it from here on; the
    /// next repair wraps it for those still taking part.
    public func rotateKeys(zone: ZoneID, excluding removed: Set<String> = []) throws {
        guard let keyring else { return }
        try keyring.rotate(zone: zone, kept: keptKeyRecords(zone), excluding: removed)
        try keepOwnKeysAtHand(zone)
    }

    /// Who a notebook's key must shut out: those removed from its shares (`shares`, all of one zone's) who take part
    /// in none of them now.
    static func shutOut(of shares: [Share], owner: String) -> Set<String> {
        let taking = Set(shares.flatMap(keyHolders) + [owner])
        return Set(shares.flatMap(\.participants).filter { $0.status == .removed }.compactMap(\.userRecordID)).subtracting(taking)
    }

    /// Who of a share's people may hold the notebook's key: those invited or taking part, with some permission.
    static func keyHolders(of share: Share) -> [String] {
        share.invitees.filter { $0.permission != .none }.compactMap(\.userRecordID)
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
