import ArgumentParser
import Foundation

/// The command line's parsing of many options: `cloudnotes cloud save-record`
/// with N and 8·N `--field` options, each run a process of the `cloudnotes`
/// built beside this benchmark, and with none (the process's start, taken off
/// both). Parsing once grew with the square of the options (8,000 took
/// minutes); the ratio of the two shows which it is: about 8 when it grows
/// with their number, about 64 when with its square.
struct CommandLineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cli", abstract: "Time to parse and save many --field options.")

    @Option(help: "Fields of the smaller run (the larger has 8 times as many).") var fields = 2_000
    @Option(help: "Runs of each size; the medians are compared.") var runs = 5
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws { try report(try Self.measure(fields: fields, runs: runs), json: json, title: "command line") }

    static func measure(fields: Int, runs: Int) throws -> [Figure] {
        let scratch = try Scratch()
        let cloud = scratch.directory.appendingPathComponent("cloud").path
        try cloudnotes(["cloud", "create-zone", "Notes", "--account", scratch.account.name, "--cloud", cloud])
        var none = Timings(), small = Timings(), large = Timings()
        func save(_ count: Int, _ name: String) throws -> [String] {
            ["cloud", "save-record", "--account", scratch.account.name, "--zone", "Notes", "--type", "Bench", "--name", name,
             "--cloud", cloud] + (0..<count).flatMap { ["--field", "k\($0)=v\($0)"] }
        }
        for run in 0..<runs {  // side by side, so a busy moment weighs on both sizes alike
            let (empty, few, many) = (try save(0, "none-\(run)"), try save(fields, "few-\(run)"), try save(fields * 8, "many-\(run)"))
            try none.time { try cloudnotes(empty) }
            try small.time { try cloudnotes(few) }
            try large.time { try cloudnotes(many) }
        }
        return [
            Figure(name: "save-record, \(fields) fields", median: small.median, p95: small.p95, unit: "ms", target: "report"),
            Figure(name: "save-record, \(fields * 8) fields", median: large.median, p95: large.p95, unit: "ms", target: "report"),
            Figure(name: "save-record, no field (the process's start)", median: none.median, p95: none.p95, unit: "ms", target: "report"),
            Figure(name: "\(fields * 8) / \(fields) fields, start taken off", value: (large.median - none.median) / (small.median - none.median), unit: "×",
                   target: "≤ 16 (linear ≈ 8, square ≈ 64)"),
        ]
    }

    /// Runs the `cloudnotes` beside this executable; throws with its stderr if it fails.
    private static func cloudnotes(_ arguments: [String]) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cloudnotes")
        child.arguments = arguments
        child.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        child.standardError = errors
        try child.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw BenchError("cloudnotes \(arguments.prefix(2).joined(separator: " ")) failed: \(String(decoding: said, as: UTF8.self))")
        }
    }
}
