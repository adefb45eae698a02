import Cloud
import Crypto
import Foundation

/// Ours: every answer of the server names the cloud that gave it (`ID SEQUENCE`), as `cloud/identity` would.
public enum CloudIdentityHeader {
    public static let name = "X-CloudNotes-Cloud"

    public static func parse(_ value: String) -> CloudIdentity? {
        let parts = value.split(separator: " ")
        guard parts.count == 2, let sequence = Int64(parts[1]) else { return nil }
        return CloudIdentity(id: String(parts[0]), sequence: sequence)
    }
}

/// CloudKit's server-to-server request signature, which every CloudNotes
/// device puts on every request: an ECDSA P-256 signature (DER, base64) of
/// `date:base64(SHA-256(body)):path`, where `date` is the ISO 8601 date
/// header (seconds, `Z`) and `path` the request's path from `/database/1/…`
/// without host or query string. An empty body signs the hash of nothing.
public enum RequestSignature {
    public static let keyIDHeader = "X-Apple-CloudKit-Request-KeyID"
    public static let dateHeader = "X-Apple-CloudKit-Request-ISO8601Date"
    public static let signatureHeader = "X-Apple-CloudKit-Request-SignatureV1"
    /// How far a request's date may be from the server's clock.
    public static let allowedSkew: TimeInterval = 5 * 60

    /// The bytes signed.
    public static func message(date: String, body: Data, path: String) -> Data {
        Data("\(date):\(Data(SHA256.hash(data: body)).base64EncodedString()):\(path)".utf8)
    }

    /// The three headers for a request.
    public static func headers(keyID: String, key: P256.Signing.PrivateKey, date: Date, body: Data, path: String) throws -> [String: String] {
        let stamp = iso8601(date)
        let signature = try key.signature(for: message(date: stamp, body: body, path: path))
        return [keyIDHeader: keyID, dateHeader: stamp, signatureHeader: signature.derRepresentation.base64EncodedString()]
    }

    /// Whether `signature` (base64 DER) is `key`'s over the request.
    public static func isValid(_ signature: String, key: P256.Signing.PublicKey, date: String, body: Data, path: String) -> Bool {
        isValid(signature, key: key, message: message(date: date, body: body, path: path))
    }

    /// Whether `signature` (base64 DER) is `key`'s over `message`.
    public static func isValid(_ signature: String, key: P256.Signing.PublicKey, message: Data) -> Bool {
        guard let der = Data(base64Encoded: signature), let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der) else {
            return false
        }
        return key.isValidSignature(parsed, for: message)
    }

    /// Seconds, UTC, `Z` (`2026-11-25T13:28:22Z`); the format style, not `ISO8601DateFormatter`, which cost more
    /// than the signature itself.
    private static let style = Date.ISO8601FormatStyle()

    public static func iso8601(_ date: Date) -> String { style.format(date) }

    // (nil: not a date in this form, which the authenticator refuses as a bad date.)
    public static func parseDate(_ text: String) -> Date? { try? style.parse(text) }
}
