import ArgumentParser

/// `cloudnotes-bench`: figures measured side by side in one run, printed as a table or JSON.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudnotes-bench",
        abstract: "CloudNotes benchmarks (build with -c release).",
        subcommands: [FrontEndBenchmark.self, SyncBenchmark.self, FetchProbe.self],
        defaultSubcommand: FrontEndBenchmark.self)
}

Bench.main()
