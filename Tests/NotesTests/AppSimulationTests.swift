import Foundation
import NotesSimulation
import SyncSimulation
import Testing
import TestSupport

/// Short runs of the app-level simulation; the long run is in README.
@Suite struct AppSimulationTests {
    @Test(arguments: [1, 2] as [UInt64])
    func devicesAgreeAndNoTypedTextIsLost(seed: UInt64) throws {
        let directory = TemporaryDirectory("appsim")
        let report = try AppSimulation(SimulationOptions(seed: seed, devices: 4, accounts: 2, steps: 250, faultRate: 0.2),
                                       directory: directory.url).run()
        #expect(report.passed, "\(report.summary)\n\(report.violations.prefix(10).joined(separator: "\n"))")
        #expect(report.counts["concurrentEdit", default: 0] > 0 && report.counts["sharePost", default: 0] > 0)
    }

    /// People also rename and delete notebooks while their other devices write on in them.
    @Test func devicesAgreeWhileNotebooksAreRenamedAndDeleted() throws {
        let directory = TemporaryDirectory("appsim")
        let report = try AppSimulation(SimulationOptions(seed: 3, devices: 4, accounts: 2, steps: 300, faultRate: 0.2, notebookChurn: true),
                                       directory: directory.url).run()
        #expect(report.passed, "\(report.summary)\n\(report.violations.prefix(10).joined(separator: "\n"))")
        #expect(report.counts["renameNotebook", default: 0] > 0 && report.counts["deleteNotebook", default: 0] > 0, "\(report.summary)")
    }
}
