import Foundation
import SyncSimulation
import Testing
import TestSupport

/// A few short runs of the seeded simulation; the long runs are in README.
@Suite struct SimulationTests {
    func run(_ options: SimulationOptions) throws -> SimulationReport {
        let directory = TemporaryDirectory("sim")
        return try Simulation(options, directory: directory.url).run()
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func devicesConvergeUnderFaults(seed: UInt64) throws {
        let report = try run(SimulationOptions(seed: seed, devices: 4, accounts: 2, steps: 600, faultRate: 0.2))
        #expect(report.passed, "\(report.summary)\n\(report.violations.prefix(10).joined(separator: "\n"))")
        #expect(report.counts["share", default: 0] > 0 && report.counts["crash", default: 0] > 0, "the run exercised sharing and crashes")
    }

    @Test func theSameSeedReplaysTheSameRun() throws {
        let options = SimulationOptions(seed: 42, devices: 3, accounts: 2, steps: 300, faultRate: 0.3)
        let first = try run(options), second = try run(options)
        #expect(first.summary == second.summary)
        var other = options
        other.seed = 43
        #expect(try run(other).summary != first.summary)
    }
}
