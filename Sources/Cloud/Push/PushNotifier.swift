import Foundation

/// Tells other processes that a request committed, by rewriting one small
/// file per affected topic; they watch the directory with inotify.
struct PushNotifier: Sendable {
    let directory: URL

    /// Writes the commit's sequence number to each topic's file. A failure is
    /// harmless: watchers also poll slowly, so a lost push only delays them.
    func post(_ topics: Set<PushTopic>, sequence: Int64) {
        let text = "\(sequence)\n"
        for topic in topics {
            let path = directory.appendingPathComponent(topic.fileName).path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { continue }
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
    }
}
