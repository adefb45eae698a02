import Foundation

/// Delivers events one at a time, in the order they were posted, even when
/// a handler posts more (the app adds pending changes while handling an
/// event) or another thread posts meanwhile: whoever finds the queue idle
/// delivers until it is empty; everyone else waits for its own event.
///
/// `post` returns once its event was handled, with what the handler threw,
/// so the engine moves a change token only past changes the app applied. A
/// handler's own posts (on the delivering thread) cannot wait for
/// themselves: they are queued, and what they throw is `dropped`.
final class EventQueue<Event: Sendable>: @unchecked Sendable {
    private struct Item {
        let id: Int
        let event: Event
        let awaited: Bool
    }

    private let condition = NSCondition()
    private var queue: [Item] = []
    private var deliverer: pthread_t?
    private var nextID = 0
    private var outcomes: [Int: Result<Void, any Error>] = [:]
    private let deliver: (Event) throws -> Void
    private let dropped: (Event, any Error) -> Void

    init(deliver: @escaping (Event) throws -> Void, dropped: @escaping (Event, any Error) -> Void = { _, _ in }) {
        self.deliver = deliver
        self.dropped = dropped
    }

    func post(_ event: Event) throws {
        condition.lock()
        let id = nextID
        nextID += 1
        if let deliverer, pthread_equal(deliverer, pthread_self()) != 0 {
            queue.append(Item(id: id, event: event, awaited: false))  // a handler's own post
            return condition.unlock()
        }
        queue.append(Item(id: id, event: event, awaited: true))
        if deliverer != nil {
            while outcomes[id] == nil { condition.wait() }
        } else {
            deliverer = pthread_self()
            while !queue.isEmpty {
                let next = queue.removeFirst()
                condition.unlock()
                let outcome = Result { try deliver(next.event) }
                if !next.awaited, case .failure(let error) = outcome { dropped(next.event, error) }
                condition.lock()
                if next.awaited {
                    outcomes[next.id] = outcome
                    condition.broadcast()
                }
            }
            deliverer = nil
        }
        let outcome = outcomes.removeValue(forKey: id)!
        condition.unlock()
        try outcome.get()
    }
}
