import Foundation

/// Delivers events one at a time, in the order they were posted, even when
/// a handler posts more (the app adds pending changes while handling an
/// event) or another thread posts meanwhile: whoever finds the queue idle
/// delivers until it is empty; everyone else only enqueues.
final class EventQueue<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var queue: [Event] = []
    private var delivering = false
    private let deliver: (Event) -> Void

    init(deliver: @escaping (Event) -> Void) { self.deliver = deliver }

    func post(_ event: Event) {
        lock.lock()
        queue.append(event)
        guard !delivering else { return lock.unlock() }
        delivering = true
        while !queue.isEmpty {
            let next = queue.removeFirst()
            lock.unlock()
            deliver(next)
            lock.lock()
        }
        delivering = false
        lock.unlock()
    }
}
