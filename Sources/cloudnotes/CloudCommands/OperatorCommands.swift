import ArgumentParser
import Cloud
import Foundation

struct OperatorCode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator-code",
        abstract: "Print a one-time code an operator's machine enrols its key with (valid for a day).",
        discussion: """
            With that key (cloudnotes cloud operator-sign-in --cloud URL --code CODE, on the operator's machine), \
            create-account, enrol, dump, faults and purge work through the server as they do here.
            """)

    @OptionGroup var cloud: CloudOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let code = try cloud.open().makeOperatorCode()
        if json { return try Output.json(["code": code]) }
        Output.line("operator code: \(code) (one use, valid for a day)")
        Output.line("on the operator's machine: cloudnotes cloud operator-sign-in --cloud https://SERVER --code \(code)")
    }
}

struct OperatorSignInCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator-sign-in",
        abstract: "Enrol this machine's operator key with a server, for the operator's commands through it.",
        discussion: """
            Makes a key pair (the private key stays in the data directory's operator/, readable by you only) and \
            trades the code cloudnotes cloud operator-code printed for the registration of its public half.
            """)

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The one-time operator code.") var code: String
    @Option(help: "What to call this key in the server's list.") var name = ProcessInfo.processInfo.hostName

    func validate() throws {
        if cloud.server == nil { throw ValidationError("operator-sign-in needs --cloud http(s)://SERVER") }
    }

    func run() throws {
        let server = cloud.server!  // validated
        let keyID = try OperatorSignIn.enrol(server: server, code: code, name: name)
        Output.line("operator key \(keyID.prefix(16)) enrolled with \(server.absoluteString)")
    }
}

struct Operators: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the operators' keys enrolled with this cloud.")

    @OptionGroup var cloud: CloudOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let keys = try cloud.open().operatorKeys()
        try KeyList.print(keys.map { .init(keyID: $0.keyID, name: $0.name, enrolled: $0.createdAt, revoked: $0.revokedAt) }, json: json,
                          named: "NAME", none: "no operators' keys (cloudnotes cloud operator-code prints a code)")
    }
}

struct RevokeOperator: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cut an operator's key off at once: its next request is refused.")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The key's ID (or a unique prefix of it, as operators shows).") var keyID: String

    func run() throws {
        let local = try cloud.open()
        let matches = try local.operatorKeys().filter { $0.keyID.hasPrefix(keyID) && $0.revokedAt == nil }
        guard matches.count == 1, let key = matches.first else {
            throw CLIError(message: matches.isEmpty ? "no active operator key has an ID starting \(keyID)"
                           : "\(matches.count) operator keys have IDs starting \(keyID): give more of it")
        }
        try local.revokeOperatorKey(keyID: key.keyID)
        Output.line("revoked operator key \(key.name) (\(key.keyID.prefix(16))): its next request is refused")
    }
}
