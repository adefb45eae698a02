import Cloud
import CloudWire
import Crypto
import Foundation

/// Decides who is calling, from a request's signature headers or its web token pair, and nothing else: the
/// account is the one the key or token belongs to, never a name in the request. Every refusal looks the same
/// to the caller (AUTHENTICATION_FAILED); the server's log says which check failed.
final class Authenticator: @unchecked Sendable {
    /// Why a request was refused, for the log only.
    enum Refusal: String, Error {
        case unsigned, unknownKey, revokedKey, badDate, staleDate, badSignature, replayed, badToken
    }

    /// A request dated before the server started (within the allowed skew): a device whose clock is behind, or a
    /// replay the server can no longer tell from one (its memory of signatures went with the restart). Answered
    /// "try again later" after `wait` seconds: the device signs anew, with a later date.
    struct DatedBeforeStart: Error {
        let wait: TimeInterval
    }

    private let cloud: LocalCloud
    private let clock: @Sendable () -> Date
    private let lock = NSLock()
    /// The signatures accepted within the allowed skew, by key ID and the signature's `r` (its random nonce's
    /// point: the same in a signature re-encoded as `(r, n−s)`, new in each one a device makes, even of the same
    /// request in the same second), by when they stop mattering (a replay older than that fails the date
    /// check). Requests dated before the server started are put off, so a restart that loses this set opens no window.
    private var seen: [String: Date] = [:]
    private var prunedAt = Date.distantPast
    private let started: Date

    init(cloud: LocalCloud, clock: @escaping @Sendable () -> Date = Date.init) {
        self.cloud = cloud
        self.clock = clock
        started = clock().addingTimeInterval(-1)
    }

    /// What a request proved: whose it is, and by which credential (a device key, a web token).
    struct Caller {
        let account: Account
        let credential: Credential
        /// The request as its signature names it (nil for a web token's): what its writes record, so no other
        /// server of the cloud answers it again.
        var signature: ServedRequest.Signature?
    }

    enum Credential: Hashable {
        case key(String)
        case webToken(String)
    }

    /// The caller of a request.
    func caller(headers: [String: String], path: String, query: String?, body: Data) throws -> Caller {
        if let keyID = headers[RequestSignature.keyIDHeader.lowercased()] {
            let (account, signature) = try signedCaller(keyID: keyID, headers: headers, path: path, query: query, body: body)
            return Caller(account: account, credential: .key(keyID), signature: signature)
        }
        let parameters = Self.parameters(query)
        if let api = parameters["ckAPIToken"], let auth = parameters["ckWebAuthToken"] {
            guard let account = try cloud.account(apiToken: api, webAuthToken: auth) else { throw Refusal.badToken }
            return Caller(account: account, credential: .webToken(api))
        }
        throw Refusal.unsigned
    }

    /// Whether a credential still works (a poll opened with it ends when it is revoked or expires); a store that
    /// cannot say is an error, not a no.
    func isLive(_ credential: Credential) throws(CloudError) -> Bool {
        switch credential {
        case .key(let keyID): try cloud.device(keyID: keyID).map { $0.revokedAt == nil } ?? false
        case .webToken(let api): try cloud.webTokenIsLive(apiToken: api)
        }
    }

    private func signedCaller(keyID: String, headers: [String: String], path: String, query: String?,
                              body: Data) throws -> (Account, ServedRequest.Signature) {
        guard let (device, account) = try cloud.signer(keyID: keyID) else { throw Refusal.unknownKey }
        guard device.revokedAt == nil else { throw Refusal.revokedKey }
        let seen = try verify(keyID: keyID, publicKey: device.publicKey, headers: headers, path: path, query: query, body: body)
        guard let account else { throw Refusal.unknownKey }
        return (account, ServedRequest.Signature(id: seen.request, until: seen.until))
    }

    /// The operator's key a request is signed with (a device's key or a web token is no operator's).
    func operatorCaller(headers: [String: String], path: String, query: String?, body: Data) throws -> String {
        guard let keyID = headers[RequestSignature.keyIDHeader.lowercased()] else { throw Refusal.unsigned }
        guard let key = try cloud.operatorKey(keyID: keyID) else { throw Refusal.unknownKey }
        guard key.revokedAt == nil else { throw Refusal.revokedKey }
        let seen = try verify(keyID: keyID, publicKey: key.publicKey, headers: headers, path: path, query: query, body: body)
        // An operator's request could make an enrolment code: a replay to another server of the directory is refused too.
        guard try cloud.noteOperatorRequest(seen.request, until: seen.until) else { throw Refusal.replayed }
        return keyID
    }

    /// Checks a request's signature by `publicKey`: its date, the signature itself, and that this server has not
    /// seen it before; the signature's ID, and until when it matters.
    @discardableResult
    private func verify(keyID: String, publicKey: Data, headers: [String: String], path: String, query: String?,
                        body: Data) throws -> (request: String, until: Date) {
        guard let stamp = headers[RequestSignature.dateHeader.lowercased()], let signature = headers[RequestSignature.signatureHeader.lowercased()]
        else { throw Refusal.unsigned }
        guard let date = RequestSignature.parseDate(stamp) else { throw Refusal.badDate }
        let now = clock()
        guard abs(date.timeIntervalSince(now)) <= RequestSignature.allowedSkew else { throw Refusal.staleDate }
        guard let key = try? P256.Signing.PublicKey(derRepresentation: publicKey) else { throw Refusal.unknownKey }
        // Clients differ on whether the query string is signed, and on how an empty body is hashed: any one
        // of the forms verifies.
        let paths = [path] + (query.map { ["\(path)?\($0)"] } ?? [])
        let valid = paths.contains { signed in
            RequestSignature.isValid(signature, key: key, date: stamp, body: body, path: signed)
                || (body.isEmpty && RequestSignature.isValid(signature, key: key, message: Data("\(stamp)::\(signed)".utf8)))
        }
        guard valid else { throw Refusal.badSignature }
        guard date >= started else { throw DatedBeforeStart(wait: started.timeIntervalSince(date) + 1) }
        guard let der = Data(base64Encoded: signature), let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der) else {
            throw Refusal.badSignature
        }
        let request = keyID + ":" + parsed.rawRepresentation.prefix(32).base64EncodedString()
        try lock.withLock {
            if now.timeIntervalSince(prunedAt) > 1 {
                seen = seen.filter { $0.value > now }
                prunedAt = now
            }
            guard seen[request] == nil else { throw Refusal.replayed }
            seen[request] = date.addingTimeInterval(RequestSignature.allowedSkew + 1)
        }
        return (request, date.addingTimeInterval(RequestSignature.allowedSkew + 1))
    }

    static func parameters(_ query: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = parts.first?.removingPercentEncoding else { continue }
            out[name] = parts.count > 1 ? parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
        }
        return out
    }
}
