import Cloud
import CloudWire
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOPosix

/// One request, from bytes in to bytes out: health, long polls, enrolment, then who is calling, the rate limit,
/// and the protocol's operations (answered by `WireService` on the server's work threads).
final class RequestHandler: @unchecked Sendable {
    private let cloud: LocalCloud
    private let configuration: CloudServer.Configuration
    private let hub: PushHub
    private let logger: Logger
    private let service: WireService
    private let authenticator: Authenticator
    private let limiter: RateLimiter
    /// Keys told to wait, refused before their signature is checked.
    private let waiting = Waiting()
    /// Each account's requests under way, by kind (`CloudServer.Configuration.inFlightReads`…).
    private let reads: InFlight, writing: InFlight, queries: InFlight
    /// Enrolments by address.
    private let enrolments: RateLimiter
    /// The cloud's calls run here, off the event loops. Not on Dispatch's pool: it adds threads slowly past the
    /// cores while its workers block, and requests queued behind the few waiting on PostgreSQL's answers.
    private let work: NIOThreadPool
    /// The operations that write run here: waiting for the writers' lock, they hold none of `work`'s threads.
    private let writes: NIOThreadPool
    private let lock = NSLock()
    private var _baseURL = ""
    /// Where clients reach this server, for the notification URLs it hands out.
    var baseURL: String {
        get { lock.withLock { _baseURL } }
        set { lock.withLock { _baseURL = newValue } }
    }

    init(cloud: LocalCloud, configuration: CloudServer.Configuration, hub: PushHub, work: NIOThreadPool, writes: NIOThreadPool,
         logger: Logger) {
        self.cloud = cloud
        self.work = work
        self.writes = writes
        self.configuration = configuration
        self.hub = hub
        self.logger = logger
        service = WireService(cloud: cloud, storageFailed: { uuid, failure in
            logger.error("the cloud's store failed", metadata: ["uuid": "\(uuid)", "why": "\(failure)"])
        })
        authenticator = Authenticator(cloud: cloud)
        limiter = RateLimiter(rate: configuration.rate, burst: configuration.burst)
        reads = InFlight(limit: configuration.inFlightReads)
        writing = InFlight(limit: configuration.inFlightWrites)
        queries = InFlight(limit: configuration.inFlightQueries)
        enrolments = RateLimiter(rate: configuration.enrolmentRate, burst: configuration.enrolmentBurst)
    }

    func respond(to request: Request, from peer: String, connection: ConnectionState? = nil) async -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        var request = request
        let path = request.uri.path
        var account: String?
        let response: Response
        do {
            (response, account) = try await route(&request, path: path, peer: peer, connection: connection)
        } catch {
            // The detail stays in the log: it may name files or SQL.
            logger.error("failed", metadata: ["path": "\(Self.logged(path))", "error": "\(error)"])
            response = reply(service.failure(WireError(uuid: UUID().uuidString.lowercased(), serverErrorCode: "INTERNAL_ERROR",
                                                       reason: "the server could not answer this request")))
        }
        var metadata: Logger.Metadata = [
            "method": "\(request.method)", "path": "\(Self.logged(path))", "status": "\(response.status.code)",
            "ms": "\(String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6))",
        ]
        if let account { metadata["account"] = "\(account)" }
        logger.info("request", metadata: metadata)
        return response
    }

    private func route(_ request: inout Request, path: String, peer: String, connection: ConnectionState?) async throws -> (Response, String?) {
        if path == "/healthz" { return (Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n"))), nil) }
        if path.hasPrefix("/notifications/") { return (await poll(request, token: String(path.dropFirst("/notifications/".count))), nil) }
        guard let wirePath = WirePath(parsing: path) else {
            return (reply(service.failure(WireError(uuid: uuid(), serverErrorCode: "NOT_FOUND", reason: "no such path: \(path)"))), nil)
        }
        let body: Data
        do {
            body = Data(try await request.collectBody(upTo: configuration.maxBodyBytes).readableBytesView)
        } catch {
            return (reply(service.failure(WireError(.limitExceeded("a request body holds at most \(configuration.maxBodyBytes / 1024 / 1024) MB"), uuid: uuid()))), nil)
        }
        if wirePath.operation == "devices/enrol" || wirePath.operation == "operators/enrol" {
            // Unsigned, so limited by where they come from: guessing codes is slow, and costs others nothing.
            if let wait = enrolments.wait(for: peer) {
                return (reply(service.failure(WireError(.requestRateLimited(retryAfter: wait), uuid: uuid()))), nil)
            }
            return (await enrol(body, operator: wirePath.operation == "operators/enrol"), nil)
        }
        let headers = Dictionary(request.headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { a, _ in a })
        let query = request.uri.query
        if wirePath.operation.hasPrefix("operator/") {
            // An operator's key, and only one, opens the console's commands.
            let keyID: String
            switch await authenticate(path, { try self.authenticator.operatorCaller(headers: headers, path: path, query: query, body: body) }) {
            case .success(let key): keyID = key
            case .failure(let refusal): return (refusal.response, nil)
            }
            let answer = await run({ self.service.handleOperator(wirePath, body: body) }, stopping: stopping())
            logger.notice("operator", metadata: ["path": "\(Self.logged(path))", "key": "\(keyID)", "status": "\(answer.status)"])
            return (reply(answer), "operator " + keyID)
        }
        // Who calls, the rate limit and the operation in one turn on a work thread: each turn is two thread
        // switches there and back, on every request.
        let clientLeft: @Sendable () -> Bool = { connection?.hasLeft ?? false }
        let outcome = await run(on: wirePath.onlyReads ? work : writes, { () -> Outcome in
            // Queued behind others while its client hung up: nobody would read the answer.
            guard !clientLeft() else { return .abandoned }
            let key = headers[RequestSignature.keyIDHeader.lowercased()]
            if let key, let wait = self.waiting.wait(key) { return .held(wait: wait) }
            let authenticated: Authenticator.Caller
            do {
                authenticated = try self.authenticator.caller(headers: headers, path: path, query: query, body: body)
            } catch {
                return .refused(error)
            }
            let account = authenticated.account.id
            func limited(_ wait: TimeInterval) -> Outcome {
                if let key { self.waiting.hold(key, for: wait) }
                return .limited(authenticated, wait: wait)
            }
            if let wait = self.limiter.wait(for: account) { return limited(wait) }
            guard wirePath.operation != "tokens/create" else { return .wantsToken(authenticated) }
            let kinds = [wirePath.onlyReads ? self.reads : self.writing] + (wirePath.operation == "records/query" ? [self.queries] : [])
            var entered: [InFlight] = []
            defer { for kind in entered { kind.leave(account) } }
            for kind in kinds {
                guard kind.enter(account) else { return limited(Self.busyRetryAfter) }
                entered.append(kind)
            }
            let started = Self.threadProcessorTime()
            let (answer, identity) = self.answer(wirePath, body: body, as: authenticated, clientLeft: clientLeft)
            let work = Self.threadProcessorTime() - started - self.configuration.freeWork
            if work > 0 {
                let cost = work * self.configuration.rate / self.configuration.workShare
                self.limiter.charge(account, cost)
                // Why an account is told to wait though it sent few requests: the operator reads it here.
                self.logger.notice("charged", metadata: [
                    "account": "\(account)", "path": "\(Self.logged(path))",
                    "cpuMs": "\(String(format: "%.1f", (work + self.configuration.freeWork) * 1000))", "requests": "\(Int(cost.rounded()))",
                ])
            }
            return .answered(authenticated, answer, identity)
        }, stopping: .stopped)
        switch outcome {
        case .stopped:
            return (reply(stopping()), nil)
        case .abandoned:
            return (reply(service.failure(WireError(.networkFailure, uuid: uuid()))), nil)
        case .held(let wait):
            // Back before it was told: answered no sooner than the wait's end (at most a few seconds), on no thread,
            // so a client that ignores THROTTLED sends no faster than one that honours it.
            // (Cancelled only when the server stops: the refusal then goes out sooner.)
            try? await Task.sleep(for: .seconds(min(wait, Self.longestHold)))
            return (reply(service.failure(WireError(.requestRateLimited(retryAfter: 0), uuid: uuid()))), nil)
        case .refused(let error):
            return (refusal(path, error).response, nil)
        case .limited(let caller, let wait):
            return (reply(service.failure(WireError(.requestRateLimited(retryAfter: wait), uuid: uuid()))), caller.account.id)
        case .wantsToken(let caller):
            return (await notificationToken(for: caller, reached: request.head.authority), caller.account.id)
        case .answered(let caller, let answer, let identity):
            var response = reply(answer)
            // Which cloud answered (checked against the file's high-water mark, as the identity operation does): a
            // device need not ask for it in a request of its own before each fetch and send.
            if let identity { response.headers[.cloudIdentity] = "\(identity.id) \(identity.sequence)" }
            return (response, caller.account.id)
        }
    }

    /// `tokens/create`: a notification token for the caller's long polls, its request's signature recorded as a
    /// write's is (replayed to another server, it must not hand out a token that hears this account's changes).
    /// - Parameter authority: the host the client reached this server by (a proxy's, say), for the token's URL.
    private func notificationToken(for caller: Authenticator.Caller, reached authority: String?) async -> Response {
        let served = ServedRequest(signature: caller.signature)
        do {
            try await run(on: writes) { try served.answering { try self.cloud.recordServedSignature() } }
        } catch {
            return reply(service.failure(service.wireError(error as? CloudError ?? .serviceUnavailable(retryAfter: 1))))
        }
        let token = hub.makeToken(for: caller)
        let base = authority.map { "\(baseURL.hasPrefix("https") ? "https" : "http")://\($0)" } ?? baseURL
        return json(["webcourierURL": "\(base)/notifications/\(token)", "apnsToken": token])
    }

    /// The processor time this thread has used, in seconds: a request's work, not its waits (for the writers'
    /// lock, for PostgreSQL's answers), which cost the server nothing.
    static func threadProcessorTime() -> TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return TimeInterval(now.tv_sec) + TimeInterval(now.tv_nsec) / 1e9
    }

    /// How long an account at its limit of requests under way is told to wait: about what one takes.
    static let busyRetryAfter: TimeInterval = 0.5
    /// The longest a request sent before its key's wait ended is held before its answer.
    static let longestHold: TimeInterval = 3

    /// How a signed caller's request went on its work thread.
    private enum Outcome: Sendable {
        /// The server is too far into stopping to run it.
        case stopped
        /// Its client hung up while it waited for a thread: not run.
        case abandoned
        /// Its key was told to wait and has not: refused before its signature was checked.
        case held(wait: TimeInterval)
        /// Not authenticated.
        case refused(any Error)
        /// Past the caller's account's limit: refused, to try after `wait` seconds.
        case limited(Authenticator.Caller, wait: TimeInterval)
        /// Authenticated, asking for a notification token (`tokens/create`: `notificationToken`).
        case wantsToken(Authenticator.Caller)
        /// Answered, with the cloud's identity as the answer's transactions saw it.
        case answered(Authenticator.Caller, WireService.Answer, CloudIdentity?)
    }

    /// The operation's answer, its writes recording the request's signature where it has one, and the cloud's
    /// identity as its transactions saw it.
    private func answer(_ path: WirePath, body: Data, as caller: Authenticator.Caller,
                        clientLeft: @escaping @Sendable () -> Bool) -> (WireService.Answer, CloudIdentity?) {
        let served = ServedRequest(signature: caller.signature, deadline: Date() + configuration.requestTimeout, clientLeft: clientLeft)
        let answer = served.answering { service.handle(path, body: body, caller: caller.account) }
        // (Unknown now: the header is left off, and a client that needs it asks cloud/identity, which says why.)
        return (answer, try? cloud.identity(answering: served))
    }

    /// Who a request is from, as `check` finds it; else the answer that refuses it, alike whatever failed (the
    /// log says what), but "try again later" for one dated before the server started.
    private func authenticate<Caller: Sendable>(_ path: String, _ check: @escaping @Sendable () throws -> Caller) async -> Result<Caller, Refused> {
        do {
            return .success(try await run(check))
        } catch {
            return .failure(refusal(path, error))
        }
    }

    /// The answer to a caller who could not be authenticated: dated before this server started, try later; the
    /// cloud's store failing to say who the key is (a `CloudError`: the authenticator's own refusals are not
    /// one), not the caller's fault, so never "signed out", which would stop a device syncing: try later when
    /// the store is away, else an internal error that says nothing of the store; otherwise refused (why stays
    /// in the log).
    private func refusal(_ path: String, _ error: any Error) -> Refused {
        if let later = error as? Authenticator.DatedBeforeStart {
            return Refused(response: reply(service.failure(WireError(.serviceUnavailable(retryAfter: later.wait), uuid: uuid()))))
        }
        if let failure = error as? CloudError {
            logger.notice("not authenticated: the store failed", metadata: ["path": "\(Self.logged(path))", "why": "\(failure)"])
            if case .serviceUnavailable(let wait) = failure {
                return Refused(response: reply(service.failure(WireError(.serviceUnavailable(retryAfter: wait), uuid: uuid()))))
            }
            return Refused(response: reply(service.failure(WireError(uuid: uuid(), serverErrorCode: "INTERNAL_ERROR",
                                                                     reason: "the server could not check who is calling"))))
        }
        logger.notice("refused", metadata: ["path": "\(Self.logged(path))", "why": "\(error)"])
        return Refused(response: reply(service.failure(.authenticationFailed(uuid: uuid()))))
    }

    private struct Refused: Error {
        let response: Response
    }

    /// `devices/enrol` and `operators/enrol`, unsigned: a code an operator made trades for the registration of a
    /// device's public key (for the code's account), or of an operator's.
    private func enrol(_ body: Data, operator: Bool) async -> Response {
        struct Enrolment: Decodable {
            var code: String
            var publicKey: String
            var deviceName: String
        }
        do {
            let request = try JSONDecoder().decode(Enrolment.self, from: body)
            guard let key = Data(base64Encoded: request.publicKey) else { throw CloudError.invalidArguments("publicKey is base64 DER") }
            if `operator` {
                let registered = try await run { try self.cloud.enrolOperator(code: request.code, publicKey: key, name: request.deviceName) }
                return json(["keyID": registered.keyID])
            }
            let (account, device) = try await run { try self.cloud.enrol(code: request.code, publicKey: key, deviceName: request.deviceName) }
            return reply(WireService.Answer(status: 200, body: try JSONEncoder().encode(
                EnrolledDevice(keyID: device.keyID, user: WireUser(account)))))
        } catch let error as CloudError {
            return reply(service.failure(service.wireError(error)))
        } catch {
            return reply(service.failure(WireError(uuid: uuid(), serverErrorCode: "BAD_REQUEST", reason: "an enrolment is {code, publicKey, deviceName}")))
        }
    }

    /// A long poll on a notification URL: the pushes after the cursors `since.private` and `since.shared` (query
    /// parameters, the last commit the client heard of on each), or an empty keep-alive.
    private func poll(_ request: Request, token: String) async -> Response {
        // A token works while what made it does: a device revoked since hears nothing more. Checked, and the last
        // pushes read, in one turn on a work thread: both wait for the store, which Swift's shared threads must not.
        // A store that cannot say (away) is an answer to try again, the token kept: not its end.
        let gone = reply(service.failure(WireError(uuid: uuid(), serverErrorCode: "NOT_FOUND", reason: "no such notification token (create another)")))
        guard let subscription = hub.token(token) else { return gone }
        let checked = await run({
            Result { () throws(CloudError) -> [PushTopic: Int64]? in
                try self.authenticator.isLive(subscription.credential) ? try self.hub.lastPushes(to: subscription) : nil
            }
        }, stopping: .success(nil))
        let known: [PushTopic: Int64]
        switch checked {
        case .failure(let error): return reply(service.failure(service.wireError(error)))
        case .success(nil):
            hub.forget(token)
            return gone
        case .success(let pushes?): known = pushes
        }
        var since: [String: Int64] = [:]
        for (name, value) in Authenticator.parameters(request.uri.query) where name.hasPrefix("since.") {
            since[String(name.dropFirst("since.".count))] = Int64(value)
        }
        let pushes = await hub.poll(subscription, since: since, known: known, timeout: configuration.pollTimeout)
        let notices = pushes.map { push in ["database": PushHub.database(of: push.topic), "sequence": "\(push.sequence)"] }
        return json(["pushes": notices])
    }

    private func run<T: Sendable>(on pool: NIOThreadPool? = nil, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await (pool ?? work).runIfActive(body)
    }

    /// A call that cannot fail but for the pool being shut down (the server is stopping): then `stopping`.
    private func run<T: Sendable>(on pool: NIOThreadPool? = nil, _ body: @escaping @Sendable () -> T, stopping: T) async -> T {
        (try? await (pool ?? work).runIfActive(body)) ?? stopping
    }

    /// The answer to a request the server is too far into stopping to run.
    private func stopping() -> WireService.Answer {
        service.failure(WireError(.serviceUnavailable(retryAfter: 1), uuid: uuid()))
    }

    private func reply(_ answer: WireService.Answer) -> Response {
        Response(status: .init(code: answer.status), headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    private func json(_ value: some Encodable) -> Response {
        // (The answers passed here are strings and numbers: encoding cannot fail.)
        reply(WireService.Answer(status: 200, body: (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)))
    }

    private func uuid() -> String { UUID().uuidString.lowercased() }

    /// A path as logged: a notification token is a credential, so it is left out.
    static func logged(_ path: String) -> String {
        path.hasPrefix("/notifications/") ? "/notifications/…" : path
    }
}

extension HTTPField.Name {
    static let cloudIdentity = HTTPField.Name(CloudIdentityHeader.name)!
}
