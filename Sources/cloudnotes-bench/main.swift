import ArgumentParser
import Foundation

/// `cloudnotes-bench`: figures measured side by side in one run, printed as a table and as JSON.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudnotes-bench",
        abstract: "CloudNotes benchmarks (build with -c release).",
        subcommands: [AllBenchmarks.self, FrontEndBenchmark.self, SyncBenchmark.self, LiveBenchmark.self, CommandLineBenchmark.self,
                      HistoryBenchmark.self, NetBenchmark.self,
                      FetchProbe.self],
        defaultSubcommand: AllBenchmarks.self)
}

/// Every benchmark, each in a process of its own (so one's memory does not
/// count against another's), then one table and one JSON document.
struct AllBenchmarks: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "Every figure: a table, then JSON.")

    func run() throws {
        var figures: [Figure] = []
        for arguments in [["frontend"], ["sync"], ["live"], ["cli"], ["history"]] {
            let data = try runSelf(arguments + ["--json"])
            figures += try JSONDecoder().decode([Figure].self, from: data)
        }
        printTable(figures)
        print()
        try report(figures, json: true, title: "")
    }
}

Bench.main()
