import Cloud
import Foundation
import ServiceLifecycle

/// Holds long polls open until a commit posts to one of their topics. The server's one subscription to the cloud
/// directory feeds it; a client's notification token says which topics (its account's databases) it waits on.
///
/// It runs as a service of the server's: when shutdown begins it answers every open poll (empty), so a graceful
/// shutdown waits for no poll's timeout.
final class PushHub: Service, @unchecked Sendable {
    struct Token {
        let account: String
        let topics: Set<PushTopic>
        /// What made it: it works while that does.
        let credential: Authenticator.Credential
        var lastPolled: Date
    }

    /// A token not polled for this long is forgotten (its client makes another); a credential holds at most
    /// `tokensPerCredential` (the oldest go).
    static let idleLifetime: TimeInterval = 600
    static let tokensPerCredential = 8

    private struct Waiter {
        /// Each topic waited on, with the last commit its client heard of there.
        let since: [PushTopic: Int64]
        let answer: @Sendable ([Push]) -> Void
    }

    private let cloud: LocalCloud
    private let random: any RandomSource
    private let lock = NSLock()
    private var tokens: [String: Token] = [:]
    private var waiters: [UUID: Waiter] = [:]
    private var latest: [PushTopic: Int64] = [:]
    private var watch: (any PushWatch)?
    private var stopped = false

    init(cloud: LocalCloud, random: any RandomSource) {
        self.cloud = cloud
        self.random = random
    }

    func run() async throws {
        watch = cloud.subscribeToEveryTopic { [weak self] push in self?.posted(push) }
        // (Throws only when cancelled: either way the hub stops below.)
        try? await gracefulShutdown()
        stop()
    }

    func stop() {
        watch?.cancel()
        let all = lock.withLock {
            stopped = true  // polls that arrive after are answered at once
            defer { waiters = [:] }
            return waiters.values.map(\.answer)
        }
        for answer in all { answer([]) }
    }

    /// A new notification token for an account's private and shared databases (CloudKit's `tokens/create`).
    func makeToken(for caller: Authenticator.Caller, now: Date = Date()) -> String {
        let token = random.hex(bytes: 16)
        let id = caller.account.id
        lock.withLock {
            tokens = tokens.filter { now.timeIntervalSince($0.value.lastPolled) < Self.idleLifetime }
            let same = tokens.filter { $0.value.credential == caller.credential }.sorted { $0.value.lastPolled < $1.value.lastPolled }
            for old in same.prefix(max(0, same.count - Self.tokensPerCredential + 1)) { tokens[old.key] = nil }
            tokens[token] = Token(account: id, topics: [.database(.private, of: id), .database(.shared, of: id)],
                                  credential: caller.credential, lastPolled: now)
        }
        return token
    }

    /// The token, if it is one, noted as polled now.
    func token(_ id: String, now: Date = Date()) -> Token? {
        lock.withLock {
            tokens[id]?.lastPolled = now
            return tokens[id]
        }
    }

    /// Forgets a token whose credential no longer works.
    func forget(_ id: String) { lock.withLock { tokens[id] = nil } }

    /// The last commit pushed to each of the token's topics, as the store knows them (other servers' included):
    /// a storage read, for a work thread. A store that cannot say fails the poll (the client asks again), rather
    /// than wait only on this server's pushes and miss what other servers committed.
    func lastPushes(to token: Token) throws(CloudError) -> [PushTopic: Int64] {
        try cloud.lastPushes(to: token.topics)
    }

    /// Answers with the pushes to the token's topics after the commit its client last heard of on each (a cursor
    /// per topic: commits to different topics reach the hub in any order): at once when some are known (`known`:
    /// `lastPushes`, read just before), else at the next one, else (empty, a keep-alive) after `timeout`.
    func poll(_ token: Token, since: [String: Int64], known: [PushTopic: Int64], timeout: TimeInterval) async -> [Push] {
        let since = Dictionary(uniqueKeysWithValues: token.topics.map { topic in (topic, since[Self.database(of: topic)] ?? 0) })
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let once = Once(continuation)
            // Checked and registered under one lock: a push that lands between the two cannot be missed.
            let missed = lock.withLock { () -> [Push]? in
                guard !stopped else { return nil }
                for (topic, sequence) in known where sequence > latest[topic, default: 0] { latest[topic] = sequence }
                let missed = since.compactMap { topic, heard in latest[topic].flatMap { $0 > heard ? Push(topic: topic, sequence: $0) : nil } }
                if missed.isEmpty { waiters[id] = Waiter(since: since, answer: once.resume) }
                return missed
            }
            guard let missed else { return once.resume([]) }
            guard missed.isEmpty else { return once.resume(missed) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.lock.withLock { _ = self?.waiters.removeValue(forKey: id) }
                once.resume([])
            }
        }
    }

    private func posted(_ push: Push) {
        let woken = lock.withLock { () -> [@Sendable ([Push]) -> Void] in
            latest[push.topic] = max(latest[push.topic, default: 0], push.sequence)
            let ready = waiters.filter { waiter in waiter.value.since[push.topic].map { push.sequence > $0 } ?? false }
            for id in ready.keys { waiters[id] = nil }
            return ready.values.map(\.answer)
        }
        for answer in woken { answer([push]) }
    }
}

extension PushHub {
    /// The database a topic of the token covers, as the poll's answer and cursors name it (`private`, `shared`).
    static func database(of topic: PushTopic) -> String {
        topic.fileName.split(separator: ".").last.map(String.init) ?? topic.fileName
    }
}

/// Resumes a continuation once, whichever comes first (a push or the timeout).
private final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[Push], Never>?

    init(_ continuation: CheckedContinuation<[Push], Never>) { self.continuation = continuation }

    func resume(_ pushes: [Push]) {
        lock.withLock {
            continuation?.resume(returning: pushes)
            continuation = nil
        }
    }
}
