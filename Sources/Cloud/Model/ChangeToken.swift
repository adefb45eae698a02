/// An opaque cursor into the history of a database or a zone.
///
/// Internally it is the cloud's change sequence number at which the caller
/// has seen everything, and the sequence number at which the cloud issued
/// it. The two differ for a page of a longer fetch: the caller has seen the
/// changes up to `sequence` as they stood at `issued`, so what happened before
/// `issued` (a share accepted, tombstones purged) does not expire it, while
/// what happened after does. Clients only store it and hand it back.
public struct ChangeToken: Hashable, Codable, Sendable, CustomStringConvertible {
    let sequence: Int64
    let issued: Int64

    /// A token up to `sequence`, issued at `issued` (by default at the same place).
    init(_ sequence: Int64, issued: Int64? = nil) {
        self.sequence = sequence
        self.issued = max(sequence, issued ?? sequence)
    }

    /// Parses a token printed by `description`, and nothing else: a token
    /// the cloud did not issue (another spelling of a number, a sign, upper
    /// case) is refused rather than read as some place in the history.
    public init(parsing text: String) throws(CloudError) {
        let parts = text.hasPrefix("ct1-") ? text.dropFirst(4).split(separator: "-", omittingEmptySubsequences: false) : []
        guard (1...2).contains(parts.count), let value = Int64(parts[0], radix: 36), value >= 0,
              let issued = parts.count == 2 ? Int64(parts[1], radix: 36) : value,
              ChangeToken(value, issued: issued).description == text else {
            throw .invalidArguments("\(text.inlineQuoted) is not a change token")
        }
        self.init(value, issued: issued)
    }

    /// Whether everything up to a commit (its change sequence number) is behind this token: a push of that
    /// commit brings a device that fetched up to here nothing new.
    public func covers(_ commit: Int64) -> Bool { commit <= sequence }

    /// Tokens saved before `issued` existed were issued where they point.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let sequence = try container.decode(Int64.self, forKey: .sequence)
        self.init(sequence, issued: try container.decodeIfPresent(Int64.self, forKey: .issued))
    }

    /// Refuses a token from past the cloud's history (`now`, its latest
    /// change): it was not issued by this cloud as it is (damaged, or kept
    /// from before the cloud was put back to an older copy), and reading on
    /// from it would skip changes. As CloudKit does, it has expired: the
    /// caller fetches everything again.
    func check(before now: Int64) throws(CloudError) {
        if issued > now { throw .changeTokenExpired }
    }

    /// Refuses a token issued before `horizon`, the latest change that may
    /// have taken away what the caller saw up to it.
    func check(after horizon: Int64) throws(CloudError) {
        if issued < horizon { throw .changeTokenExpired }
    }

    public var description: String {
        "ct1-" + String(sequence, radix: 36) + (issued == sequence ? "" : "-" + String(issued, radix: 36))
    }
}
