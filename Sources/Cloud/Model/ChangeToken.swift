/// An opaque cursor into the history of a database or a zone.
///
/// Internally it is the cloud's change sequence number at which the caller
/// has seen everything; clients only store it and hand it back.
public struct ChangeToken: Hashable, Codable, Sendable, CustomStringConvertible {
    let sequence: Int64

    init(_ sequence: Int64) { self.sequence = sequence }

    /// Parses a token printed by `description`, and nothing else: a token
    /// the cloud did not issue (another spelling of a number, a sign, upper
    /// case) is refused rather than read as some place in the history.
    public init(parsing text: String) throws(CloudError) {
        guard text.hasPrefix("ct1-"), let value = Int64(text.dropFirst(4), radix: 36), value >= 0,
              ChangeToken(value).description == text else {
            throw .invalidArguments("\(text.inlineQuoted) is not a change token")
        }
        sequence = value
    }

    /// Refuses a token from past the cloud's history (`now`, its latest
    /// change): it was not issued by this cloud as it is (damaged, or kept
    /// from before the cloud was put back to an older copy), and reading on
    /// from it would skip changes. As CloudKit does, it has expired: the
    /// caller fetches everything again.
    func check(before now: Int64) throws(CloudError) {
        if sequence > now { throw .changeTokenExpired }
    }

    public var description: String { "ct1-" + String(sequence, radix: 36) }
}
