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
    }

    private struct Waiter {
        let topics: Set<PushTopic>
        let since: Int64
        let answer: @Sendable ([Push]) -> Void
    }

    private let cloud: LocalCloud
    private let random: any RandomSource
    private let lock = NSLock()
    private var tokens: [String: Token] = [:]
    private var waiters: [UUID: Waiter] = [:]
    private var latest: [PushTopic: Int64] = [:]
    private var watch: (any PushWatch)?

    init(cloud: LocalCloud, random: any RandomSource) {
        self.cloud = cloud
        self.random = random
    }

    func run() async throws {
        watch = cloud.subscribeToEveryTopic { [weak self] push in self?.posted(push) }
        try? await gracefulShutdown()
        stop()
    }

    func stop() {
        watch?.cancel()
        let all = lock.withLock {
            defer { waiters = [:] }
            return waiters.values.map(\.answer)
        }
        for answer in all { answer([]) }
    }

    /// A new notification token for an account's private and shared databases (CloudKit's `tokens/create`).
    func makeToken(for account: Account) -> String {
        let token = random.hex(bytes: 16)
        lock.withLock { tokens[token] = Token(account: account.id, topics: [.database(.private, of: account.id), .database(.shared, of: account.id)]) }
        return token
    }

    func token(_ id: String) -> Token? { lock.withLock { tokens[id] } }

    /// Answers with the pushes after `since` to the token's topics: at once when some are known, else at the
    /// next one, else (empty, a keep-alive) after `timeout`.
    func poll(_ token: Token, since: Int64, timeout: TimeInterval) async -> [Push] {
        let known = (try? cloud.lastPushes(to: token.topics)) ?? [:]
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let once = Once(continuation)
            // Checked and registered under one lock: a push that lands between the two cannot be missed.
            let missed = lock.withLock { () -> [Push] in
                for (topic, sequence) in known where sequence > latest[topic, default: 0] { latest[topic] = sequence }
                let missed = token.topics.compactMap { topic in latest[topic].flatMap { $0 > since ? Push(topic: topic, sequence: $0) : nil } }
                if missed.isEmpty { waiters[id] = Waiter(topics: token.topics, since: since, answer: once.resume) }
                return missed
            }
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
            let ready = waiters.filter { $0.value.topics.contains(push.topic) && push.sequence > $0.value.since }
            for id in ready.keys { waiters[id] = nil }
            return ready.values.map(\.answer)
        }
        for answer in woken { answer([push]) }
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
