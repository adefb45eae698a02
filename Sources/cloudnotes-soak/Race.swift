import ArgumentParser
import Cloud
import CloudClient
import Foundation

/// `cloudnotes-soak race`: many processes (devices of one account) save the same record at the same moment, each
/// with the change tag all of them last saw, through several servers of one cloud. The cloud's compare-and-swap
/// must let exactly one win each round, whichever server each went through. Prints one line; exits non-zero
/// when a round had no winner or more than one.
struct Race: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "race")

    @Option(help: "Processes saving at once.") var processes = 8
    @Option(help: "Rounds.") var rounds = 50
    @Option(help: "Servers (cloudnotes cloud serve, built beside this); the processes take turns among them.") var servers = 2
    @Option(help: "Keep the cloud's state in this PostgreSQL database (else the directory's SQLite file).") var store: String?
    @Option(help: "Keep the run's files here (default: a temporary directory, removed when all is well).") var directory: String?

    func validate() throws {
        if processes < 2 || servers < 1 || rounds < 1 { throw ValidationError("--processes ≥ 2, --servers ≥ 1, --rounds ≥ 1") }
    }

    func run() throws {
        let root = URL(fileURLWithPath: directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("cloudnotes-race-\(getpid())").path)
        let layout = SoakLayout(root: root, store: store)
        let cloud = try layout.openCloud()
        let owner = try cloud.accountCreatingIfNeeded(name: SoakLayout.accounts[0])
        let db = cloud.database(.private, as: owner)
        let zone = try db.save(zone: ZoneID(name: "Race"))
        let id = RecordID(name: "contested", zone: zone)
        _ = try db.save(Record.make(id, ["by": "nobody"]), policy: .allKeys)
        try layout.enrolDevices(processes) { _ in owner.name }  // all save into one database
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cloudnotes")
        let environment = store.map { ["CLOUDNOTES_STORE": $0] } ?? [:]
        let served = try (0..<servers).map {
            try ServerProcess(executable: executable, cloud: layout.cloudDirectory, environment: environment,
                              log: root.appendingPathComponent("server-\($0).log"))
        }
        let racers = try (0..<processes).map { index in
            try Racer(root: root, device: index, server: served[index % servers].url)
        }
        var failures: [String] = []
        for round in 1...rounds {
            let tag = try db.record(id).system?.changeTag ?? ""
            // Each fetches the record; once all hold the same copy, all save it at once.
            for racer in racers { racer.send("fetch") }
            let held = racers.map { $0.answer() }
            guard held.allSatisfy({ $0 == "holds \(tag)" }) else {
                failures.append("round \(round): fetched \(held.joined(separator: ", ")), not \(tag)")
                continue
            }
            for racer in racers { racer.send("save") }  // as near together as the processes can be
            let answers = racers.map { $0.answer() }
            let winners = answers.indices.filter { answers[$0] == "won" }
            let holder = try db.record(id)["by"]
            if winners.count != 1 || answers.contains(where: { $0 != "won" && $0 != "lost" }) {
                failures.append("round \(round): \(answers.joined(separator: ", "))")
            } else if holder != .string("p\(winners[0])") {
                failures.append("round \(round): p\(winners[0]) won but the record holds \(String(describing: holder))")
            }
        }
        for racer in racers { racer.stop() }
        for server in served { server.kill() }
        let on = store == nil ? "the directory's file" : "PostgreSQL"
        print("race: \(processes) processes through \(servers) servers on \(on), \(rounds) rounds: "
              + (failures.isEmpty ? "one winner every round" : "\(failures.count) rounds wrong"))
        guard failures.isEmpty else {
            for line in failures.prefix(20) { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }
            // The servers' own word on what they charged the account (why it was told to wait, if it was).
            for index in served.indices {
                // (A log that does not read adds nothing: the failures above are said either way.)
                let log = (try? String(contentsOf: root.appendingPathComponent("server-\(index).log"), encoding: .utf8)) ?? ""
                for line in log.split(separator: "\n") where line.contains("\"message\":\"charged\"") {
                    FileHandle.standardError.write(Data("  server \(index): \(line)\n".utf8))
                }
            }
            throw ExitCode(1)
        }
        if directory == nil { try? FileManager.default.removeItem(at: root) }
    }
}

/// One racing process: `race-worker`, told each round's change tag on its stdin, answering on its stdout.
private final class Racer {
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private var pending = Data()

    init(root: URL, device: Int, server: URL) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["race-worker", "--root", root.path, "--device", String(device), "--name", "p\(device)",
                             "--server", server.absoluteString]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func send(_ tag: String) { input.fileHandleForWriting.write(Data((tag + "\n").utf8)) }

    /// The next line the process writes.
    func answer() -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { return "exited" }
            pending.append(more)
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// The racing process itself: `fetch` fetches the contested record (and says its change tag); `save` saves that
/// copy, changed, against the tag it had.
struct RaceWorker: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "race-worker", shouldDisplay: false)

    @Option var root: String
    @Option var device: Int
    @Option var name: String
    @Option var server: String

    func run() throws {
        let layout = SoakLayout(root: URL(fileURLWithPath: root))
        let cloud = try layout.remoteCloud(device, server: URL(string: server)!)
        let db = cloud.database(.private, as: cloud.credentials.account)
        let id = RecordID(name: "contested", zone: ZoneID(name: "Race", owner: cloud.credentials.account.id))
        var held: Record?
        while let command = readLine() {
            let answer: String
            switch Result(catching: { () throws(CloudError) -> String in
                if command == "fetch" {
                    held = try honouringThrottle { () throws(CloudError) in try db.record(id) }
                    return "holds \(held?.system?.changeTag ?? "")"
                }
                guard var record = held else { return "error: nothing fetched" }
                record["by"] = .string(name)
                _ = try honouringThrottle { () throws(CloudError) in try db.save(record, policy: .ifServerRecordUnchanged) }
                return "won"
            }) {
            case .success(let said): answer = said
            case .failure(.serverRecordChanged): answer = "lost"
            case .failure(let error): answer = "error \(error)"
            }
            FileHandle.standardOutput.write(Data((answer + "\n").utf8))
        }
    }
}

extension Record {
    /// A record of string fields.
    static func make(_ id: RecordID, _ fields: [String: String]) -> Record {
        var record = Record(type: "Race", id: id)
        for (key, value) in fields { record[key] = .string(value) }
        return record
    }
}
