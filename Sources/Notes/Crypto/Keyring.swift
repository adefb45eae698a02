import Cloud
import Crypto
import Foundation

/// An account's keys on this machine, and the zone keys it can open.
///
/// The private key lives in a 0600 file in the keychain directory, shared by
/// the account's devices here (as iCloud Keychain shares it across devices);
/// the public key is a record in the public database, where anyone may read
/// it and only its account may change it.
public final class Keyring: @unchecked Sendable {
    static let keyRecordType = "ZoneKeys", publicKeyType = "PublicKey"

    public let account: Account
    let cloud: Cloud
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    /// Keys already unwrapped, by zone and envelope (the zone is part of the
    /// unwrapping): reading a list of posts opens each post's location, and the
    /// key agreement need not run once per post.
    private let lock = NSLock()
    private var unwrapped: [ZoneEnvelope: SymmetricKey] = [:]

    private struct ZoneEnvelope: Hashable {
        let zone: ZoneID
        let envelope: Data
    }

    public init(directory: URL, account: Account, cloud: Cloud) throws {
        self.account = account
        self.cloud = cloud
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent("\(account.id).key")
        if let raw = try? Data(contentsOf: file), let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw) {
            privateKey = key
        } else {
            privateKey = Curve25519.KeyAgreement.PrivateKey()
            try privateKey.rawRepresentation.write(to: file, options: .atomic)
            chmod(file.path, 0o600)
        }
    }

    private var publicDatabase: CloudDatabase { cloud.database(.public, as: account) }

    private static func publicKeyID(_ userRecordID: String) -> RecordID {
        RecordID(name: "pk-" + userRecordID, zone: ZoneID(name: ZoneID.defaultName))
    }

    /// Publishes this account's public key, once.
    public func publish() throws {
        let id = Self.publicKeyID(account.id)
        if (try? publicDatabase.record(id)) != nil { return }
        var record = Record(type: Self.publicKeyType, id: id)
        record["key"] = .bytes(privateKey.publicKey.rawRepresentation)
        try publicDatabase.save(record, policy: .allKeys)
    }

    func publicKey(of userRecordID: String) throws -> Curve25519.KeyAgreement.PublicKey {
        let id = Self.publicKeyID(userRecordID)
        guard case .bytes(let raw)? = try publicDatabase.record(id)["key"] else { throw CloudError.unknownItem(id) }
        return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
    }

    // MARK: Zone keys

    /// The key record of a zone (owner only) or of one share (inside its hierarchy, so its participants see it).
    static func keyRecordID(zone: ZoneID, root: String?) -> RecordID {
        RecordID(name: root.map { "keys-" + $0 } ?? "keys", zone: zone)
    }

    static func envelopes(of record: Record) -> [String: Data] {
        guard case .bytes(let data)? = record["envelopes"],
              let map = try? JSONDecoder().decode([String: Data].self, from: data) else { return [:] }
        return map
    }

    /// Opens a zone key from any of the given key records.
    func openZoneKey(from records: [Record], zone: ZoneID) -> SymmetricKey? {
        for record in records where record.type == Self.keyRecordType {
            guard let envelope = Self.envelopes(of: record)[account.id] else { continue }
            let cacheKey = ZoneEnvelope(zone: zone, envelope: envelope)
            if let key = lock.withLock({ unwrapped[cacheKey] }) { return key }
            if let key = Sealing.unwrap(envelope, with: privateKey, zone: zone) {
                lock.withLock { unwrapped[cacheKey] = key }
                return key
            }
        }
        return nil
    }

    /// The owner's key for one of its zones, created (and wrapped for itself) on first use.
    func ownZoneKey(_ zone: ZoneID, known: [Record]) throws -> SymmetricKey {
        if let key = openZoneKey(from: known, zone: zone) { return key }
        let db = cloud.database(.private, as: account)
        let id = Self.keyRecordID(zone: zone, root: nil)
        if let existing = try Self.existing(id, in: db) {
            guard let key = openZoneKey(from: [existing], zone: zone) else {
                throw CloudError.permissionFailure("this device cannot open the key of zone \(zone.name)")
            }
            return key
        }
        // Only a key that surely does not exist yet is made: a new one would lock out what the old one sealed.
        let key = SymmetricKey(size: .bits256)
        try publish()
        try saveEnvelopes(key, zone: zone, root: nil, for: [account.id])
        return key
    }

    /// Wraps the zone key for a share's participants, in a record they can see.
    public func grant(zone: ZoneID, root: String?, to userRecordIDs: [String]) throws {
        let key = try ownZoneKey(zone, known: [])
        try saveEnvelopes(key, zone: zone, root: root, for: [account.id] + userRecordIDs)
    }

    /// The record, nil only when the cloud says it does not exist; other errors are thrown.
    static func existing(_ id: RecordID, in db: CloudDatabase) throws -> Record? {
        do {
            return try db.record(id)
        } catch {
            if case .unknownItem = error { return nil }
            throw error
        }
    }

    private func saveEnvelopes(_ key: SymmetricKey, zone: ZoneID, root: String?, for users: [String]) throws {
        let db = cloud.database(.private, as: account)
        let id = Self.keyRecordID(zone: zone, root: root)
        var record = try Self.existing(id, in: db) ?? Record(type: Self.keyRecordType, id: id)
        var envelopes = Self.envelopes(of: record)
        for user in users where envelopes[user] == nil {
            let recipient: Curve25519.KeyAgreement.PublicKey
            if user == account.id {
                recipient = privateKey.publicKey
            } else {
                do {
                    recipient = try publicKey(of: user)
                } catch {
                    if case .unknownItem = error as? CloudError { continue }  // no key published yet: granted on a later sync
                    throw error
                }
            }
            envelopes[user] = try Sealing.wrap(key, for: recipient, zone: zone)
        }
        record["envelopes"] = .bytes(try JSONEncoder().encode(envelopes))
        if let root { record.setParent(root) }
        try db.save(record)  // if-unchanged: envelopes written meanwhile are never overwritten
    }
}
