import Cloud
import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// A PostgreSQL database named as libpq names one: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB`, with
/// `?host=/DIR` for a Unix socket in `DIR` (the socket `DIR/.s.PGSQL.PORT`), `?sslmode=disable|prefer|require`
/// as libpq's (default: `disable` on loopback and a socket, else `prefer`; the server's certificate and name are
/// checked with `require`, as libpq's `verify-full`), and `?sslrootcert=FILE`, the PEM file of the CA that signs
/// the server's certificate (a private CA's; without it, the system's CAs; with it and no `sslmode`, `require`).
/// `postgres://` works too. Without a password in the URL, it comes from where libpq looks (`PostgresPassword`):
/// `PGPASSWORD`, `?passfile=FILE`, `PGPASSFILE`, `~/.pgpass`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    /// The directory of the server's Unix socket, when it is reached through one.
    public var socketDirectory: String?
    /// disable, prefer or require.
    public var sslMode: String
    /// The PEM file of the CAs trusted to sign the server's certificate; nil for the system's.
    public var sslRootCertificate: String?

    public init(user: String, password: String? = nil, host: String = "127.0.0.1", port: Int = 5432, database: String,
                socketDirectory: String? = nil, sslMode: String? = nil, sslRootCertificate: String? = nil) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.socketDirectory = socketDirectory
        self.sslMode = sslMode ?? Self.defaultSSLMode(host: host, socket: socketDirectory)
        self.sslRootCertificate = sslRootCertificate
    }

    private static func defaultSSLMode(host: String, socket: String?) -> String {
        socket != nil || ["127.0.0.1", "::1", "localhost"].contains(host) ? "disable" : "prefer"
    }

    /// The query parameters a store's URL takes.
    static let parameters = ["host", "sslmode", "sslrootcert", "passfile"]

    /// Whether the URL itself holds a password (which `ps` shows to every user of the machine).
    public static func holdsPassword(_ text: String) -> Bool { withoutPassword(text) != text }

    /// Whether `text` names a PostgreSQL database rather than a directory.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    public init(parsing text: String) throws(CloudError) {
        let shown = Self.withoutPassword(text)
        let bad = CloudError.invalidArguments(
            "\(shown.inlineQuoted) is not a PostgreSQL URL like postgresql://USER@HOST[:PORT]/DATABASE")
        guard Self.isURL(text), let components = URLComponents(string: text), let user = components.user, !user.isEmpty
        else { throw bad }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw bad }
        self.user = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidArguments("\(port) is not a port (1 to 65535) in \(shown.inlineQuoted)") }
        self.database = database
        // A parameter misspelt, or given twice, would be quietly left out or overridden (a TLS mode, say).
        let items = components.queryItems ?? []
        for item in items {
            guard Self.parameters.contains(item.name) else {
                throw .invalidArguments("\(item.name.inlineQuoted) is not a parameter of the store's URL (\(Self.parameters.joined(separator: ", ")))")
            }
            guard items.filter({ $0.name == item.name }).count == 1 else { throw .invalidArguments("\(item.name) is given twice in the store's URL") }
        }
        socketDirectory = items.first(where: { $0.name == "host" })?.value
        // libpq's verify-full is what require does here.
        let mode = items.first(where: { $0.name == "sslmode" })?.value.map { $0 == "verify-full" ? "require" : $0 }
        guard mode.map({ ["disable", "prefer", "require"].contains($0) }) ?? true else {
            throw .invalidArguments("sslmode is disable, prefer or require (or verify-full), not \(mode!.inlineQuoted)")
        }
        sslRootCertificate = items.first(where: { $0.name == "sslrootcert" })?.value
        if password == nil {
            password = PostgresPassword.lookUp(host: host, port: port, database: database, user: self.user,
                                               passfile: items.first(where: { $0.name == "passfile" })?.value)
        }
        // A CA named is a CA to check against: unless told otherwise, require it.
        sslMode = mode ?? (sslRootCertificate != nil ? "require" : Self.defaultSSLMode(host: host, socket: socketDirectory))
        if let file = sslRootCertificate, !FileManager.default.isReadableFile(atPath: file) {
            throw .invalidArguments("sslrootcert \(file.inlineQuoted) is not a readable file")
        }
    }

    /// `text` as a message may quote it: a password in it left out (whether or not the rest parses).
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
              let colon = text[scheme.upperBound..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + String(text[at...])
    }

    /// The URL without its password, as logs and messages show it.
    public var description: String {
        var text = "postgresql://\(user)@\(host):\(port)/\(database)"
        var query: [String] = []
        if let socketDirectory { query.append("host=\(socketDirectory)") }
        if sslMode != Self.defaultSSLMode(host: host, socket: socketDirectory) { query.append("sslmode=\(sslMode)") }
        if let sslRootCertificate { query.append("sslrootcert=\(sslRootCertificate)") }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    var configuration: PostgresConnection.Configuration {
        get throws {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password,
                                  database: database)
        } else {
            var tls = TLSConfiguration.makeClientConfiguration()
            if sslMode == "prefer" { tls.certificateVerification = .none }  // as libpq's prefer: encrypted, not verified
            if let sslRootCertificate { tls.trustRoots = .file(sslRootCertificate) }
            let context = sslMode == "disable" ? nil : try NIOSSLContext(configuration: tls)
            configuration = .init(host: host, port: port, username: user, password: password, database: database,
                                  tls: context.map { sslMode == "require" ? .require($0) : .prefer($0) } ?? .disable)
        }
        configuration.options.connectTimeout = .seconds(5)
        // A writer that stops while holding the sequence row's lock must not stop every other writer for good.
        configuration.options.additionalStartupParameters = [
            ("lock_timeout", "10s"), ("idle_in_transaction_session_timeout", "60s"), ("statement_timeout", "60s"),
            // Prepared statements are run with their values written as literals (`StatementCache`): a backslash
            // in one is a backslash, whatever the database's default.
            ("standard_conforming_strings", "on"),
        ]
        return configuration
        }
    }
}

extension PostgresLocation {
    /// Makes a new empty database beside this one (the account must be allowed to) and names it.
    public func creatingDatabase(_ name: String) throws(CloudError) -> PostgresLocation {
        try administer("CREATE DATABASE \"\(name)\"")
        var made = self
        made.database = name
        return made
    }

    /// Drops a database beside this one, closing what is connected to it.
    public func droppingDatabase(_ name: String) throws(CloudError) {
        try administer("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }

    private func administer(_ sql: String) throws(CloudError) {
        let pool = PostgresPool(location: self, size: 1, logger: Logger(label: "cloudnotes.postgres"))
        do {
            try pool.with { connection in _ = try connection.queryAnswered(PostgresQuery(unsafeSQL: sql), logger: pool.logger).wait() }
        } catch {
            throw PostgresFailure(error).cloudError
        }
    }
}
