import Cloud
import Crypto
import Foundation

/// This device's key for an account, and the zone keys it can open.
///
/// The private key lives in a 0600 file in the keychain directory (the
/// devices of one data directory share it, as iCloud Keychain shares keys
/// across an account's devices); each keychain is one *device key*, named
/// by a short hash of its public key. An account's public record lists the
/// public key of every device key it has (anyone may read it, only the
/// account change it), so a device with a new or lost keychain is granted
/// the zone keys by the account's other devices, never locked out.
public final class Keyring: @unchecked Sendable {
    public static let publicKeyType = "PublicKey"

    public let account: Account
    let cloud: any Cloud
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    /// This device key's name in envelopes and in the account's public record.
    public let keyID: String
    /// Keys already unwrapped, by zone and envelope (the zone is part of the
    /// unwrapping): reading a list of posts opens each post's location, and the
    /// key agreement need not run once per post.
    private let lock = NSLock()
    private var unwrapped: [ZoneEnvelope: SymmetricKey] = [:]

    private struct ZoneEnvelope: Hashable {
        let zone: ZoneID
        let envelope: Data
    }

    public init(directory: URL, account: Account, cloud: any Cloud) throws {
        self.account = account
        self.cloud = cloud
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.invalid("cannot make the keychain folder \(directory.path): \(error.localizedDescription)")
        }
        let file = directory.appendingPathComponent("\(account.id).key")
        privateKey = try Self.deviceKey(at: file)
        keyID = Self.keyID(of: privateKey.publicKey)
    }

    /// This device's private key: the one in `file`, or a new one put there if there is none. A file that is
    /// there and does not read is never replaced: every notebook key wrapped for it would stop opening here.
    private static func deviceKey(at file: URL) throws -> Curve25519.KeyAgreement.PrivateKey {
        for _ in 0..<2 {
            if FileManager.default.fileExists(atPath: file.path) {
                do {
                    return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try Data(contentsOf: file))
                } catch {
                    throw StoreError.invalid("this device's key \(file.path) does not read (\(error.localizedDescription)); it is not "
                                             + "replaced: move it aside to make a new one, and the owners' devices grant it their notebooks again")
                }
            }
            let key = Curve25519.KeyAgreement.PrivateKey()
            // Written whole, readable by its owner only, then linked into place, which fails if another process of
            // this device made one first: then that one is read.
            let draft = file.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).key")
            guard FileManager.default.createFile(atPath: draft.path, contents: key.rawRepresentation, attributes: [.posixPermissions: 0o600]) else {
                throw StoreError.invalid("cannot write this device's key to \(file.path): the keychain folder is not writable")
            }
            defer { unlink(draft.path) }
            if link(draft.path, file.path) == 0 { return key }
            guard errno == EEXIST else {
                throw StoreError.invalid("cannot write this device's key to \(file.path): \(String(cString: strerror(errno)))")
            }
        }
        throw StoreError.invalid("this device's key \(file.path) appeared and went at once; try again")
    }

    static func keyID(of key: Curve25519.KeyAgreement.PublicKey) -> String {
        SHA256.hash(data: key.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    private var publicDatabase: CloudDatabase { cloud.database(.public, as: account) }

    /// Where an account's device keys are published: its user record in the public database, which the cloud
    /// lets only that account write.
    private static func publicKeyID(_ userRecordID: String) -> RecordID {
        RecordID(name: userRecordID, zone: ZoneID(name: ZoneID.defaultName))
    }

    // MARK: Device keys

    /// Adds this device key to the account's public record, once; a record
    /// changed meanwhile by another device is read again, never overwritten.
    public func publish() throws {
        try Self.update(Self.publicKeyID(account.id), type: Self.publicKeyType, in: publicDatabase) { record in
            var devices = try Self.deviceKeys(in: record)
            guard devices[keyID] == nil else { return false }
            devices[keyID] = privateKey.publicKey.rawRepresentation
            record["devices"] = .bytes(try JSONEncoder().encode(devices))
            return true
        }
    }

    /// Every device key an account has published, by key ID. (Keys that versions before user records
    /// published to `pk-ID`, a name any account could write first, are not read: a device publishes again
    /// on its first sync after the update.)
    func publicKeys(of userRecordID: String) throws -> [String: Curve25519.KeyAgreement.PublicKey] {
        guard let record = try Self.existing(Self.publicKeyID(userRecordID), in: publicDatabase) else { return [:] }
        // Another account's map that does not read is as none: its owner alone writes it, and one who wrote it
        // badly must not stop this account's syncs. (This account's own is read strictly, by `publish`.) A key
        // that is not a Curve25519 key is no device's: nothing wrapped for it could open.
        let raw = userRecordID == account.id ? try Self.deviceKeys(in: record) : (try? Self.deviceKeys(in: record)) ?? [:]
        return raw.compactMapValues { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
    }

    /// The raw device keys of a public record; one published before device keys counts as one. A map that does
    /// not read is an error, not an empty one: publishing over it would drop the account's other devices.
    private static func deviceKeys(in record: Record) throws -> [String: Data] {
        var keys: [String: Data] = [:]
        if case .bytes(let data)? = record["devices"] {
            do {
                keys = try JSONDecoder().decode([String: Data].self, from: data)
            } catch {
                throw StoreError.invalid("the device keys published for \(record.id.name) do not read: \(error.localizedDescription)")
            }
        }
        // (A legacy key that is not a Curve25519 key is no device's: nothing wrapped for it could open.)
        if case .bytes(let raw)? = record["key"], let key = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) {
            keys[keyID(of: key)] = raw
        }
        return keys
    }

    // MARK: Opening

    /// Every zone key this device can open from the given key records, oldest generation first.
    func openZoneKeys(from records: [Record], zone: ZoneID) -> [SymmetricKey] {
        heldGenerations(in: records, zone: zone).map(\.key)
    }

    /// Every generation of the zone's key this device opens in the trusted records among `records`, each
    /// once, in the order the records hold them (oldest first).
    func heldGenerations(in records: [Record], zone: ZoneID) -> [(id: String, key: SymmetricKey)] {
        var held: [(id: String, key: SymmetricKey)] = []
        for record in records where record.type == ZoneKeys.recordType && Self.isTrusted(record, zone: zone) {
            for generation in ZoneKeys(record: record).generations where !held.contains(where: { $0.id == generation.id }) {
                if let key = open(generation, zone: zone), !held.contains(where: { $0.key == key }) { held.append((generation.id, key)) }
            }
        }
        return held
    }

    /// Whether this device opens every generation of the zone's key that its owner's records among `records` name:
    /// then a value none of them opens was sealed with no key of the notebook's (by someone writing raw records)
    /// and never will open.
    func opensEveryGeneration(in records: [Record], zone: ZoneID) -> Bool {
        let named = Set(records.filter { $0.type == ZoneKeys.recordType && Self.isTrusted($0, zone: zone) }
            .flatMap { ZoneKeys(record: $0).generations.map(\.id) })
        return !named.isEmpty && named.isSubset(of: heldGenerations(in: records, zone: zone).map(\.id))
    }

    /// Whether a key record is the zone owner's: a participant who may write the records of a share (its
    /// key record sits inside it) could otherwise plant a key the owner's devices would seal with. The cloud
    /// stamps who last modified a record; one not saved yet is this device's own.
    static func isTrusted(_ record: Record, zone: ZoneID) -> Bool {
        guard let system = record.system else { return true }
        return system.modifiedBy == zone.owner
    }

    /// The key to seal with: the newest generation this device can open, of the zone's own key record when
    /// it can open one there (a share's record may lag behind a rotation).
    func sealingKey(from records: [Record], zone: ZoneID) -> SymmetricKey? {
        openZoneKeys(from: records.filter { $0.id.name == "keys" }, zone: zone).last ?? openZoneKeys(from: records, zone: zone).last
    }

    /// An envelope this device key opened: where it was filed and what it held.
    public struct OpenedEnvelope {
        public let generation: String
        /// The device key it was filed for ("USER/KEYID").
        public let name: String
        public let key: SymmetricKey
    }

    /// Every envelope of a key record this device key opens, under whatever name it was filed and whoever
    /// filed it: one filed for another account's device that opens here was wrapped for a key that is not
    /// theirs. For checks (the simulation's intruder); the app opens only its own, from records it trusts.
    public func envelopesOpened(in record: Record, zone: ZoneID) -> [OpenedEnvelope] {
        ZoneKeys(record: record).generations.flatMap { generation in
            generation.envelopes.sorted { $0.key < $1.key }.compactMap { name, envelope in
                Sealing.unwrap(envelope, with: privateKey, zone: zone).map { OpenedEnvelope(generation: generation.id, name: name, key: $0) }
            }
        }
    }

    /// This device key's name in envelopes, and its public half.
    public var envelopeName: String { ZoneKeys.envelopeName(user: account.id, key: keyID) }
    public var publicKey: Curve25519.KeyAgreement.PublicKey { privateKey.publicKey }
    /// The type of the records that hold zone keys.
    public static var keyRecordType: String { ZoneKeys.recordType }

    func open(_ generation: ZoneKeys.Generation, zone: ZoneID) -> SymmetricKey? {
        let mine = generation.envelopes[ZoneKeys.envelopeName(user: account.id, key: keyID)] ?? generation.envelopes[account.id]
        guard let envelope = mine else { return nil }
        let cacheKey = ZoneEnvelope(zone: zone, envelope: envelope)
        if let key = lock.withLock({ unwrapped[cacheKey] }) { return key }
        guard let key = Sealing.unwrap(envelope, with: privateKey, zone: zone) else { return nil }
        lock.withLock { unwrapped[cacheKey] = key }
        return key
    }

    /// Reads a record (a new one when there is none), lets `change` update it (false: nothing to save), and
    /// saves it only over the version read: a save by another device in between is read again, never
    /// overwritten.
    static func update(_ id: RecordID, type: String, in db: CloudDatabase, _ change: (inout Record) throws -> Bool) throws {
        for _ in 0..<5 {
            var record = try existing(id, in: db) ?? Record(type: type, id: id)
            guard try change(&record) else { return }
            do {
                try db.save(record)
                return
            } catch {
                guard case .serverRecordChanged = error else { throw error }
            }
        }
        throw CloudError.serviceUnavailable(retryAfter: 1)
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
}
