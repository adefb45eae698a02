import Crypto
import Foundation

/// An invitation link: `cloudnotes://share/CONTAINER/TOKEN`.
///
/// The token is 256 random bits (base64url, 43 characters). The cloud keeps
/// only its SHA-256, so a stolen cloud file yields no working links, and a
/// tampered token simply matches no share. `description` redacts the token,
/// so logs never leak a working link; `absoluteString` is the link itself.
public struct ShareURL: Hashable, Sendable, Codable, CustomStringConvertible {
    static let prefix = "cloudnotes://share/"
    static let tokenBytes = 32
    static let tokenLength = 43

    public let container: String
    let token: String

    init(container: String, token: String) {
        self.container = container
        self.token = token
    }

    /// A new link with a fresh random token.
    static func generate(container: String, random: any RandomSource) -> ShareURL {
        var bytes = [UInt8]()
        bytes.reserveCapacity(tokenBytes)
        while bytes.count < tokenBytes {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) where bytes.count < tokenBytes {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return ShareURL(container: container, token: Data(bytes).base64URLEncoded)
    }

    /// Parses a link as printed by `absoluteString`, refusing anything else.
    public init(parsing text: String) throws(CloudError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix) else {
            throw .invalidArguments("not a CloudNotes share URL (expected \(Self.prefix)…)")
        }
        let parts = trimmed.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let container = parts.first, !container.isEmpty, container.count <= 255,
              container.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
        else {
            throw .invalidArguments("malformed share URL: expected \(Self.prefix)CONTAINER/TOKEN")
        }
        let token = String(parts[1])
        guard token.utf8.count == Self.tokenLength, token.utf8.allSatisfy(Self.isBase64URL) else {
            throw .invalidArguments("malformed share URL: the token is damaged or incomplete")
        }
        self.init(container: String(container), token: token)
    }

    public var absoluteString: String { Self.prefix + container + "/" + token }

    /// The token alone, as CloudKit's `shortGUID` names a share on the wire.
    public var shortGUID: String { token }

    /// The link a `shortGUID` of `container` stands for.
    public init(container: String, shortGUID: String) throws(CloudError) {
        try self.init(parsing: Self.prefix + container + "/" + shortGUID)
    }

    public var description: String { Self.prefix + container + "/" + token.prefix(4) + "…" }

    /// What the cloud stores instead of the token.
    var tokenHash: Data { Data(SHA256.hash(data: Data(token.utf8))) }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(absoluteString)
    }
}

extension Data {
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
