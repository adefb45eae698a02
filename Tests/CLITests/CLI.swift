import Foundation
import TestSupport

/// The `cloudnotes` executable pointed at one temporary cloud.
struct CLI {
    let directory = TemporaryDirectory("cli")
    var cloudPath: String { directory.url.appendingPathComponent("cloud").path }

    /// Runs `cloudnotes ARGS --cloud DIR`.
    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> ProcessResult {
        try CloudNotesBinary.run(arguments + ["--cloud", cloudPath], environment: environment)
    }

    func start(_ arguments: [String]) throws -> RunningProcess {
        try CloudNotesBinary.start(arguments + ["--cloud", cloudPath])
    }

    /// Runs a command that must succeed and returns its stdout.
    func ok(_ arguments: String...) throws -> String {
        let result = try CloudNotesBinary.run(arguments + ["--cloud", cloudPath])
        guard result.status == 0 else {
            throw CLITestFailure("cloudnotes \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Parses a command's JSON output.
    func json(_ arguments: String...) throws -> Any {
        let out = try CloudNotesBinary.run(arguments + ["--json", "--cloud", cloudPath])
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
