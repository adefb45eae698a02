import Foundation

/// A person in the cloud.
public struct Account: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The stable, random user record ID that owns zones and records.
    public var id: String
    public var name: String
    public var email: String
    public var createdAt: Date

    public init(id: String, name: String, email: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }

    public var description: String { name }

    /// Whether a name has the shape of a user record ID ('_' and 32 hex digits, as `Cloud.createAccount` makes them).
    static func isUserRecordID(_ name: String) -> Bool {
        name.utf8.count == 33 && name.hasPrefix("_") && name.dropFirst().allSatisfy(\.isHexDigit)
    }

    /// Names are what people type after `--account`: short, no spaces.
    static func validate(name: String) throws(CloudError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-"))
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .invalidArguments("account name '\(name)' must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }

    /// At most 254 characters (as SMTP has it), one '@', no spaces or controls.
    static func validate(email: String) throws(CloudError) {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.count <= 254,
              email.unicodeScalars.allSatisfy({ NameRules.isPrintable($0) && !$0.properties.isWhitespace }) else {
            throw .invalidArguments("\(email.prefix(40).inlineQuoted)\(email.count > 40 ? "…" : "") is not an email address")
        }
    }
}
