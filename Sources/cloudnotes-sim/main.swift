import ArgumentParser
import Foundation
import Sync
import NotesSimulation
import SyncSimulation

/// `cloudnotes-sim`: runs the seeded multi-device simulation and says whether it held.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudnotes-sim",
        abstract: "Run devices of several accounts against one cloud from a seed, with faults, and check they converge.",
        discussion: "Prints one line per seed: the seed, what happened, and ok or the first violation. Exits 1 on any violation.")

    @Option(help: "The first seed.") var seed: UInt64 = 1
    @Option(help: "How many consecutive seeds to run.") var seeds: Int = 1
    @Option(help: "Devices, spread over the accounts.") var devices: Int = 4
    @Option(help: "Accounts.") var accounts: Int = 2
    @Option(help: "Steps per run.") var steps: Int = 2_000
    @Option(name: .customLong("fault-rate"), help: "Share of requests failing transiently, 0 to 1.") var faultRate: Double = 0.2
    @Option(help: "Write every event and request to this file.") var log: String?
    @Flag(help: "Simulate the app itself (posts, notebooks, comments, shares over real device stores).") var app = false
    @Flag(inversion: .prefixedNo, help: "With --app: eve, a participant who runs no app and goes for the keys with raw requests.")
    var intruder = true
    @Flag(name: .customLong("notebook-churn"), help: "With --app: people also rename and delete notebooks.") var notebookChurn = false
    @Flag(help: "Keep the cloud's and the devices' files of a seed that fails, and print where.") var keep = false

    func validate() throws {
        guard devices >= 1, accounts >= 1, steps >= 0, seeds >= 1 else {
            throw ValidationError("--devices, --accounts and --seeds must be at least 1, --steps at least 0")
        }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be from 0 to 1") }
    }

    func run() throws {
        let sink = try log.map { try FileLogSink(path: $0, fresh: true) }
        var failed = 0
        for offset in 0..<seeds {
            let options = SimulationOptions(seed: seed + UInt64(offset), devices: devices, accounts: accounts,
                                            steps: steps, faultRate: faultRate, intruder: intruder, notebookChurn: notebookChurn)
            let directory = Self.scratch()
            let report = app ? try AppSimulation(options, directory: directory, log: sink).run()
                : try Simulation(options, directory: directory, log: sink).run()
            line(report.summary)
            if !report.passed {
                failed += 1
                for violation in report.violations.prefix(20) { line("  \(violation)") }
            }
            if keep && !report.passed {
                line("  its files are kept in \(directory.path)")
            } else {
                try? FileManager.default.removeItem(at: directory)
            }
        }
        if seeds > 1 { line("\(seeds - failed) passed, \(failed) failed") }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Writes a line at once (unbuffered), so a long run shows its progress even into a file.
    private func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A fresh cloud directory, in memory where the machine has /dev/shm:
    /// durability means nothing to a simulation, and fsync would dominate.
    static func scratch() -> URL {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
            : FileManager.default.temporaryDirectory
        return base.appendingPathComponent("cloudnotes-sim-\(UUID().uuidString.prefix(8))")
    }
}

// One line on stderr for bad options (exit 64), as `cloudnotes` does.
do {
    var command = try SimulateCommand.parseAsRoot()
    try command.run()
} catch {
    let code = SimulateCommand.exitCode(for: error)
    if code == .success || error is ExitCode { SimulateCommand.exit(withError: error) }
    let message = SimulateCommand.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data("cloudnotes-sim: \(message)\n".utf8))
    exit(code.rawValue)
}
