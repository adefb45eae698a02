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
        try runProcess(beside("cloudnotes"), ["cloud", "create-zone", "Notes", "--account", scratch.account.name, "--cloud", cloud])
        var none = Timings(), small = Timings(), large = Timings()
        func save(_ count: Int, _ name: String) throws -> [String] {
            ["cloud", "save-record", "--account", scratch.account.name, "--zone", "Notes", "--type", "Bench", "--name", name,
             "--cloud", cloud] + (0..<count).flatMap { ["--field", "k\($0)=v\($0)"] }
        }
        for run in 0..<runs {  // side by side, so a busy moment weighs on both sizes alike
            let (empty, few, many) = (try save(0, "none-\(run)"), try save(fields, "few-\(run)"), try save(fields * 8, "many-\(run)"))
            try none.time { try runProcess(beside("cloudnotes"), empty, keepingOutput: false) }
            try small.time { try runProcess(beside("cloudnotes"), few, keepingOutput: false) }
            try large.time { try runProcess(beside("cloudnotes"), many, keepingOutput: false) }
        }
        return [
            Figure(name: "save-record, \(fields) fields", median: small.median, p95: small.p95, unit: "ms", target: "report"),
            Figure(name: "save-record, \(fields * 8) fields", median: large.median, p95: large.p95, unit: "ms", target: "report"),
            Figure(name: "save-record, no field (the process's start)", median: none.median, p95: none.p95, unit: "ms", target: "report"),
            Figure(name: "\(fields * 8) / \(fields) fields, start taken off", value: (large.median - none.median) / (small.median - none.median), unit: "×",
                   target: "≤ 16 (linear ≈ 8, square ≈ 64)"),
        ]
    }
}
