import ArgumentParser
import Cloud
import Foundation
import Notes

struct SaveRecord: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or change a record and print it as saved, with its new change tag.",
        discussion: """
            Fields are KEY=VALUE (a string) or KEY:TYPE=VALUE, TYPE one of
            \(FieldAssignment.types.joined(separator: ", ")).
            Without --if-tag only the given keys change (changed-keys policy). With
            --if-tag the save succeeds only if the server's change tag is still TAG;
            otherwise it fails and prints the server's current record.
            """)

    @OptionGroup var target: DatabaseOptions
    @Option(help: "The record type.") var type: String
    @Option(help: "The record name.") var name: String
    @Option(name: .customLong("field"), help: ArgumentHelp("A field to set.", valueName: "KEY[:TYPE]=VALUE"))
    var fields: [String] = []
    @Option(name: .customLong("remove"), help: ArgumentHelp("A field to remove.", valueName: "KEY")) var removals: [String] = []
    @Option(help: "The parent record's name (same zone).") var parent: String?
    @Option(name: .customLong("if-tag"), help: "Save only if the server's change tag is still this one.") var ifTag: String?
    @Option(help: "ifServerRecordUnchanged, changedKeys or allKeys.") var policy: SavePolicy?
    @Flag(help: "Print JSON.") var json = false
    /// `--field` and `--remove` options as `packOptions` hands them over.
    @Option(help: .hidden) var packedOptions: String?

    func run() throws {
        // Parse everything before touching the cloud, so bad input changes nothing.
        var fields = fields, removals = removals
        if let packedOptions {
            let packed = try JSONDecoder().decode([String: [String]].self, from: Data(packedOptions.utf8))
            fields += packed["field"] ?? []
            removals += packed["remove"] ?? []
        }
        let assignments = try fields.map { try FieldAssignment(parsing: $0) }
        for key in removals { try FieldAssignment.validate(key: key) }
        var seen = Set<String>()
        for key in assignments.map(\.key) + removals where !seen.insert(key).inserted {
            throw CLIError.usage("field \(key) is given twice")
        }
        if ifTag != nil, let policy, policy != .ifServerRecordUnchanged {
            throw CLIError.usage("--if-tag goes with the ifServerRecordUnchanged policy only")
        }
        let (cloud, database, zone) = try target.open()
        let names = try AccountNames(cloud)
        let id = RecordID(name: name, zone: zone)

        var record = try existing(id, in: database) ?? Record(type: type, id: id)
        if let ifTag {
            var system = record.system ?? SystemFields(changeTag: ifTag, createdAt: .distantPast, createdBy: "",
                                                       modifiedAt: .distantPast, modifiedBy: "")
            system.changeTag = ifTag
            record.restoreSystemFields(system)
        }
        if record.type != type { record = Record(type: type, id: id) }  // the cloud refuses the mismatch
        for assignment in assignments { assignment.apply(to: &record) }
        for key in removals { record[key] = nil }
        if let parent { record.setParent(parent) }

        let policy = policy ?? (ifTag != nil ? .ifServerRecordUnchanged : .changedKeys)
        do {
            try show(try database.save(record, policy: policy), names: names)
        } catch let error as CloudError {
            if case .serverRecordChanged(let server) = error { try show(server, names: names) }
            throw error
        }
    }

    /// The arguments of `cloudnotes cloud save-record` with every `--field`
    /// and `--remove` taken out and passed on as one option. The parser scans
    /// the whole argument list for each option it reads, so 8,000 fields took
    /// minutes; taken out in one pass they take milliseconds. Other commands'
    /// arguments come back as they were.
    static func packOptions(_ arguments: [String]) -> [String] {
        guard arguments.starts(with: ["cloud", "save-record"]) else { return arguments }
        var rest: [String] = [], packed: [String: [String]] = [:]
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" { rest += arguments[i...]; break }
            let option = ["field", "remove"].first { argument == "--\($0)" || argument.hasPrefix("--\($0)=") }
            if let option, argument.hasPrefix("--\(option)=") {
                packed[option, default: []].append(String(argument.dropFirst(option.count + 3)))
            } else if let option, i + 1 < arguments.count {
                packed[option, default: []].append(arguments[i + 1])
                i += 1
            } else {
                rest.append(argument)
            }
            i += 1
        }
        // (A dictionary of strings always encodes; failing that, the arguments go unpacked, only slower.)
        guard !packed.isEmpty, let json = try? JSONEncoder().encode(packed) else { return arguments }
        return rest + ["--packed-options", String(decoding: json, as: UTF8.self)]
    }

    private func existing(_ id: RecordID, in database: CloudDatabase) throws -> Record? {
        do {
            return try database.record(id)
        } catch {
            if case .unknownItem = error { return nil }
            throw error
        }
    }

    private func show(_ record: Record, names: AccountNames) throws {
        let view = RecordView(record, names: names)
        if json { try Output.json(view) } else { view.printText() }
    }
}

struct GetRecord: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch one record by name.")

    @OptionGroup var target: DatabaseOptions
    @Argument(help: "The record name.") var name: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let (cloud, database, zone) = try target.open()
        let view = RecordView(try database.record(RecordID(name: name, zone: zone)), names: try AccountNames(cloud))
        if json { try Output.json(view) } else { view.printText() }
    }
}

struct DeleteRecord: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a record (and the records that reference it with delete-self), leaving tombstones.")

    @OptionGroup var target: DatabaseOptions
    @Argument(help: "The record name.") var name: String

    func run() throws {
        let (_, database, zone) = try target.open()
        try database.delete(RecordID(name: name, zone: zone))
        Output.line("deleted \(name) from zone \(target.zone)")
    }
}
