import Cloud
import Foundation

/// Runs a `SyncScheduler` for real: a timer, the cloud's pushes, and a
/// queue on which fetches and sends run one at a time, off the app's thread.
final class SyncDriver: @unchecked Sendable {
    private weak var engine: SyncEngine?
    private let queue = DispatchQueue(label: "cloudnotes.sync")
    private var timer: SchedulerTimer!
    private var subscription: PushSubscription?
    private var stopped = false

    init(engine: SyncEngine, timing: SyncTiming, random: any RandomSource) {
        self.engine = engine
        timer = SchedulerTimer(queue: queue, timing: timing, random: random) { [weak self] fetch, send in
            self?.run(fetch: fetch, send: send) ?? .failure
        }
    }

    func start() {
        queue.async { [self] in
            if let account = engine?.accountSource.currentAccount() { subscribe(account) }
            handle(.started)
        }
    }

    func stop() {
        queue.sync {
            stopped = true
            timer.stop()
            subscription?.cancel()
            subscription = nil
        }
    }

    func changesAdded() { queue.async { self.handle(.changesAdded) } }

    func accountChanged(to account: Account) { queue.async { self.subscribe(account) } }

    private func subscribe(_ account: Account) {
        guard !stopped, let engine else { return }
        subscription?.cancel()
        subscription = engine.cloud.subscribe(to: [.database(engine.scope, of: account.id)]) { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.handle(.pushReceived) }
        }
    }

    /// The timer ignores input once stopped.
    private func handle(_ input: SyncScheduler.Input) { timer.handle(input) }

    /// Fetches, then sends, even when the fetch failed (the send may still
    /// get through); the outcome is the first error's.
    private func run(fetch: Bool, send: Bool) -> SyncScheduler.Outcome {
        guard let engine else { return .failure }
        var outcome = SyncScheduler.Outcome.success
        for (wanted, work) in [(fetch, engine.fetchChanges), (send, engine.sendChanges)] where wanted {
            do {
                try work(.all)
            } catch let error as CloudError where error.isTransient {
                if outcome == .success { outcome = .transient(retryAfter: error.retryAfter) }
            } catch {
                if outcome == .success { outcome = .failure }
            }
        }
        return outcome
    }
}
