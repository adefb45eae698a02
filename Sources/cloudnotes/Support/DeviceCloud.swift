import Cloud
import CloudClient
import CloudPostgres
import Foundation

/// The cloud a device belongs to, kept in its directory (`cloud.json`) from its first command or its sign-in: a
/// cloud directory (and the PostgreSQL database its state is in, if any), or the servers of a cloud, and the cloud's
/// identity. Every command on the device uses that cloud; one that names another is refused, naming both, so a
/// forgotten `--cloud` never pours a device into a new, empty cloud. A server URL is one cloud whatever its spelling
/// (`ServerURL`), and another server is the same cloud when it says so: the device is known by the cloud's identity,
/// not by the URL it enrolled through.
struct DeviceCloud: Codable, Equatable {
    static let file = "cloud.json"

    /// A directory's path (symbolic links resolved) and its store (`PostgresLocation`'s words, never a password).
    var directory: String?
    var store: String?
    /// A cloud's servers, each as `ServerURL` writes it, in the order to try them.
    var servers: [String]?
    /// The identity of the cloud (`CloudIdentity.id`) when it was last seen; nil while it is not known.
    var identity: String?

    static func load(_ device: URL) throws -> DeviceCloud? {
        let url = device.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(DeviceCloud.self, from: Data(contentsOf: url))
        } catch {
            throw CLIError(message: "\(url.path) cannot be read (\(error.localizedDescription)): it says which cloud the device belongs to; "
                           + "sign the device in again (cloudnotes sign-in)")
        }
    }

    func save(in device: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try DeviceOptions.writePrivately(try encoder.encode(self), to: device.appendingPathComponent(Self.file))
    }

    /// The cloud a command names, as a device would remember it (no identity yet).
    init(named options: CloudOptions) {
        if !options.servers.isEmpty {
            servers = options.servers.map(\.absoluteString)
        } else {
            directory = Self.canonical(options.url)
            store = options.store.map(Self.redacted)
        }
    }

    init(directory: String?, store: String?, servers: [String]?, identity: String?) {
        self.directory = directory
        self.store = store
        self.servers = servers
        self.identity = identity
    }

    /// The same place: the same directory and store, or a server in common.
    func samePlace(as other: DeviceCloud) -> Bool {
        if let mine = servers, let theirs = other.servers { return !Set(mine).isDisjoint(with: theirs) }
        return servers == nil && other.servers == nil && directory == other.directory && store == other.store
    }

    /// "the cloud directory /x", "the cloud in postgresql://…", "the servers https://a:8443, https://b:8443".
    var description: String {
        if let servers { return (servers.count == 1 ? "the server " : "the servers ") + servers.joined(separator: ", ") }
        if let store { return "the cloud in \(store) (directory \(directory ?? "?"))" }
        return "the cloud directory \(directory ?? "?")"
    }

    /// The place as a command names it: `--cloud …` (and `--store …`).
    var arguments: String {
        if let servers { return "--cloud \(servers.joined(separator: ","))" }
        return "--cloud \(directory ?? "?")" + (store.map { " --store \($0)" } ?? "")
    }

    static func canonical(_ url: URL) -> String { url.standardizedFileURL.resolvingSymlinksInPath().path }

    /// A store URL without its password, as it may be kept in a file (text that is no PostgreSQL URL has none to hide).
    static func redacted(_ text: String) -> String { (try? PostgresLocation(parsing: text).description) ?? text }
}

/// A server's URL as one cloud: scheme and host in lower case, the scheme's default port and a bare `/` path
/// dropped. Anything more (a path, a query, a user) is no server's URL and is refused.
enum ServerURL {
    static func normalized(_ text: String) throws -> URL {
        guard var parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parts.host, !host.isEmpty else {
            throw CLIError.usage("\(text.prefix(80).inlineQuoted) is not a server's URL (https://HOST[:PORT])")
        }
        guard parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil else {
            throw CLIError.usage("\(text.prefix(80).inlineQuoted): a server's URL is https://HOST[:PORT], with no path, query or user")
        }
        parts.scheme = scheme
        parts.host = host.lowercased()
        if parts.port == (scheme == "https" ? 443 : 80) { parts.port = nil }
        parts.path = ""
        guard let url = parts.url else { throw CLIError.usage("\(text.prefix(80).inlineQuoted) is not a server's URL") }
        return url
    }
}
