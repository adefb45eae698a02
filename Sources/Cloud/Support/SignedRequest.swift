import Foundation

/// A signed request a server is answering, which every server of the cloud must answer at most once: its
/// first write records the signature in the cloud (`signed_requests`), inside that write's own transaction
/// and in the same flight as its first statements, and a write for a signature any server already recorded is
/// refused as a replay. Each server also keeps the signatures it saw in memory; this is what a request captured
/// on its way to one server and sent to another meets.
///
/// A request that only reads is not recorded (a replay of it changes nothing), nor is one whose write failed.
public final class SignedRequest: @unchecked Sendable {
    /// The signature's ID: the key's, and the signature's `r` (the same in a signature re-encoded).
    public let signature: String
    /// Until when a replay could pass the date check, and the record matters.
    public let until: Date
    /// Whether a write of this request has recorded it (a request may write more than once).
    var recorded = false

    public init(signature: String, until: Date) {
        self.signature = signature
        self.until = until
    }

    /// Runs `body` on this thread as the answer to this request: the cloud's writes in it record it.
    public func answering<T>(_ body: () throws -> T) rethrows -> T {
        let slots = Thread.current.threadDictionary
        let outer = slots[Self.slot]
        slots[Self.slot] = self
        defer { slots[Self.slot] = outer }
        return try body()
    }

    /// The request being answered on this thread, if its writes have not recorded it yet.
    static var unrecorded: SignedRequest? {
        (Thread.current.threadDictionary[slot] as? SignedRequest).flatMap { $0.recorded ? nil : $0 }
    }

    private static let slot = "cloudnotes.signedRequest"
}
