import Cloud
import Foundation

/// The shape of every simulation run: the steps with transient faults at the
/// options' rate (the clock moving a second a step), each followed by the
/// `ChangeFeedCheck` of every account's view; then faults off, every device
/// settled, the views checked once more, and the checks. Returns the
/// violations found; an error from the run itself is one too.
public func runSeeded(cloud: LocalCloud, clock: ManualClock, accounts: [Account], options: SimulationOptions,
                      step: (Int) throws -> Void, settle: () throws -> Void, check: () throws -> [String]) -> [String] {
    do {
        let feeds = try ChangeFeedCheck(directory: cloud.directory, clock: clock, accounts: accounts, seed: options.seed &+ 0xFEED)
        var violations: [String] = []
        try cloud.setFaultPlan(FaultPlan(rate: options.faultRate, errors: TransientFault.allCases, retryAfter: 0))
        for index in 0..<options.steps {
            clock.advance(by: 1)
            try step(index)
            violations += try feeds.check(after: "step \(index)", step: index)
        }
        try cloud.setFaultPlan(.off)
        try settle()
        violations += try feeds.check(after: "settling")
        return violations + (try check())
    } catch {
        return ["the simulation itself failed: \(error)"]
    }
}
