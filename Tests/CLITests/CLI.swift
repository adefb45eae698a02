import Foundation
import TestSupport

/// The `cloudnotes` executable pointed at one temporary cloud.
struct CLI {
    let directory = TemporaryDirectory("cli")
    var cloudPath: String { directory.url.appendingPathComponent("cloud").path }
    /// The devices' data too stays in the test's directory, never in the home directory.
    var data: [String: String] { ["CLOUDNOTES_DATA": directory.url.appendingPathComponent("data").path] }

    /// Runs `cloudnotes ARGS --cloud DIR`.
    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> ProcessResult {
        try CloudNotesBinary.run(arguments + ["--cloud", cloudPath], environment: data.merging(environment) { $1 })
    }

    func start(_ arguments: [String]) throws -> RunningProcess {
        try CloudNotesBinary.start(arguments + ["--cloud", cloudPath], environment: data)
    }

    /// Runs a command that must succeed and returns its stdout.
    func ok(_ arguments: String...) throws -> String {
        let result = try CloudNotesBinary.run(arguments + ["--cloud", cloudPath], environment: data)
        guard result.status == 0 else {
            throw CLITestFailure("cloudnotes \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Parses a command's JSON output.
    func json(_ arguments: String...) throws -> Any {
        let out = try CloudNotesBinary.run(arguments + ["--json", "--cloud", cloudPath], environment: data)
        guard out.status == 0 else { throw CLITestFailure("exit \(out.status): \(out.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(out.stdout.utf8))
    }

    /// The whole cloud as JSON text, to show a refused command changed nothing.
    func dump() throws -> String { try ok("cloud", "dump", "--json") }
}

struct CLITestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension ProcessResult {
    /// A refusal: non-zero status, nothing on stdout unless asked, one line on stderr.
    var isOneLineRefusal: Bool {
        status != 0 && stderr.hasPrefix("cloudnotes: ") && stderr.split(separator: "\n").count == 1
    }
}
