import ArgumentParser
import Cloud
import Foundation
import Notes

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Everything in the cloud: accounts, databases, zones, records and tombstones.")

    @OptionGroup var cloud: CloudOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let console = try cloud.console()
        let dump = try console.dump()
        if json { return try Output.json(dump) }
        let named = Dictionary(dump.accounts.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let names = { (id: String) in named[id] ?? id }
        Output.line(console.place)
        Output.line("accounts")
        for account in dump.accounts { Output.line("  \(account.name) <\(account.email)> \(account.id)") }
        for database in dump.databases {
            Output.line("\(database.scope.rawValue) database\(database.owner.map { " of \($0)" } ?? "") (\(database.container))")
            for zone in database.zones {
                Output.line("  zone \(zone.name)\(zone.deleted.map { " (deleted: \($0.rawValue))" } ?? "")")
                for record in zone.records {
                    let fields = record.fields.keys.sorted().map { "\($0)=\(RecordView.text(record.fields[$0]!))" }
                    let sealed = record.encryptedFields.keys.sorted().map { "\($0)=<encrypted \(record.encryptedFields[$0]!.count) bytes>" }
                    let by = record.system.map { "by \(names($0.modifiedBy))" } ?? ""
                    Output.line("    \(record.id.name)  \(record.type)  tag \(record.changeTag ?? "")  \(by)  " + (fields + sealed).joined(separator: "  "))
                }
                if !zone.tombstones.isEmpty { Output.line("    tombstones: " + zone.tombstones.joined(separator: ", ")) }
            }
        }
    }
}

struct Faults: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set the fault switch every process using this cloud obeys.",
        discussion: "Known errors: \(TransientFault.allCases.map(\.rawValue).joined(separator: ", ")). The CLOUDNOTES_FAULTS variable overrides the file for one process.")

    @OptionGroup var cloud: CloudOptions
    @Flag(help: "No faults.") var off = false
    @Flag(help: "Every request fails: network unavailable.") var unreachable = false
    @Option(help: "The share of requests, 0 to 1, that fail.") var rate: String?
    @Option(help: "Which errors, comma-separated (default: all).") var errors: String?
    @Option(name: .customLong("retry-after"), help: "Seconds the errors ask clients to wait.") var retryAfter: Double?

    func validate() throws {
        let modes = [off, unreachable, rate != nil].filter { $0 }.count
        if modes > 1 { throw ValidationError("choose one of --off, --unreachable, --rate") }
        if rate == nil && (errors != nil || retryAfter != nil) { throw ValidationError("--errors and --retry-after go with --rate") }
        if let retryAfter, retryAfter < 0 || !retryAfter.isFinite { throw ValidationError("--retry-after must be zero or more seconds") }
    }

    func run() throws {
        var plan: FaultPlan?
        if off { plan = .off }
        if unreachable { plan = .unreachable }
        if let rate {
            plan = FaultPlan(rate: try FaultPlan.parseRate(rate),
                             errors: try errors.map(FaultPlan.parseErrors) ?? TransientFault.allCases,
                             retryAfter: retryAfter ?? FaultPlan().retryAfter)
        }
        let (current, problem) = try cloud.console(warning: false).faults(setting: plan)
        if let problem { throw CLIError(message: problem) }
        if current.unreachable {
            Output.line("faults: unreachable (every request fails with network unavailable)")
        } else if current.isOff {
            Output.line("faults: off")
        } else {
            let names = current.errors.map(\.rawValue).joined(separator: ",")
            Output.line("faults: \(Int((current.rate * 100).rounded())) % of requests fail with \(names) (retry after \(current.retryAfter)s)")
        }
    }
}

struct Purge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget tombstones older than some seconds; older change tokens then expire.")

    @OptionGroup var cloud: CloudOptions
    // Taken whatever it looks like, so that "-5" is refused as a negative age, not as an option that does not exist.
    @Option(name: .customLong("older-than"), parsing: .unconditional, help: "Age in seconds.") var olderThan: Double

    func validate() throws {
        if olderThan < 0 || !olderThan.isFinite { throw ValidationError("--older-than must be zero or more seconds") }
    }

    func run() throws {
        let summary = try cloud.console().purgeTombstones(olderThan: olderThan)
        Output.line("purged \(summary.records) record tombstones and \(summary.zones) zone tombstones")
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the cloud's store: SQLite's integrity check of the file, or amcheck on PostgreSQL.")

    @OptionGroup var cloud: CloudOptions

    func run() throws {
        let result = try cloud.open().integrityCheck()
        guard result == "ok" else { throw CLIError(message: "integrity check failed: \(result)") }
        Output.line("ok")
    }
}

struct RetentionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Show or set how long the cloud keeps history (versions of each record) and trash (deleted records).")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "Versions kept of each record, the current one included.") var historyVersions: Int?
    @Option(help: "Earlier versions older than this many days go.") var historyDays: Double?
    @Option(help: "Deleted records stay restorable this many days.") var trashDays: Double?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let opened = try cloud.open()
        var retention = try opened.retention()
        if historyVersions != nil || historyDays != nil || trashDays != nil {
            retention.historyVersions = historyVersions ?? retention.historyVersions
            retention.historyDays = historyDays ?? retention.historyDays
            retention.trashDays = trashDays ?? retention.trashDays
            try opened.setRetention(retention)
        }
        if json { return try Output.json(retention) }
        Output.line("history: \(retention.historyVersions) versions, \(retention.historyDays.formatted()) days; trash: \(retention.trashDays.formatted()) days")
    }
}
