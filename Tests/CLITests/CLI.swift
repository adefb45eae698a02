import Foundation
import TestSupport

/// The `cloudnotes` executable pointed at one temporary cloud.
struct CLI {
    let directory = TemporaryDirectory("cli")
    var cloudPath: String { directory.url.appendingPathComponent("cloud").path }

    /// With a new, empty cloud (as `cloudnotes cloud init` makes one; no command makes one by itself).
    init() {
        do {
            _ = try TestStore.open(directory: directory.url.appendingPathComponent("cloud"), faults: nil)
        } catch {
            fatalError("cannot make the test's cloud: \(error)")
        }
    }
    /// The devices' data too stays in the test's directory, never in the home directory.
    var data: [String: String] { ["CLOUDNOTES_DATA": directory.url.appendingPathComponent("data").path] }

    /// Accounts and devices signed in so far (`sign-in`, which is what makes an account on a cloud directory).
    private let signedIn = SignedIn()

    /// An app command's account (and device) signed in first, once, as a person does before using one.
    private func signInFirst(_ arguments: [String]) throws {
        guard let first = arguments.first, first != "cloud", first != "sign-in",
              let at = arguments.firstIndex(of: "--account"), arguments.indices.contains(at + 1) else { return }
        let account = arguments[at + 1]
        let device = arguments.firstIndex(of: "--device").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } ?? account
        guard signedIn.insert(device) else { return }  // (at a device's first use only: see `App.signIn`)
        let result = try CloudNotesBinary.run(["sign-in", account, "--device", device, "--cloud", cloudPath], environment: data)
        guard result.status == 0 else { throw CLITestFailure("sign-in \(account)/\(device): \(result.stderr)") }
    }

    /// Runs `cloudnotes ARGS --cloud DIR`.
    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> ProcessResult {
        try signInFirst(arguments)
        return try CloudNotesBinary.run(arguments + ["--cloud", cloudPath], environment: data.merging(environment) { $1 })
    }

    func start(_ arguments: [String]) throws -> RunningProcess {
        try signInFirst(arguments)
        return try CloudNotesBinary.start(arguments + ["--cloud", cloudPath], environment: data)
    }

    /// Runs a command that must succeed and returns its stdout.
    func ok(_ arguments: String...) throws -> String {
        try signInFirst(arguments)
        let result = try CloudNotesBinary.run(arguments + ["--cloud", cloudPath], environment: data)
        guard result.status == 0 else {
            throw CLITestFailure("cloudnotes \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    /// Parses a command's JSON output.
    func json(_ arguments: String...) throws -> Any {
        try signInFirst(arguments)
        let out = try CloudNotesBinary.run(arguments + ["--json", "--cloud", cloudPath], environment: data)
        guard out.status == 0 else { throw CLITestFailure("exit \(out.status): \(out.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(out.stdout.utf8))
    }

    /// The whole cloud as JSON text, to show a refused command changed nothing.
    func dump() throws -> String { try ok("cloud", "dump", "--json") }
}

/// A set shared by copies of a `CLI`.
private final class SignedIn: @unchecked Sendable {
    private let lock = NSLock()
    private var names: Set<String> = []

    /// Adds it; false if it was there already.
    func insert(_ name: String) -> Bool { lock.withLock { names.insert(name).inserted } }
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
