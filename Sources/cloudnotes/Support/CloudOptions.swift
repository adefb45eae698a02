import ArgumentParser
import Cloud
import CloudPostgres
import Foundation

/// Where the cloud lives: `--cloud DIR|URL`, else `$CLOUDNOTES_CLOUD`, else
/// `$XDG_DATA_HOME/cloudnotes/cloud` (`~/.local/share` when unset). A URL
/// (`http://` or `https://`) names a server (`cloudnotes cloud serve`).
/// `--store postgresql://…` (else `$CLOUDNOTES_STORE`) keeps the cloud's
/// state in PostgreSQL rather than the directory's SQLite file.
struct CloudOptions: ParsableArguments {
    @Option(name: .customLong("cloud"), help: ArgumentHelp(
        "The cloud: a directory, or a server's http(s):// URL (several, comma-separated: the next is tried when one stops answering).",
        valueName: "DIR|URL[,URL…]"))
    var directory: String?

    @Option(name: .customLong("store"), help: ArgumentHelp(
        "Keep the cloud's state in this PostgreSQL database, not the directory's SQLite file (else $CLOUDNOTES_STORE). "
            + "TLS: ?sslmode=require checks the server's certificate, &sslrootcert=CA.pem trusts a private CA.",
        valueName: "postgresql://USER@HOST[:PORT]/DB"))
    var storeURL: String?

    /// The PostgreSQL database named, if the cloud's state is kept in one.
    var store: String? {
        storeURL ?? ProcessInfo.processInfo.environment["CLOUDNOTES_STORE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private var given: String? {
        let env = ProcessInfo.processInfo.environment
        return directory ?? env["CLOUDNOTES_CLOUD"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A store named for a server's cloud would be left unused: the server has its own.
    func validate() throws {
        for text in serverTexts { _ = try ServerURL.normalized(text) }
        if storeURL != nil, !servers.isEmpty {
            throw ValidationError("--store names where a cloud directory keeps its state; a server (--cloud URL) keeps its own")
        }
    }

    /// Whether the command names a cloud (an option or the environment), rather than leaving it to the device.
    var isNamed: Bool { given != nil || store != nil }

    /// The PostgreSQL store at `text`, or one line saying which store failed and how (named as given: the
    /// option, or the variable).
    private func openStore(_ text: String) throws -> PostgresStorage {
        let opened = Result { () throws(CloudError) in try PostgresStorage(url: text) }
        guard case .failure(let error) = opened else { return try opened.get() }
        let named = storeURL == nil ? "$CLOUDNOTES_STORE" : "--store"
        if case .serviceUnavailable = error {
            // (Text that is no PostgreSQL URL never opened a store: shown as the person wrote it.)
            let shown = (try? PostgresLocation(parsing: text).description) ?? text
            throw CLIError(message: "the cloud's store \(shown) (\(named)) is not answering: is PostgreSQL running there, and is the URL right?")
        }
        if case .invalidArguments(let why) = error { throw CLIError(message: "\(named): \(why)") }
        throw error
    }

    /// The server named (the first, when several are), if the cloud is one.
    var server: URL? { servers.first }

    /// Whether the place named holds a cloud: the directory its file, or the database its tables.
    func holdsCloud(explained: Bool = true) throws -> Bool {
        guard let store else { return FileManager.default.fileExists(atPath: url.appendingPathComponent(LocalCloud.fileName).path) }
        let location: PostgresLocation
        do { location = try PostgresLocation(parsing: store) } catch {
            let why = if case .invalidArguments(let why) = error { why } else { "\(error)" }
            throw CLIError(message: "\(storeURL == nil ? "$CLOUDNOTES_STORE" : "--store"): \(why)")
        }
        do {
            return try PostgresStorage.holdsCloud(location)
        } catch {
            guard explained else { throw error }
            _ = try openStore(store)  // says which store failed and how, in one line
            throw error
        }
    }

    /// The servers named, in the order to try them, each as one cloud's URL is written (`ServerURL`); none when the
    /// cloud is a directory.
    var servers: [URL] { serverTexts.compactMap { try? ServerURL.normalized($0) } }  // (each checked by `validate`)

    private var serverTexts: [String] {
        guard let given, given.lowercased().hasPrefix("http://") || given.lowercased().hasPrefix("https://") else { return [] }
        return given.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The cloud directory (when the cloud is not a server).
    var url: URL {
        if let given { return URL(fileURLWithPath: given) }
        return Self.dataHome(ProcessInfo.processInfo.environment).appendingPathComponent("cloudnotes/cloud")
    }

    /// `$XDG_DATA_HOME`, else `$HOME/.local/share` as the XDG spec says (Foundation's home directory on Linux is
    /// the password file's, which ignores a `HOME` the person set), else the password file's home.
    static func dataHome(_ env: [String: String]) -> URL {
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg) }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share")
    }

    /// Where the operator's commands act: the directory, or a server this machine holds an operator's key for.
    func console(warning: Bool = true) throws -> OperatorConsole {
        guard let server else { return .local(try open(warning: warning)) }
        guard let remote = try OperatorSignIn.load(server: server) else {
            throw CLIError.usage("this command works on the machine that holds the cloud directory, or with an operator's key for "
                                 + "\(server.absoluteString) (there: cloudnotes cloud operator-code; here: cloudnotes cloud operator-sign-in "
                                 + "--cloud \(server.absoluteString) --code CODE)")
        }
        return .remote(remote)
    }

    /// The cloud in a directory, for the operator's commands (they work where the directory is); a fault plan
    /// that cannot be read is said on stderr (`warning`), as it is ignored.
    /// `explained`: a store that cannot be used is one line naming it (a `CLIError`), not the store's `CloudError`
    /// (which a server waits out when it says the store is not answering yet).
    /// `creating`: a directory (or database) without a cloud gets a new one; otherwise it is refused, saying how to
    /// make one and where else the cloud may be: no command makes a cloud as a side effect.
    func open(warning: Bool = true, explained: Bool = true, creating: Bool = false) throws -> LocalCloud {
        if let server {
            throw CLIError.usage("this command works on the machine that holds the cloud directory, not through a server (\(server.absoluteString))")
        }
        if let given = storeURL, PostgresLocation.holdsPassword(given) {
            Output.warn("--store's URL holds a password, which every user of this machine can read (ps): put it in ~/.pgpass, "
                        + "PGPASSWORD, or a file named by ?passfile=FILE")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIError(message: "cannot use cloud directory \(url.path): it is a file, not a directory")
        }
        if !creating, !(try holdsCloud(explained: explained)) {
            if let store {
                throw CLIError(message: "the database \(DeviceCloud.redacted(store)) holds no cloud: to make one there, cloudnotes cloud init "
                               + "\(url.path) --store \(DeviceCloud.redacted(store)); or name the database the cloud is in")
            }
            let markedElsewhere = FileManager.default.fileExists(atPath: url.appendingPathComponent("high-water").path)
            throw CLIError(message: "there is no cloud in \(url.path)"
                           + (markedElsewhere ? " (its state seems to be kept in PostgreSQL: give --store postgresql://…, or $CLOUDNOTES_STORE)"
                              : "; if its state is kept in PostgreSQL, give --store postgresql://… (or $CLOUDNOTES_STORE)")
                           + "; to make a new cloud there: cloudnotes cloud init \(url.path)")
        }
        let storage = try store.map { explained ? try openStore($0) : try PostgresStorage(url: $0) }
        let cloud = try LocalCloud(directory: url, storage: storage, highWaterMirror: LocalCloud.highWaterMirror())
        if warning, let problem = cloud.faultPlanProblem { Output.warn(problem) }
        if let problem = cloud.highWaterProblem { Output.warn(problem) }
        return cloud
    }
}

/// Who asks, and which of their databases and zones they address.
struct DatabaseOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Option(help: "The account making the request.")
    var account: String

    @Option(help: "private, shared or public.")
    var database: DatabaseScope = .private

    @Option(help: "The zone.")
    var zone: String = ZoneID.defaultName

    @Option(help: "With --database shared: the account that owns the zone.")
    var owner: String?

    func validate() throws {
        if database == .shared && owner == nil { throw ValidationError("--database shared needs --owner, the zone's owner") }
        if database != .shared && owner != nil { throw ValidationError("--owner goes with --database shared") }
    }

    /// Opens the cloud and returns the caller's view of the database, and the zone as it names it.
    func open() throws -> (cloud: any Cloud, database: CloudDatabase, zone: ZoneID) {
        let cloud = try cloud.open()
        let caller = try cloud.account(named: account)
        let zoneID = try owner.map { ZoneID(name: zone, owner: try cloud.account(named: $0).id) } ?? ZoneID(name: zone)
        return (cloud, cloud.database(database, as: caller), zoneID)
    }
}

extension DatabaseScope: ExpressibleByArgument {}
extension ZoneDeletionReason: ExpressibleByArgument {}
extension SavePolicy: ExpressibleByArgument {}

/// Permissions as people type them: read-only, read-write, none.
extension SharePermission: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }

    public static var allValueStrings: [String] { ["none", "read-only", "read-write"] }
}
