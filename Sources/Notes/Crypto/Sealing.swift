import Cloud
import Crypto
import Foundation

/// Sealing fields and wrapping keys: AES-GCM for values (the record's
/// identity as associated data, so a sealed value cannot be moved to
/// another record), X25519 + HKDF + AES-GCM to wrap a zone key for an account.
public enum Sealing {
    public static func seal(_ text: String, key: SymmetricKey, record: RecordID) throws -> Data {
        try AES.GCM.seal(Data(text.utf8), using: key, authenticating: Data(record.description.utf8)).combined!
    }

    public static func open(_ sealed: Data, key: SymmetricKey, record: RecordID) -> String? {
        // (nil is the answer: not sealed with this key, or altered; callers try the next generation, and status
        // counts what none opens.)
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
              let plain = try? AES.GCM.open(box, using: key, authenticating: Data(record.description.utf8)) else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    /// The zone key, readable only with the recipient's private key: an
    /// ephemeral public key followed by the sealed key.
    public static func wrap(_ key: SymmetricKey, for recipient: Curve25519.KeyAgreement.PublicKey, zone: ZoneID) throws -> Data {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let wrapping = try wrappingKey(ephemeral.sharedSecretFromKeyAgreement(with: recipient), zone: zone)
        let sealed = try AES.GCM.seal(key.withUnsafeBytes { Data($0) }, using: wrapping).combined!
        return ephemeral.publicKey.rawRepresentation + sealed
    }

    public static func unwrap(_ envelope: Data, with privateKey: Curve25519.KeyAgreement.PrivateKey, zone: ZoneID) -> SymmetricKey? {
        guard envelope.count > 32,
              // (nil is the answer: not wrapped for this device key, or altered.)
              let ephemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: envelope.prefix(32)),
              let secret = try? privateKey.sharedSecretFromKeyAgreement(with: ephemeral),
              let box = try? AES.GCM.SealedBox(combined: envelope.dropFirst(32)),
              let raw = try? AES.GCM.open(box, using: wrappingKey(secret, zone: zone)) else { return nil }
        return SymmetricKey(data: raw)
    }

    private static func wrappingKey(_ secret: SharedSecret, zone: ZoneID) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data(zone.description.utf8),
                                       sharedInfo: Data("cloudnotes zone key".utf8), outputByteCount: 32)
    }
}
