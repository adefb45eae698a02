/// An opaque cursor into the history of a database or a zone.
///
/// Internally it is the cloud's change sequence number at which the caller
/// has seen everything; clients only store it and hand it back.
public struct ChangeToken: Hashable, Codable, Sendable, CustomStringConvertible {
    let sequence: Int64

    init(_ sequence: Int64) { self.sequence = sequence }

    /// Parses a token printed by `description`.
    public init(parsing text: String) throws(CloudError) {
        guard text.hasPrefix("ct1-"), let value = Int64(text.dropFirst(4), radix: 36), value >= 0 else {
            throw .invalidArguments("'\(text)' is not a change token")
        }
        sequence = value
    }

    public var description: String { "ct1-" + String(sequence, radix: 36) }
}
