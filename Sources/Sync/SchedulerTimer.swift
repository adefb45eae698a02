import Cloud
import Foundation

/// A `SyncScheduler` run for real on a queue: inputs go in, a timer fires
/// when it says, and `work` runs when it says to sync. Both the engine's
/// automatic sync and the app's live sync use it. Call `handle` and `stop`
/// on `queue` only.
public final class SchedulerTimer: @unchecked Sendable {
    private let queue: DispatchQueue
    private let random: any RandomSource
    private let work: (_ fetch: Bool, _ send: Bool) -> SyncScheduler.Outcome
    private var scheduler: SyncScheduler
    private var timer: DispatchSourceTimer?
    private var stopped = false

    public init(queue: DispatchQueue, timing: SyncTiming, random: any RandomSource,
                work: @escaping (_ fetch: Bool, _ send: Bool) -> SyncScheduler.Outcome) {
        self.queue = queue
        self.random = random
        self.work = work
        scheduler = SyncScheduler(timing: timing)
    }

    /// Feeds the scheduler and carries out its action.
    public func handle(_ input: SyncScheduler.Input) {
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
            handle(.finished(work(fetch, send)))
        case nil:
            break
        }
    }

    public func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
    }
}
