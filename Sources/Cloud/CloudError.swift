import Foundation

/// Every way a cloud request can fail, each with what a client needs to react.
///
/// The cases follow CloudKit's `CKError` codes. Transient cases carry a
/// retry-after interval; a client retries them without asking the user.
public enum CloudError: Error, Equatable, Sendable {
    /// An if-unchanged save named an old change tag: the server's record is attached.
    case serverRecordChanged(server: Record)
    case zoneNotFound(ZoneID)
    /// Ours: a zone deletion that names the change token its caller last fetched, refused because the zone changed
    /// since (records saved or moved in there on another device, or by someone it is shared with).
    case zoneChanged(ZoneID)
    case unknownItem(RecordID)
    case unknownAccount(String)
    case permissionFailure(String)
    case participantNeedsVerification(String)
    case participantNotInvited(String)
    case alreadyShared(RecordID)
    /// No share has this link: it was stopped, or the link is mistyped or tampered with.
    case unknownShare
    case tooManyParticipants(limit: Int)
    /// The token predates the purge horizon: reset it and fetch everything.
    case changeTokenExpired
    /// Some items of a request failed; each has its own error.
    case partialFailure([ItemID: CloudError])
    /// This item was fine, but another in its atomic zone failed, so it was rolled back.
    case batchRequestFailed
    case limitExceeded(String)
    case quotaExceeded
    case invalidArguments(String)
    case networkUnavailable
    case networkFailure
    case serviceUnavailable(retryAfter: TimeInterval)
    case requestRateLimited(retryAfter: TimeInterval)
    case zoneBusy(retryAfter: TimeInterval)
    /// The cloud's files could not be read or written.
    case storage(String)
    /// A server refused to take the request as this device's (no valid signature or token; a revoked device).
    case notAuthenticated(String)
    /// A server whose TLS certificate did not verify was not spoken to (a client's own error, never a server's):
    /// like an outage, the next server is tried and the request retried later, and the person is told why.
    case untrustedServer(String)

    /// A stable code, for scripts and logs.
    public var code: String {
        switch self {
        case .serverRecordChanged: "serverRecordChanged"
        case .zoneNotFound: "zoneNotFound"
        case .zoneChanged: "zoneChanged"
        case .unknownItem: "unknownItem"
        case .unknownAccount: "unknownAccount"
        case .permissionFailure: "permissionFailure"
        case .participantNeedsVerification: "participantNeedsVerification"
        case .participantNotInvited: "participantNotInvited"
        case .alreadyShared: "alreadyShared"
        case .unknownShare: "unknownShare"
        case .tooManyParticipants: "tooManyParticipants"
        case .changeTokenExpired: "changeTokenExpired"
        case .partialFailure: "partialFailure"
        case .batchRequestFailed: "batchRequestFailed"
        case .limitExceeded: "limitExceeded"
        case .quotaExceeded: "quotaExceeded"
        case .invalidArguments: "invalidArguments"
        case .networkUnavailable: "networkUnavailable"
        case .networkFailure: "networkFailure"
        case .serviceUnavailable: "serviceUnavailable"
        case .requestRateLimited: "requestRateLimited"
        case .zoneBusy: "zoneBusy"
        case .storage: "storage"
        case .notAuthenticated: "notAuthenticated"
        case .untrustedServer: "untrustedServer"
        }
    }

    /// Errors a client retries by itself after `retryAfter`.
    public var isTransient: Bool { retryAfter != nil }

    public var retryAfter: TimeInterval? {
        switch self {
        case .networkUnavailable, .networkFailure: 1
        case .serviceUnavailable(let t), .requestRateLimited(let t), .zoneBusy(let t): t
        case .untrustedServer: 30  // (a certificate is renewed, or its CA trusted, by a person: no sooner)
        default: nil
        }
    }

    /// The per-item errors of a partial failure, or nil.
    public var itemErrors: [ItemID: CloudError]? {
        if case .partialFailure(let errors) = self { errors } else { nil }
    }
}

extension CloudError: CustomStringConvertible {
    /// One line that says what went wrong and, where it helps, what to do.
    public var description: String {
        switch self {
        case .serverRecordChanged(let server):
            "server record changed: \(server.id.name) is at change tag \(server.changeTag ?? "?") on the server; fetch it and merge"
        case .zoneNotFound(let zone): "zone not found: \(zone.name)"
        case .zoneChanged(let zone): "zone changed: \(zone.name) changed after this device last fetched it; fetch it and look again"
        case .unknownItem(let id): "unknown item: no record \(id.name) in zone \(id.zone.name)"
        case .unknownAccount(let name): "unknown account: \(name) (create it with 'cloudnotes cloud create-account')"
        case .permissionFailure(let why): "permission failure: \(why)"
        case .participantNeedsVerification(let email): "participant needs verification: no account has the email \(email)"
        case .participantNotInvited(let why): "not invited: \(why)"
        case .alreadyShared(let id): "already shared: \(id.name) belongs to another share"
        case .unknownShare: "unknown share: no share has this link (it may have been stopped, or the link is mistyped)"
        case .tooManyParticipants(let limit): "too many participants: a share holds at most \(limit)"
        case .changeTokenExpired: "change token expired: fetch again without a token"
        case .partialFailure(let errors):
            "partial failure: " + errors.sorted { $0.key.description < $1.key.description }
                .map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        case .batchRequestFailed: "batch request failed: another item in the same atomic zone failed"
        case .limitExceeded(let what): "limit exceeded: \(what)"
        case .quotaExceeded: "quota exceeded: the account's storage is full"
        case .invalidArguments(let what): "invalid arguments: \(what)"
        case .networkUnavailable: "network unavailable: the cloud cannot be reached"
        case .networkFailure: "network failure: the request was interrupted; try again"
        case .serviceUnavailable(let t): "service unavailable: retry after \(Self.seconds(t))"
        case .requestRateLimited(let t): "request rate limited: retry after \(Self.seconds(t))"
        case .zoneBusy(let t): "zone busy: retry after \(Self.seconds(t))"
        case .storage(let what): "cloud storage error: \(what)"
        case .notAuthenticated(let why): "not signed in: \(why)"
        case .untrustedServer(let why): "the server's TLS certificate could not be verified (\(why)); for a server with a private CA, "
            + "CLOUDNOTES_CA_FILE names the CA's PEM file"
        }
    }

    private static func seconds(_ t: TimeInterval) -> String { String(format: "%.2fs", t) }
}
