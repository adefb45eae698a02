import Cloud
import Crypto
import Foundation

extension Keyring {
    /// The owner's key to seal with in one of its zones: the newest generation
    /// this device can open, from `known` records or the cloud. When it can
    /// open none (the zone's first key; another device made one at the same
    /// moment; this keychain is new or was lost; a participant wrote over the
    /// record), it adds a new generation, wrapped for every device key of the
    /// account, saved only over the version it read: a change never waits on
    /// a key another device holds. Generations of `kept` (the key records this
    /// device holds, retired ones too) that the cloud's record lacks are put
    /// back (see `putBack`).
    func ownZoneKey(_ zone: ZoneID, known: [Record], kept: [Record]) throws -> SymmetricKey {
        if let key = sealingKey(from: known, zone: zone) { return key }
        var key: SymmetricKey?
        try Self.update(ZoneKeys.recordID(zone: zone, root: nil), type: ZoneKeys.recordType, in: cloud.database(.private, as: account)) { record in
            key = sealingKey(from: [record], zone: zone)
            guard key == nil else { return false }
            key = try addGeneration(to: &record, zone: zone, kept: kept)
            return true
        }
        return key!
    }

    /// Adds a new generation to the zone's own key record, wrapped for this account's device keys only: what
    /// is sealed from now on is closed to a participant who was removed (they kept the older keys). `grant`
    /// then wraps it for those who remain.
    /// `excluding`: the accounts removed from the zone's shares, which the new generation is made to shut out.
    func rotate(zone: ZoneID, kept: [Record], excluding removed: Set<String> = []) throws {
        try Self.update(ZoneKeys.recordID(zone: zone, root: nil), type: ZoneKeys.recordType, in: cloud.database(.private, as: account)) { record in
            _ = try addGeneration(to: &record, zone: zone, kept: kept, excluding: removed)
            return true
        }
    }

    /// Adds a fresh generation, the newest, to the zone's own key record, wrapped for this account's device
    /// keys; a record someone else wrote over starts again from what this device holds. Returns the new key.
    private func addGeneration(to record: inout Record, zone: ZoneID, kept: [Record], excluding removed: Set<String> = []) throws -> SymmetricKey {
        let fresh = SymmetricKey(size: .bits256)
        var keys = Self.isTrusted(record, zone: zone) ? ZoneKeys(record: record) : ZoneKeys()
        let restored = putBack(heldGenerations(in: kept, zone: zone), into: &keys)
        _ = try addEnvelopes(restored + [(Self.generationID(fresh), fresh)], to: &keys, zone: zone, for: [account.id])
        if !removed.isEmpty, let newest = keys.generations.indices.last { keys.generations[newest].excludes = removed.sorted() }
        try keys.write(into: &record)
        return fresh
    }

    /// Puts the generations of `held` that `keys` lacks back into it, as its oldest (their envelopes are
    /// then added by `addEnvelopes`), and returns them. A participant who may write the zone's records can
    /// write over its key record, and a device can rebuild it without generations it never held: what those
    /// sealed must still open on every device, so whoever holds them writes them back.
    @discardableResult
    private func putBack(_ held: [(id: String, key: SymmetricKey)], into keys: inout ZoneKeys) -> [(id: String, key: SymmetricKey)] {
        let missing = held.filter { generation in !keys.generations.contains { $0.id == generation.id } }
        keys.generations.insert(contentsOf: missing.map { ZoneKeys.Generation(id: $0.id, envelopes: [:]) }, at: 0)
        return missing
    }

    /// The accounts the newest generation of the zone's own key record was made to shut out (none if it is not the
    /// owner's own record).
    func excludedByNewest(_ own: Record) -> Set<String> {
        guard Self.isTrusted(own, zone: own.id.zone) else { return [] }
        return Set(ZoneKeys(record: own).generations.last?.excludes ?? [])
    }

    /// The accounts with an envelope of the newest generation of the zone's own key record (`own`) in any of
    /// `records` (the zone's key records, retired ones too) that the zone's owner wrote.
    func holdersOfNewest(_ own: Record, in records: [Record]) -> Set<String> {
        let zone = own.id.zone
        guard Self.isTrusted(own, zone: zone), let newest = ZoneKeys(record: own).generations.last else { return [] }
        var holders = Set<String>()
        for record in records where record.type == ZoneKeys.recordType && record.id.zone == zone && Self.isTrusted(record, zone: zone) {
            for generation in ZoneKeys(record: record).generations where generation.id == newest.id {
                holders.formUnion(generation.envelopes.keys.map { name in String(name.split(separator: "/").first ?? Substring(name)) })
            }
        }
        return holders
    }

    /// Wraps every generation of the zone's key this device holds (in the
    /// cloud's record, or in `kept`: see `putBack`) for the account's own
    /// device keys and for `users` (a share's participants), in the record
    /// they can see: the share's (`root`), or the zone's own.
    func grant(zone: ZoneID, root: String?, to users: [String], kept: [Record]) throws {
        let db = cloud.database(.private, as: account)
        _ = try ownZoneKey(zone, known: [], kept: kept)
        try Self.update(ZoneKeys.recordID(zone: zone, root: root), type: ZoneKeys.recordType, in: db) { record in
            // The zone's own keys, read again on every try: what this device holds of them is what it grants.
            let own = try record.id.name == "keys" ? record : Self.existing(ZoneKeys.recordID(zone: zone, root: nil), in: db) ?? record
            let current = heldGenerations(in: [own], zone: zone)
            let older = heldGenerations(in: kept, zone: zone).filter { generation in !current.contains { $0.id == generation.id } }
            // A record someone else wrote over is written again from what this device holds, without what they put in it.
            let found = Self.isTrusted(record, zone: zone) ? ZoneKeys(record: record) : ZoneKeys()
            var keys = found
            putBack(older, into: &keys)
            let added = try addEnvelopes(older + current, to: &keys, zone: zone, for: [account.id] + users)
            // In the zone's own order, so that a share's record names the same newest generation, the one that seals.
            keys.order(like: older.map(\.id) + ZoneKeys(record: own).generations.map(\.id))
            guard added || keys != found else { return false }
            try keys.write(into: &record)
            if let root, record.parent != root { record.setParent(root) }
            return true
        }
    }

    /// Whether `record` (a share's key record, or the zone's own; nil when there is none yet) lacks an
    /// envelope of a generation this device holds in the zone's own `keys` for a device key of `users` (whose
    /// keys `keysOf` gives), or names another newest generation than the zone's: then `grant` has something to do.
    func lacksEnvelopes(_ record: Record?, of own: Record, for users: [String],
                        keysOf: (String) throws -> [String: Curve25519.KeyAgreement.PublicKey]) rethrows -> Bool {
        if let record, !Self.isTrusted(record, zone: own.id.zone) { return true }  // to be written again by the owner
        let granted = record.map(ZoneKeys.init(record:)) ?? ZoneKeys()
        // Out of the zone's order (written so before generations were put back in order): its newest would seal.
        if let record, record.id.name != "keys", let newest = ZoneKeys(record: own).generations.last,
           granted.generations.contains(where: { $0.id == newest.id }), granted.generations.last?.id != newest.id { return true }
        for generation in ZoneKeys(record: own).generations where open(generation, zone: own.id.zone) != nil {
            guard let copy = granted.generations.first(where: { $0.id == generation.id }) else { return true }
            for user in users {
                for keyID in try keysOf(user).keys where copy.envelopes[ZoneKeys.envelopeName(user: user, key: keyID)] == nil {
                    return true
                }
            }
        }
        return false
    }

    /// Whether the zone's own key record lacks a generation this device holds in `kept` (a device that never
    /// held it wrote the record again): then `grant` puts it back.
    func lacksGenerations(of kept: [Record], in own: Record) -> Bool {
        let present = Set(ZoneKeys(record: own).generations.map(\.id))
        return heldGenerations(in: kept, zone: own.id.zone).contains { !present.contains($0.id) }
    }

    /// Adds to `keys` an envelope of each held generation for every device key of `users` (this device's own
    /// key too, published or not); returns whether it added any.
    private func addEnvelopes(_ held: [(id: String, key: SymmetricKey)], to keys: inout ZoneKeys, zone: ZoneID,
                              for users: [String]) throws -> Bool {
        var recipients: [(String, Curve25519.KeyAgreement.PublicKey)] = [(ZoneKeys.envelopeName(user: account.id, key: keyID), privateKey.publicKey)]
        for user in Set(users) {
            for (keyID, key) in try publicKeys(of: user) { recipients.append((ZoneKeys.envelopeName(user: user, key: keyID), key)) }
        }
        var added = false
        for (id, key) in held {
            var index = keys.generations.firstIndex { $0.id == id }
            if index == nil {
                keys.generations.append(ZoneKeys.Generation(id: id, envelopes: [:]))
                index = keys.generations.count - 1
            }
            for (name, recipient) in recipients where keys.generations[index!].envelopes[name] == nil {
                keys.generations[index!].envelopes[name] = try Sealing.wrap(key, for: recipient, zone: zone)
                added = true
            }
        }
        return added
    }

    /// A generation's name: a hash of its key, so every record naming it means the same key.
    static func generationID(_ key: SymmetricKey) -> String {
        key.withUnsafeBytes { SHA256.hash(data: Data($0)) }.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
