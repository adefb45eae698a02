import ArgumentParser
import Cloud
import CloudPostgres
import CloudServer
import CloudWire
import Foundation
import NIOCore
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the cloud directory over HTTP(S) to devices on other machines (docs/PROTOCOL.md).",
        discussion: """
            Every request must be signed by an enrolled device (cloudnotes sign-in … --code) or carry a web token \
            pair. Prints "listening on HOST:PORT" once ready (port 0 picks a free one); one JSON line per request on \
            stderr. Stops cleanly on SIGINT or SIGTERM.
            """)

    @OptionGroup var cloud: CloudOptions
    @Option(help: ArgumentHelp("Where to listen.", valueName: "HOST:PORT")) var listen = "127.0.0.1:8443"
    @Option(help: ArgumentHelp("A PEM certificate chain: serve HTTPS.", valueName: "FILE")) var tlsCert: String?
    @Option(help: ArgumentHelp("The certificate's PEM private key.", valueName: "FILE")) var tlsKey: String?
    @Flag(name: .customLong("init"), help: "Make a new, empty cloud if the directory (or --store's database) holds none.") var makeCloud = false

    /// `--listen` as a host and a port, if it is one.
    private var address: (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), colon != listen.startIndex,
              let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        return (String(listen[..<colon]), port)
    }

    func validate() throws {
        guard address != nil else { throw ValidationError("--listen is HOST:PORT, like 127.0.0.1:8443") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    func run() async throws {
        // Before the store is opened: its connections' logs are the server's too, one JSON object a line.
        LoggingSystem.bootstrap { label in JSONLineLog(label: label) }
        let local = try await openWaiting()
        if let moved = try local.movedTo {
            throw CLIError(message: "this cloud moved to \(moved) (cloudnotes cloud migrate): serve it with --store \(moved)")
        }
        let (host, port) = address!  // validated
        var configuration = CloudServer.Configuration(host: host, port: port, tlsCertificate: tlsCert, tlsKey: tlsKey)
        let env = ProcessInfo.processInfo.environment
        configuration.pollTimeout = Double(env["CLOUDNOTES_POLL_TIMEOUT"] ?? "") ?? configuration.pollTimeout
        // CLOUDNOTES_RATE_LIMIT=RATE,BURST: requests a second per account, and the burst allowed.
        if let limit = env["CLOUDNOTES_RATE_LIMIT"]?.split(separator: ",").compactMap({ Double($0) }), limit.count == 2 {
            (configuration.rate, configuration.burst) = (limit[0], limit[1])
        }
        // CLOUDNOTES_ENROL_LIMIT=RATE,BURST: enrolments a second per address, and the burst allowed.
        if let limit = env["CLOUDNOTES_ENROL_LIMIT"]?.split(separator: ",").compactMap({ Double($0) }), limit.count == 2 {
            (configuration.enrolmentRate, configuration.enrolmentBurst) = (limit[0], limit[1])
        }
        // CLOUDNOTES_TIMEOUTS=IDLE,BODY,WRITE,REQUEST (seconds); CLOUDNOTES_IN_FLIGHT=READS,WRITES,QUERIES (per account);
        // CLOUDNOTES_CONNECTIONS=N (see CloudServer.Configuration).
        if let t = env["CLOUDNOTES_TIMEOUTS"]?.split(separator: ",").compactMap({ Double($0) }), t.count == 4, t.allSatisfy({ $0 > 0 }) {
            (configuration.idleTimeout, configuration.bodyTimeout, configuration.writeTimeout, configuration.requestTimeout) = (t[0], t[1], t[2], t[3])
        }
        if let n = env["CLOUDNOTES_IN_FLIGHT"]?.split(separator: ",").compactMap({ Int($0) }), n.count == 3, n.allSatisfy({ $0 > 0 }) {
            (configuration.inFlightReads, configuration.inFlightWrites, configuration.inFlightQueries) = (n[0], n[1], n[2])
        }
        if let n = env["CLOUDNOTES_CONNECTIONS"].flatMap({ Int($0) }), n > 0 { configuration.maxConnections = n }
        let server = CloudServer(cloud: local, configuration: configuration)
        do {
            try await server.run { address in Output.line("listening on \(address)") }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CLIError(message: "cannot listen on \(listen): the address is in use (another server on that port?)")
        }
    }
}

extension Serve {
    /// The cloud, once its store answers: a server started before its database (both booted together, say)
    /// waits for it, saying so once, rather than exiting. Anything else wrong with the store ends it.
    private func openWaiting() async throws -> LocalCloud {
        var said = false
        while true {
            do {
                return try cloud.open(explained: false, creating: makeCloud)
            } catch let error as CloudError {
                guard case .serviceUnavailable(let wait) = error else { throw error }
                if !said {
                    let store = cloud.store.flatMap { try? PostgresLocation(parsing: $0) }.map { "\($0)" } ?? "database"  // no password
                    Output.warn("the cloud's store \(store) is not answering; trying again every \(Int(max(1, wait))) s")
                    said = true
                }
                try await Task.sleep(for: .seconds(max(1, wait)))
            }
        }
    }
}

struct InitCloud: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a new, empty cloud in a directory (its state in the directory's file, or in PostgreSQL with --store).",
        discussion: "No other command makes a cloud: one that names a directory without one is refused, so a mistyped or forgotten "
            + "--cloud or --store never starts an empty cloud that devices would take for theirs.")

    @Argument(help: "The directory (default: $CLOUDNOTES_CLOUD, else $XDG_DATA_HOME/cloudnotes/cloud).") var directory: String?
    @Option(name: .customLong("store"), help: ArgumentHelp("Keep the cloud's state in this PostgreSQL database.",
                                                          valueName: "postgresql://USER@HOST[:PORT]/DB")) var storeURL: String?

    func run() throws {
        let cloud = try CloudOptions.parse((directory.map { ["--cloud", $0] } ?? []) + (storeURL.map { ["--store", $0] } ?? []))
        let path = cloud.url.path
        guard try !cloud.holdsCloud() else {
            let there = try cloud.open().identity()
            throw CLIError(message: "\(path) already holds a cloud (\(there)): nothing was made")
        }
        let made = try cloud.open(creating: true)
        Output.line("made a new cloud in \(path)" + (cloud.store.map { ", its state in \(DeviceCloud.redacted($0))" } ?? "")
                    + " (\(try made.identity().id)); sign in on it with cloudnotes sign-in NAME --cloud \(path)")
    }
}

struct Enrol: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a one-time code another device of an account signs in to a server with (valid for a day).")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The account.") var name: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        try EnrolmentCode.print(try cloud.console().enrolmentCode(forAccountNamed: name), for: name, server: cloud.server, json: json)
    }
}

/// How a new code is shown, by create-account and enrol alike.
enum EnrolmentCode {
    /// - Parameter server: where devices reach the cloud, when the command went through it.
    static func print(_ code: String, for name: String, server: URL?, json: Bool) throws {
        if json { return try Output.json(["code": code]) }
        Output.line("enrolment code for \(name): \(code) (one use, valid for a day)")
        Output.line("on the device: cloudnotes sign-in \(name) --device DEVICE --cloud \(server?.absoluteString ?? "https://SERVER") --code \(code)")
    }
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the devices enrolled for an account.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The account.") var account: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let local = try cloud.open()
        let devices = try local.devices(of: try local.account(named: account))
        try KeyList.print(devices.map { .init(keyID: $0.keyID, name: $0.name, enrolled: $0.createdAt, revoked: $0.revokedAt) }, json: json,
                          named: "DEVICE", none: "no devices enrolled for \(account) (cloudnotes cloud enrol \(account) prints a code)")
    }
}

/// Enrolled keys as devices and operators lists show them.
enum KeyList {
    struct Row: Encodable {
        var keyID: String
        var name: String
        var enrolled: Date
        var revoked: Date?
    }

    static func print(_ rows: [Row], json: Bool, named: String, none: String) throws {
        if json { return try Output.json(rows) }
        if rows.isEmpty { return Output.line(none) }
        Output.table([["KEY ID", named, "ENROLLED", "STATUS"]] + rows.map {
            [String($0.keyID.prefix(16)), $0.name, $0.enrolled.formatted(.iso8601), $0.revoked == nil ? "active" : "revoked"]
        })
    }
}

struct RevokeDevice: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cut a device off at once: its next request is refused.")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The device's key ID (or a unique prefix of it, as devices shows).") var keyID: String
    @Option(help: "The account the device is of.") var account: String

    func run() throws {
        let local = try cloud.open()
        let matches = try local.devices(of: try local.account(named: account)).filter { $0.keyID.hasPrefix(keyID) && $0.revokedAt == nil }
        guard matches.count == 1, let device = matches.first else {
            throw CLIError(message: matches.isEmpty ? "no active device of \(account) has a key ID starting \(keyID)"
                           : "\(matches.count) devices of \(account) have key IDs starting \(keyID): give more of it")
        }
        try local.revokeDevice(keyID: device.keyID)
        Output.line("revoked \(device.name) (\(device.keyID.prefix(16))): its next request is refused")
    }
}

struct IssueWebToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-token",
        abstract: "Issue a ckAPIToken and ckWebAuthToken pair for a client that cannot sign requests.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The account the tokens act as.") var account: String
    @Option(help: "How many days the pair works.") var days: Double = 30
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let local = try cloud.open()
        let token = try local.makeWebToken(for: try local.account(named: account), lifetime: days * 86_400)
        if json {
            return try Output.json(["ckAPIToken": token.apiToken, "ckWebAuthToken": token.webAuthToken,
                                    "expires": token.expiresAt.formatted(.iso8601)])
        }
        Output.line("ckAPIToken=\(token.apiToken)")
        Output.line("ckWebAuthToken=\(token.webAuthToken)")
        Output.line("(shown once; works until \(token.expiresAt.formatted(.iso8601)); pass both as query parameters)")
    }
}

struct RevokeWebToken: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke-web-token", abstract: "Cut off a web token pair at once.")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "Its ckAPIToken.") var apiToken: String

    func run() throws {
        try cloud.open().revokeWebToken(apiToken: apiToken)
        Output.line("revoked web token \(apiToken): its next request is refused")
    }
}

/// The server's access log: one JSON object per line on stderr.
struct JSONLineLog: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        var fields: [String: String] = ["time": Date().formatted(.iso8601), "level": "\(level)", "message": "\(message)"]
        for (key, value) in metadata.merging(extra ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        // The wire's writer: one line a request, so Foundation's (a tenth of a busy server's time) is too slow.
        var object = JSONObject()
        for key in fields.keys.sorted() { object.add(key, .string(fields[key]!)) }
        // (Strings only: cannot fail; and a log line is never worth failing a request.)
        guard let data = try? JSON.object(object).encoded() else { return }
        Output.log(String(decoding: data, as: UTF8.self))
    }
}
