import Foundation
import Testing
import TestSupport

@Suite struct SimulatorCommandTests {
    @Test func aRunPrintsTheSeedAndItsVerdict() throws {
        let result = try CloudNotesBinary.run(["--seed", "7", "--seeds", "2", "--steps", "200"], executable: "cloudnotes-sim")
        let lines = result.stdout.split(separator: "\n")
        #expect(result.status == 0, "\(result.stdout)")
        #expect(lines.count == 3 && lines[0].hasPrefix("seed 7: 200 steps") && lines[0].hasSuffix(": ok"))
        #expect(lines[2] == "2 passed, 0 failed")
    }

    @Test func badOptionsAreRefusedInOneLine() throws {
        let result = try CloudNotesBinary.run(["--fault-rate", "2"], executable: "cloudnotes-sim")
        #expect(result.status == 64)
        #expect(result.stderr == "cloudnotes-sim: --fault-rate must be from 0 to 1\n")
    }
}
