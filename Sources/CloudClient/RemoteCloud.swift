import AsyncHTTPClient
import Cloud
import CloudWire
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The cloud on a server (`cloudnotes cloud serve`), as a `Cloud`: every
/// request goes over HTTP/1.1 (kept alive; TLS verified by default) in the
/// protocol of docs/PROTOCOL.md, signed with this device's key. A server
/// that cannot be reached is, to the sync core, an unreachable cloud:
/// requests fail with a transient error, changes wait, and it retries.
///
/// The account is the device's, fixed at sign-in: the server ignores any
/// other a caller names.
public final class RemoteCloud: Cloud, @unchecked Sendable {
    /// What a device signed in with: its key, the key's ID, and whose it is.
    public struct Credentials: @unchecked Sendable {  // the key is immutable
        public var keyID: String
        public var key: P256.Signing.PrivateKey
        public var account: Account

        public init(keyID: String, key: P256.Signing.PrivateKey, account: Account) {
            self.keyID = keyID
            self.key = key
            self.account = account
        }
    }

    /// The servers of one cloud (`http(s)://host:port`, without a path), in the order they are tried: several
    /// servers of one PostgreSQL database serve the same cloud.
    public let servers: [URL]
    /// The server requests go to now: the first, until it stops answering.
    public var server: URL { servers[currentServer.withLockedValue { $0 }] }
    private let currentServer = NIOLockedValueBox(0)
    public let container: String
    public let environment = "production"
    public let credentials: Credentials
    let client: HTTPClient
    /// How long a request may take before it counts as a network failure.
    let timeout: TimeAmount
    /// Until when each server, having left a request unanswered until its deadline, is not waited on again
    /// (uptime nanoseconds): a server that accepts connections and never answers would otherwise cost every
    /// request of a round its whole deadline, and a command or the front end's top line minutes.
    let silentUntil = NIOLockedValueBox<[Int: UInt64]>([:])
    /// How long a server that did not answer is taken for down before it is asked again.
    static let silence: UInt64 = 10_000_000_000
    /// The cloud the last answer came from, and when: what `identity()` says for a second after.
    private let lastIdentity = NSLock()
    private var _lastIdentity: (identity: CloudIdentity, at: UInt64)?
    let readAhead = PageReadAhead<ZonePage>()
    /// Hears each exchange's path, duration and status (0 when it failed in transport), for measurements.
    let observer: (@Sendable (_ path: String, _ seconds: Double, _ status: Int) -> Void)?

    /// - Parameter trustRoots: a PEM file of certificates to trust for HTTPS besides the system's (a server with a
    ///   private CA); the server's certificate is always verified.
    public convenience init(server: URL, container: String = LocalCloud.defaultContainer, credentials: Credentials,
                            timeout: TimeInterval = 30, trustRoots: String? = ProcessInfo.processInfo.environment["CLOUDNOTES_CA_FILE"],
                            observer: (@Sendable (_ path: String, _ seconds: Double, _ status: Int) -> Void)? = nil) {
        self.init(servers: [server], container: container, credentials: credentials, timeout: timeout, trustRoots: trustRoots,
                  observer: observer)
    }

    /// - Parameter servers: at least one.
    public init(servers: [URL], container: String = LocalCloud.defaultContainer, credentials: Credentials, timeout: TimeInterval = 30,
                trustRoots: String? = ProcessInfo.processInfo.environment["CLOUDNOTES_CA_FILE"],
                observer: (@Sendable (_ path: String, _ seconds: Double, _ status: Int) -> Void)? = nil) {
        precondition(!servers.isEmpty, "a remote cloud needs a server")
        self.servers = servers
        self.container = container
        self.credentials = credentials
        self.observer = observer
        self.timeout = .milliseconds(Int64(timeout * 1000))
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: self.timeout)
        // A server that refuses connections is down now: say so at once (the sync core retries with its back-off).
        configuration.connectionPool.retryConnectionEstablishment = false
        // A connection left idle is let go before the server's idle timeout (15 s) closes it: a request is never sent
        // on one the server is closing.
        configuration.connectionPool.idleTimeout = .seconds(10)
        if let trustRoots, !trustRoots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(trustRoots)
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    // (A deinit has nobody to tell; the connections end with the client.)
    deinit { try? client.syncShutdown() }

    // MARK: Transport

    /// Sends one operation and decodes its answer; the server's errors come back as the `CloudError`s they were.
    func call<Answer: Decodable>(_ scope: DatabaseScope?, _ operation: String, _ body: some Encodable,
                                 as: Answer.Type = Answer.self, deadline: TimeAmount? = nil) throws(CloudError) -> Answer {
        let path = WirePath(container: container, environment: environment, scope: scope, operation: operation).path
        let data: Data
        do {
            data = try WireJSON.encode(body)
        } catch {
            throw .invalidArguments("cannot write the request: \(error)")
        }
        let (status, answer) = try send(path: path, body: data, signed: true, deadline: deadline)
        guard status == 200 else { throw Self.error(status: status, body: answer) }
        do {
            return try WireJSON.decode(Answer.self, from: answer)
        } catch {
            throw .storage("the server's answer to \(operation) is not the protocol's: \(error)")
        }
    }

    /// One HTTP exchange; transport failures are the transient errors of an unreachable cloud. `started` hears
    /// of the exchange under way (a long poll cancels it when its subscription ends).
    ///
    /// A server that cannot be reached is left for the next, at once (nothing reached it, so nothing is sent
    /// twice); one that stops answering mid-exchange is left for the next request (this one may have been done:
    /// its caller retries, as after any lost answer).
    func send(path: String, query: String? = nil, method: HTTPMethod = .POST, body: Data, signed: Bool,
              deadline: TimeAmount? = nil, started: (HTTPClient.Task<HTTPClient.Response>) -> Void = { _ in }) throws(CloudError) -> (status: Int, body: Data) {
        var tries = 0
        while true {
            let index = currentServer.withLockedValue { $0 }
            var neverReached = false
            let result = Result { () throws(CloudError) in
                // Nothing goes to a server that just left a request unanswered: it reads as not answering now.
                if let until = silentUntil.withLockedValue({ $0[index] }), DispatchTime.now().uptimeNanoseconds < until {
                    neverReached = true
                    throw .networkFailure
                }
                do throws(CloudError) {
                    return try exchange(servers[index], path: path, query: query, method: method, body: body, signed: signed,
                                        deadline: deadline, started: started, neverReached: &neverReached)
                } catch {
                    if error == .networkFailure {
                        silentUntil.withLockedValue { $0[index] = DispatchTime.now().uptimeNanoseconds + Self.silence }
                    }
                    throw error
                }
            }
            guard case .failure(let error) = result, servers.count > 1,
                  error == .networkUnavailable || error == .networkFailure || error.code == "untrustedServer" else { return try result.get() }
            currentServer.withLockedValue { if $0 == index { $0 = (index + 1) % servers.count } }
            tries += 1
            guard neverReached, tries < servers.count else { throw error }
        }
    }

    private func exchange(_ server: URL, path: String, query: String?, method: HTTPMethod, body: Data, signed: Bool,
                          deadline: TimeAmount?, started: (HTTPClient.Task<HTTPClient.Response>) -> Void,
                          neverReached: inout Bool) throws(CloudError) -> (status: Int, body: Data) {
        var url = server.absoluteString + path
        if let query { url += "?" + query }
        let began = DispatchTime.now().uptimeNanoseconds
        var status = 0
        defer { observer?(path, Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9, status) }
        do {
            var headers = HTTPHeaders([("Content-Type", "application/json")])
            if signed {
                for (name, value) in try RequestSignature.headers(keyID: credentials.keyID, key: credentials.key, date: Date(), body: body, path: path) {
                    headers.add(name: name, value: value)
                }
            }
            let request = try HTTPClient.Request(url: url, method: method, headers: headers, body: method == .GET ? nil : .bytes(body))
            let task = client.execute(request: request, delegate: ResponseAccumulator(request: request), deadline: .now() + (deadline ?? timeout))
            started(task)
            let response = try task.futureResult.wait()
            status = Int(response.status.code)
            if let header = response.headers.first(name: CloudIdentityHeader.name), let identity = CloudIdentityHeader.parse(header) {
                lastIdentity.withLock { _lastIdentity = (identity, DispatchTime.now().uptimeNanoseconds) }
            }
            return (status, response.body.map { Data($0.readableBytesView) } ?? Data())
        } catch let error as HTTPClientError where error == .readTimeout || error == .deadlineExceeded {
            throw .networkFailure
        } catch let error as NIOSSLError {
            neverReached = true  // (the handshake failed: no request went)
            throw .untrustedServer("\(server.absoluteString): \(error)")
        } catch let error as BoringSSLError {
            neverReached = true
            throw .untrustedServer("\(server.absoluteString): \(error)")
        } catch {
            neverReached = Self.neverReached(error)
            throw .networkUnavailable
        }
    }

    /// Whether a transport failure happened before any of the request could reach the server (no connection
    /// was made), so sending it elsewhere cannot do it twice.
    private static func neverReached(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let error = error as? HTTPClientError, error == .connectTimeout { return true }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        if let error = error as? IOError { return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode) }
        return false
    }

    static func error(status: Int, body: Data) -> CloudError {
        guard let wire = try? WireError(json: JSON(parsing: body)) else {
            return status >= 500 ? .serviceUnavailable(retryAfter: 1) : .invalidArguments("the server answered \(status)")
        }
        return wire.cloudError
    }

    /// Anything the protocol's own operations answer.
    func ask(_ scope: DatabaseScope?, _ operation: String, deadline: TimeAmount? = nil,
             _ fill: (inout CallRequest) -> Void = { _ in }) throws(CloudError) -> CallResponse {
        var request = CallRequest()
        fill(&request)
        return try call(scope, operation, request, deadline: deadline)
    }

    func missing(_ key: String, in operation: String) -> CloudError {
        .storage("the server's answer to \(operation) has no \(key)")
    }

    // MARK: Which cloud, which people

    /// The cloud's identity: as the last answer (under a second old) named it, else asked. The sync core checks it
    /// before each fetch and send, and again before anything a fetch would delete, which always follows an answer.
    public func identity() throws(CloudError) -> CloudIdentity {
        let now = DispatchTime.now().uptimeNanoseconds
        if let recent = lastIdentity.withLock({ _lastIdentity }), recent.at > now || now - recent.at < 1_000_000_000 { return recent.identity }
        // The first request of every round, and a small one: a server that cannot answer it in a few seconds is
        // not answering (the round says offline, and the front end's top line leaves "synced", in seconds).
        guard let identity = try ask(.private, "cloud/identity", deadline: Self.lookupDeadline).identity else {
            throw missing("identity", in: "cloud/identity")
        }
        return identity
    }

    public func restoreAccount(_ account: Account) throws(CloudError) -> Account {
        guard let user = try ask(.private, "users/restore").users?.first else { throw missing("users", in: "users/restore") }
        return user.account
    }

    public func account(named name: String) throws(CloudError) -> Account {
        guard let user = try ask(.private, "users/lookup/name", { $0.accountName = name }).users?.first else { throw .unknownAccount(name) }
        return user.account
    }

    public func account(email: String) throws(CloudError) -> Account? {
        let answer: UsersResponse = try call(.private, "users/lookup/email", UsersLookupRequest(users: [.init(emailAddress: email)]))
        return answer.users.first?.account
    }

    public func account(id: String) throws(CloudError) -> Account? {
        try ask(.private, "users/lookup/id", deadline: Self.lookupDeadline, { $0.userRecordName = id }).users?.first?.account
    }

    public func accounts() throws(CloudError) -> [Account] {
        (try ask(.private, "users/list", deadline: Self.lookupDeadline).users ?? []).map(\.account)
    }

    /// Small questions asked before or beside a round (the cloud's identity, people's names): a server that cannot
    /// answer one in a few seconds is not answering, and is not waited on for a whole request's deadline.
    static let lookupDeadline = TimeAmount.seconds(5)

    // MARK: Shares by URL, the inbox

    public func fetchShareMetadata(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata {
        try resolve(url, accept: false)
    }

    public func acceptShare(_ url: ShareURL, as caller: Account) throws(CloudError) -> ShareMetadata {
        try resolve(url, accept: true)
    }

    private func resolve(_ url: ShareURL, accept: Bool) throws(CloudError) -> ShareMetadata {
        let operation = accept ? "records/accept" : "records/resolve"
        let answer: ShortGUIDsResponse = try call(.shared, operation, ShortGUIDsRequest(shortGUIDs: [.init(value: url.shortGUID)]))
        guard let result = answer.results.first else { throw missing("results", in: operation) }
        if let error = result.error { throw error.cloudError }
        guard let metadata = result.metadata else { throw missing("metadata", in: operation) }
        return metadata
    }

    public func requestAccess(_ url: ShareURL, as caller: Account) throws(CloudError) {
        _ = try ask(.shared, "shares/requestAccess") { $0.shortGUID = url.shortGUID }
    }

    public func invitations(for caller: Account) throws(CloudError) -> [InboxInvitation] {
        try ask(.shared, "invitations/list").invitations ?? []
    }

    public func acceptInvitation(_ id: String, as caller: Account) throws(CloudError) -> ShareMetadata {
        guard let metadata = try ask(.shared, "invitations/accept", { $0.invitationID = id }).metadata else {
            throw missing("metadata", in: "invitations/accept")
        }
        return metadata
    }

    public func declineInvitation(_ id: String, as caller: Account) throws(CloudError) {
        _ = try ask(.shared, "invitations/decline") { $0.invitationID = id }
    }

    public func accessRequests(ownedBy owner: Account) throws(CloudError) -> [OwnedShareRequest] {
        try ask(.private, "requests/list").ownedRequests ?? []
    }
}

extension RemoteCloud {
    /// Trades an operator's one-time code for the registration of a device's public key (`devices/enrol`); the
    /// device signs every request with the private half from then on.
    public static func enrol(server: URL, container: String = LocalCloud.defaultContainer, code: String,
                             key: P256.Signing.PrivateKey, deviceName: String) throws(CloudError) -> Credentials {
        let enrolled: EnrolledDevice = try unsigned(server: server, container: container, operation: "devices/enrol", code: code, key: key,
                                                    name: deviceName)
        return Credentials(keyID: enrolled.keyID, key: key, account: enrolled.user.account)
    }

    /// The account of a caller that is none (an operator; a device not yet enrolled).
    static let nobody = Account(id: "", name: "", email: "", createdAt: Date(timeIntervalSince1970: 0))

    /// An enrolment (`devices/enrol`, `operators/enrol`: the unsigned operations): a code for the registration of
    /// `key`'s public half.
    static func unsigned<Answer: Decodable>(server: URL, container: String, operation: String, code: String, key: P256.Signing.PrivateKey,
                                            name: String) throws(CloudError) -> Answer {
        let body: Data
        do {
            body = try JSONEncoder().encode(["code": code, "publicKey": key.publicKey.derRepresentation.base64EncodedString(), "deviceName": name])
        } catch {
            throw .invalidArguments("cannot write the enrolment: \(error)")
        }
        let unsigned = RemoteCloud(server: server, container: container, credentials: Credentials(keyID: "", key: key, account: nobody))
        let path = WirePath(container: container, scope: nil, operation: operation).path
        let (status, answer) = try unsigned.send(path: path, body: body, signed: false)
        guard status == 200 else { throw error(status: status, body: answer) }
        guard let enrolled = try? JSONDecoder().decode(Answer.self, from: answer) else {
            throw .storage("the server's answer to \(operation) is not the protocol's")
        }
        return enrolled
    }
}
