import Cloud
import Foundation

/// The shape of every simulation run: the steps with transient faults at the
/// options' rate (the clock moving a second a step), then faults off, every
/// device settled, and the checks. Returns the violations found; an error
/// from the run itself is one too.
public func runSeeded(cloud: Cloud, clock: ManualClock, options: SimulationOptions,
                      step: (Int) throws -> Void, settle: () throws -> Void, check: () throws -> [String]) -> [String] {
    do {
        try cloud.setFaultPlan(FaultPlan(rate: options.faultRate, errors: TransientFault.allCases, retryAfter: 0))
        for index in 0..<options.steps {
            clock.advance(by: 1)
            try step(index)
        }
        try cloud.setFaultPlan(.off)
        try settle()
        return try check()
    } catch {
        return ["the simulation itself failed: \(error)"]
    }
}
