import AsyncHTTPClient
import Cloud
import CloudWire
import Foundation

/// Pushes from a server: a notification URL (`tokens/create`, as CloudKit's `webcourierURL`) long-polled on a
/// thread of its own. Each answer carries the commits since the last one heard, or nothing (a keep-alive);
/// a server that stops answering is polled again with a growing back-off, and a forgotten token (the server
/// restarted) is replaced.
final class RemotePushes: PushWatch, @unchecked Sendable {
    private let cloud: RemoteCloud
    private let topics: Set<PushTopic>
    private let handler: @Sendable (Push) -> Void
    private let lock = NSLock()
    private var cancelled = false
    /// The poll under way, ended at once by `cancel`.
    private var poll: HTTPClient.Task<HTTPClient.Response>?

    init(cloud: RemoteCloud, topics: Set<PushTopic>, handler: @escaping @Sendable (Push) -> Void) {
        self.cloud = cloud
        self.topics = topics
        self.handler = handler
        // Held only for one pass at a time: the watch ends when cancelled or released.
        let thread = Thread { [weak self] in
            var poll = Poll()
            while let pushes = self, !pushes.isCancelled { pushes.pass(&poll) }
        }
        thread.name = "cloudnotes.pushes"
        thread.start()
    }

    func cancel() {
        let open = lock.withLock {
            cancelled = true
            return poll
        }
        open?.cancel()
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    private struct Token: Decodable { var webcourierURL: String }
    private struct Notices: Decodable {
        struct Notice: Decodable {
            var database: String
            var sequence: String
        }
        var pushes: [Notice]
    }

    /// Where the polling stands between passes.
    private struct Poll {
        var url: URL?
        /// The last commit heard of on each database: one cursor each, as commits reach the server in any order.
        var since: [String: Int64] = [:]
        var wait: TimeInterval = 0.25
    }

    private func pass(_ state: inout Poll) {
        do throws(CloudError) {
            if state.url == nil {
                let token: Token = try cloud.call(nil, "tokens/create", ["apnsEnvironment": cloud.environment])
                state.url = URL(string: token.webcourierURL)
            }
            guard let poll = state.url else { throw .storage("the server's notification URL is not a URL") }
            let cursors = state.since.sorted { $0.key < $1.key }.map { "since.\($0.key)=\($0.value)" }.joined(separator: "&")
            let (status, body) = try cloud.send(path: poll.path, query: cursors.isEmpty ? nil : cursors, method: .GET, body: Data(),
                                                signed: false, deadline: .seconds(60)) { task in
                let cancelled = lock.withLock {
                    self.poll = task
                    return self.cancelled
                }
                if cancelled { task.cancel() }
            }
            if status == 404 {
                state.url = nil  // the server forgot the token: make another
                return
            }
            guard status == 200, let notices = try? JSONDecoder().decode(Notices.self, from: body) else {
                throw RemoteCloud.error(status: status, body: body)
            }
            state.wait = 0.25
            for notice in notices.pushes {
                guard let scope = DatabaseScope(rawValue: notice.database), let sequence = Int64(notice.sequence) else { continue }
                let topic = PushTopic.database(scope, of: cloud.credentials.account.id)
                state.since[notice.database] = max(state.since[notice.database] ?? 0, sequence)
                if topics.contains(topic), !isCancelled { handler(Push(topic: topic, sequence: sequence)) }
            }
        } catch {
            Thread.sleep(forTimeInterval: state.wait)
            state.wait = min(state.wait * 2, 5)
        }
    }
}

extension RemoteCloud {
    public func subscribe(to topics: Set<PushTopic>, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch {
        RemotePushes(cloud: self, topics: topics, handler: handler)
    }
}
