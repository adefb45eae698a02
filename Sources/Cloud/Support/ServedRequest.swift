import Foundation

/// A request a server is answering (`answering` runs the answer on the calling thread): what the cloud's
/// transactions for it must know of it, and what they tell of the cloud.
///
/// - **Its signature**, which every server of the cloud must answer at most once: the request's first write
///   records it in the cloud (`signed_requests`), inside that write's own transaction, with no wait of its own
///   (its answer is read with the write's first), and a write for a signature any server already recorded is
///   refused as a replay. Each server also keeps the signatures it saw in memory; this is what a request
///   captured on its way to one server and sent to another meets. A request that only reads is not recorded
///   (a replay of it changes nothing; `tokens/create`, which hands out what a replay must not get again, is:
///   `LocalCloud.recordServedSignature`), nor is one whose write failed.
/// - **The cloud's identity as the request's last transaction saw it**, for the answer's header: asked with
///   the transaction's first statement, with no wait of its own (for a write, known from its commit), not in
///   a lookup of its own after the answer.
public final class ServedRequest: @unchecked Sendable {
    /// A request's signature as the servers record it.
    public struct Signature: Sendable {
        /// The key's ID and the signature's `r` (the same in a signature re-encoded as `(r, n−s)`).
        public let id: String
        /// Until when a replay could pass the date check, and the record matters.
        public let until: Date

        public init(id: String, until: Date) {
            self.id = id
            self.until = until
        }
    }

    public let signature: Signature?
    /// Past this, the answer is not worth its work: a long one stops (`checkContinue`) with LIMIT_EXCEEDED.
    public let deadline: Date?
    /// Whether the client has hung up: an answer nobody will read stops, and frees its thread.
    private let clientLeft: @Sendable () -> Bool
    /// Whether a write of this request has recorded its signature (a request may write more than once).
    private var recorded = false
    /// The cloud's identity, and the sequence, as the last transaction of this request saw them.
    public private(set) var identitySeen: CloudIdentity?

    public init(signature: Signature?, deadline: Date? = nil, clientLeft: @escaping @Sendable () -> Bool = { false }) {
        self.signature = signature
        self.deadline = deadline
        self.clientLeft = clientLeft
    }

    /// Throws when the request answered on this thread should stop: its client left (`networkFailure`: nobody hears
    /// the answer), or it ran past its deadline (`limitExceeded`). Every read of the cloud checks first, and a long
    /// answer (a query) between its batches; outside a served request it never throws.
    public static func checkContinue() throws(CloudError) {
        guard let current else { return }
        if current.clientLeft() { throw .networkFailure }
        if let deadline = current.deadline, Date() > deadline {
            throw .limitExceeded("the request took longer than the server gives one; ask for less (a smaller page, fewer zones)")
        }
    }

    /// Runs `body` on this thread as the answer to this request.
    public func answering<T>(_ body: () throws -> T) rethrows -> T {
        let slots = Thread.current.threadDictionary
        let outer = slots[Self.slot]
        slots[Self.slot] = self
        defer { slots[Self.slot] = outer }
        return try body()
    }

    /// The request being answered on this thread, if any.
    static var current: ServedRequest? { Thread.current.threadDictionary[slot] as? ServedRequest }

    /// The signature a write of this request must record; nil once one has.
    var unrecordedSignature: Signature? { recorded ? nil : signature }

    func signatureRecorded() { recorded = true }

    func saw(_ identity: CloudIdentity) { identitySeen = identity }

    private static let slot = "cloudnotes.servedRequest"
}
