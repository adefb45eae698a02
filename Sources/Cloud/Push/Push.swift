/// One post to a topic, as a subscriber hears it: the commit that made it.
/// Posts close together may reach a subscriber as one, the latest.
public struct Push: Hashable, Sendable {
    public let topic: PushTopic
    /// The commit's change sequence number (0 when it could not be read: take the push as new).
    public let sequence: Int64

    public init(topic: PushTopic, sequence: Int64) {
        self.topic = topic
        self.sequence = sequence
    }
}

/// What a write told its caller about the commit, for the caller's own
/// database: its sequence number, and that of the commit posted to the
/// database before it. A device that had seen everything up to `previous`
/// has now seen everything up to `sequence`: the push this commit posts
/// brings it nothing, and it need not fetch (CloudKit does not wake the
/// device that made a change; a shared topic cannot tell devices apart).
public struct Commit: Hashable, Sendable, Codable {
    public let sequence: Int64
    public let previous: Int64

    public init(sequence: Int64, previous: Int64) {
        self.sequence = sequence
        self.previous = previous
    }
}

/// Where a client hears of changes: inotify on a cloud directory, or a long
/// poll on a server.
public protocol PushSource: Sendable {
    /// Calls `handler` shortly after a commit posts to one of `topics`, until the watch is cancelled.
    func subscribe(to topics: Set<PushTopic>, handler: @escaping @Sendable (Push) -> Void) -> any PushWatch
}

/// A subscription to pushes; it ends when cancelled (or released).
public protocol PushWatch: AnyObject, Sendable {
    func cancel()
}
