import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Calls a handler whenever the cloud posts to one of the given topics,
/// from any process, until cancelled.
///
/// It watches the `notify` directory with inotify, so it costs nothing while
/// nothing happens; if inotify is unavailable it polls the files' times
/// every second. Bursts of posts may reach the handler as one call, with
/// the sequence number the topic's file holds when it is read.
public final class PushSubscription: PushWatch, @unchecked Sendable {
    /// The file names heard; nil for every one (a server hears every topic).
    private let topics: Set<String>?
    private let directory: URL
    private let handler: @Sendable (Push) -> Void
    private let queue = DispatchQueue(label: "cloudnotes.push")
    private var source: (any DispatchSourceProtocol)?
    private var stamps: [String: timespec] = [:]

    /// - Parameter polling: whether to fall back to a slow poll when inotify
    ///   is unavailable (tests turn it off to prove inotify alone delivers).
    init(directory: URL, topics: Set<PushTopic>?, polling: Bool = true,
         handler: @escaping @Sendable (Push) -> Void) {
        self.directory = directory
        self.topics = topics.map { Set($0.map(\.fileName)) }
        self.handler = handler
        queue.sync { source = watchWithInotify() ?? (polling ? pollSlowly() : nil) }
    }

    /// Watches any directory for files written whole (closed after writing, or
    /// moved in): how a device's processes wake each other.
    public convenience init(watching directory: URL, files: Set<String>, handler: @escaping @Sendable (String) -> Void) {
        // (There, or cannot be made: inotify then fails and the slow poll watches instead.)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.init(directory: directory, topics: Set(files.map { PushTopic(fileName: $0) })) { handler($0.topic.fileName) }
    }

    /// Whether inotify, rather than the slow poll, is watching.
    var isEventDriven: Bool { queue.sync { source is any DispatchSourceRead } }

    deinit { source?.cancel() }

    public func cancel() {
        queue.sync {
            source?.cancel()
            source = nil
        }
    }

    private func watchWithInotify() -> (any DispatchSourceProtocol)? {
        #if os(Linux)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)
        guard inotify_add_watch(fd, directory.path, mask) >= 0 else {
            close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.drain(fd) }
        source.setCancelHandler { close(fd) }
        source.resume()
        return source
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// Reads every queued inotify event and reports each watched topic once.
    private func drain(_ fd: Int32) {
        var fired: Set<String> = []
        let size = 16 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                if event.len > 0 {
                    let name = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
                    if topics?.contains(name) ?? !name.hasPrefix(".") { fired.insert(name) }
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        for name in fired.sorted() { handler(push(name)) }
    }
    #endif

    private func pollSlowly() -> any DispatchSourceProtocol {
        for name in polledNames() { stamps[name] = modificationTime(name) }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            for name in self.polledNames().sorted() {
                let stamp = self.modificationTime(name)
                let old = self.stamps[name]
                if stamp.tv_sec != old?.tv_sec || stamp.tv_nsec != old?.tv_nsec {
                    self.stamps[name] = stamp
                    self.handler(self.push(name))
                }
            }
        }
        timer.resume()
        return timer
    }

    private func polledNames() -> Set<String> {
        // (No directory yet: nothing written to poll.)
        topics ?? Set(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasPrefix(".") })
    }

    /// The push a topic's file describes now (`PushNotifier` writes the commit's sequence number).
    private func push(_ name: String) -> Push {
        // (A file gone or being rewritten reads as 0: the wake-up still happens, and the next write brings the number.)
        let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return Push(topic: PushTopic(fileName: name), sequence: Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }

    private func modificationTime(_ name: String) -> timespec {
        var info = stat()
        guard stat(directory.appendingPathComponent(name).path, &info) == 0 else { return timespec() }
        return info.st_mtim
    }
}
