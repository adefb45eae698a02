import Cloud
import Foundation
@testable import Sync
import Testing

@Suite struct SyncSchedulerTests {
    let t0 = Date(timeIntervalSince1970: 1_000)
    var timing: SyncTiming {
        var timing = SyncTiming()
        timing.jitter = 0
        return timing
    }

    @Test func aBurstOfChangesIsOneSend() {
        var s = SyncScheduler(timing: timing)
        #expect(s.handle(.changesAdded([.private]), now: t0) == .arm(t0 + 0.05))
        #expect(s.handle(.changesAdded([.private]), now: t0 + 0.01) == nil, "already armed sooner")
        #expect(s.handle(.changesAdded([.private]), now: t0 + 0.04) == nil)
        #expect(s.handle(.timerFired, now: t0 + 0.05) == .run(SyncRound(send: [.private])))
        #expect(s.handle(.finished(.success), now: t0 + 0.06) == nil)
    }

    @Test func aPushLeadsToAFetchAndInputDuringARunWaitsForIt() {
        var s = SyncScheduler(timing: timing)
        #expect(s.handle(.pushReceived([.private]), now: t0) == .arm(t0 + 0.01))
        #expect(s.handle(.timerFired, now: t0 + 0.01) == .run(SyncRound(fetch: [.private])))
        #expect(s.handle(.changesAdded([.private]), now: t0 + 0.02) == nil, "one sync at a time")
        #expect(s.handle(.finished(.success), now: t0 + 0.03) == .arm(t0 + 0.03))
        #expect(s.handle(.timerFired, now: t0 + 0.03) == .run(SyncRound(send: [.private])))
    }

    @Test func transientErrorsBackOffHonouringRetryAfterAndNeverSpin() {
        var s = SyncScheduler(timing: timing)
        _ = s.handle(.started([.private]), now: t0)
        var now = t0
        var waits: [TimeInterval] = []
        for retryAfter in [nil, nil, 5.0, nil, nil, nil, nil, nil, nil, nil] as [TimeInterval?] {
            guard case .run = s.handle(.timerFired, now: now) else {
                Issue.record("expected a run")
                return
            }
            guard case .arm(let at)? = s.handle(.finished(.transient(retryAfter: retryAfter)), now: now) else {
                Issue.record("expected the timer to be armed")
                return
            }
            #expect(s.handle(.timerFired, now: at - 0.001) == .arm(at), "nothing runs before the back-off ends")
            waits.append(at.timeIntervalSince(now))
            now = at
        }
        #expect(waits == [0.25, 0.5, 5, 2, 4, 8, 16, 30, 30, 30])
        #expect(s.handle(.timerFired, now: now) == .run(.everything([.private])), "what failed is retried")
        #expect(s.handle(.finished(.success), now: now) == nil)
        #expect(s.consecutiveFailures == 0)
    }

    @Test func aFailureThatRetryingCannotFixWaitsForNewInput() {
        var s = SyncScheduler(timing: timing)
        _ = s.handle(.changesAdded([.private]), now: t0)
        _ = s.handle(.timerFired, now: t0 + 0.05)
        #expect(s.handle(.finished(.failure), now: t0 + 0.1) == nil)
        #expect(s.wanted.isEmpty)
    }

    @Test func jitterSpreadsRetries() {
        var timing = SyncTiming()
        timing.jitter = 0.5
        var s = SyncScheduler(timing: timing)
        _ = s.handle(.pushReceived([.private]), now: t0)
        _ = s.handle(.timerFired, now: t0 + 0.01)
        #expect(s.handle(.finished(.transient(retryAfter: 1)), now: t0, jitter: 1) == .arm(t0 + 1.5))
    }
}
