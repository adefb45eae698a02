import Cloud
import Foundation

/// Runs a `SyncScheduler` for real: a timer, the cloud's pushes, and a
/// queue on which fetches and sends run one at a time, off the app's thread.
final class SyncDriver: @unchecked Sendable {
    private weak var engine: SyncEngine?
    private let queue = DispatchQueue(label: "cloudnotes.sync")
    private let random: any RandomSource
    private var scheduler: SyncScheduler
    private var timer: DispatchSourceTimer?
    private var subscription: PushSubscription?
    private var stopped = false

    init(engine: SyncEngine, timing: SyncTiming, random: any RandomSource) {
        self.engine = engine
        self.random = random
        scheduler = SyncScheduler(timing: timing)
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
            timer?.cancel()
            timer = nil
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

    /// Feeds the scheduler on the driver's queue and carries out its action.
    private func handle(_ input: SyncScheduler.Input) {
        guard !stopped else { return }
        switch scheduler.handle(input, now: Date(), jitter: random.unit()) {
        case .arm(let date)?:
            timer?.cancel()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + max(0, date.timeIntervalSinceNow))
            timer.setEventHandler { [weak self] in self?.handle(.timerFired) }
            timer.resume()
            self.timer = timer
        case .run(let fetch, let send)?:
            handle(.finished(run(fetch: fetch, send: send)))
        case nil:
            break
        }
    }

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
