import Cloud
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Pushes between the servers of one database: a commit is `NOTIFY`'d on one channel (`SEQUENCE TOPIC…`), and
/// one connection per process `LISTEN`s while anyone subscribes, handing each push to the subscribers of its
/// topic. A listener that loses its connection connects again; what was missed meanwhile is in `push_topics`,
/// which clients that poll are told of (`LocalCloud.lastPushes`), as with files.
final class PostgresPushListener: @unchecked Sendable {
    static let channel = "cloudnotes_push"
    /// PostgreSQL refuses payloads of 8,000 bytes or more.
    private static let payloadLimit = 7_000

    private let pool: PostgresPool
    private let logger: Logger
    private let lock = NSCondition()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    /// The connection that listens now, while anyone subscribes; closing it ends the listening thread's wait.
    private var connection: PostgresConnection?
    private var listening = false
    /// Which listening thread is the current one (one that ends as another starts stops at its next look).
    private var generation = 0
    /// Whether the current thread's LISTEN is in place.
    private var ready = false

    private struct Subscriber {
        let topics: Set<PushTopic>?
        let handler: @Sendable (Push) -> Void
    }

    init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    func post(_ topics: Set<PushTopic>, sequence: Int64) {
        var payloads: [String] = []
        var payload = "\(sequence)"
        for topic in topics.map(\.fileName).sorted() {
            if payload.utf8.count + topic.utf8.count + 1 > Self.payloadLimit {
                payloads.append(payload)
                payload = "\(sequence)"
            }
            payload += " " + topic
        }
        payloads.append(payload)
        // Not waited for: the request that committed need not wait for its push, and the connection's next
        // statements queue behind these.
        do {
            try pool.with { connection in
                for payload in payloads {
                    var binds = PostgresBindings(capacity: 2)
                    binds.append(Self.channel)
                    binds.append(payload)
                    connection.queryAnswered(PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds), logger: logger)
                        .whenFailure { [logger] error in logger.warning("push not sent: \(error)") }
                }
            }
        } catch {
            // Harmless: subscribers that poll learn of it from push_topics.
            logger.warning("push not sent: \(error)")
        }
    }

    func subscribe(to topics: Set<PushTopic>?, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        lock.lock()
        nextID += 1
        let id = nextID
        subscribers[id] = Subscriber(topics: topics, handler: handler)
        if !listening {
            generation += 1
            listening = true
            ready = false
            let current = generation
            // Its own thread, not a task: callers block on the cloud's calls, and may hold every thread of the pool.
            let thread = Thread { [weak self] in self?.listen(generation: current) }
            thread.name = "cloudnotes-postgres-listen"
            thread.start()
        }
        // As with files, a commit made after `subscribe` returns is heard: wait (a while) for LISTEN.
        let deadline = Date() + 5
        while !ready && lock.wait(until: deadline) {}
        lock.unlock()
        return Watch { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: Int) {
        lock.lock()
        subscribers[id] = nil
        let ending = subscribers.isEmpty ? connection : nil
        if subscribers.isEmpty { listening = false }
        lock.unlock()
        ending?.close().whenComplete { _ in }
    }

    /// Listens while anyone subscribes, connecting again a second after the connection is lost.
    private func listen(generation: Int) {
        var stillListening: Bool { lock.withLock { listening && self.generation == generation } }
        while stillListening {
            do {
                let connection = try pool.connect()
                let current = lock.withLock {
                    guard self.generation == generation else { return false }
                    self.connection = connection
                    return true
                }
                defer {
                    // Closed whatever happened: a connection must be closed before it is dropped.
                    if !connection.isClosed { try? connection.close().wait() }
                    lock.withLock { if self.connection === connection { self.connection = nil } }
                }
                if current {
                    connection.addListener(channel: Self.channel) { [weak self] _, notification in self?.deliver(notification.payload) }
                    // Statements on one connection run in order: once this answers, LISTEN is in place.
                    _ = try connection.queryAnswered(PostgresQuery(unsafeSQL: "SELECT 1"), logger: logger).wait()
                    lock.withLock {
                        if self.generation == generation { ready = true }
                        lock.broadcast()
                    }
                    // (Ended, with an error or not: the loop connects again, and a failed connect is logged.)
                    if stillListening { try? connection.closeFuture.wait() }
                }
            } catch {
                logger.warning("push listener: \(error)")
            }
            if stillListening { Thread.sleep(forTimeInterval: 1) }
        }
    }

    private func deliver(_ payload: String) {
        let words = payload.split(separator: " ")
        guard let first = words.first, let sequence = Int64(first) else { return }
        let topics = words.dropFirst().map { PushTopic(fileName: String($0)) }
        lock.lock()
        let current = Array(subscribers.values)
        lock.unlock()
        for subscriber in current {
            for topic in topics where subscriber.topics?.contains(topic) ?? true {
                subscriber.handler(Push(topic: topic, sequence: sequence))
            }
        }
    }

    private final class Watch: PushWatch, @unchecked Sendable {
        private var onCancel: (() -> Void)?
        private let lock = NSCondition()

        init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }

        deinit { cancel() }

        func cancel() {
            let action = lock.withLock { () -> (() -> Void)? in
                defer { onCancel = nil }
                return onCancel
            }
            action?()
        }
    }
}
