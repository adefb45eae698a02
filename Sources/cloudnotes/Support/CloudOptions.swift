import ArgumentParser
import Cloud
import Foundation

/// Where the cloud lives: `--cloud DIR`, else `$CLOUDNOTES_CLOUD`, else
/// `$XDG_DATA_HOME/cloudnotes/cloud` (`~/.local/share` when unset).
struct CloudOptions: ParsableArguments {
    @Option(name: .customLong("cloud"), help: ArgumentHelp("The cloud directory.", valueName: "DIR"))
    var directory: String?

    var url: URL {
        let env = ProcessInfo.processInfo.environment
        if let directory { return URL(fileURLWithPath: directory) }
        if let path = env["CLOUDNOTES_CLOUD"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return Self.dataHome(env).appendingPathComponent("cloudnotes/cloud")
    }

    static func dataHome(_ env: [String: String]) -> URL {
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
    }

    /// The cloud; a fault plan that cannot be read is said on stderr (`warning`), as it is ignored.
    func open(warning: Bool = true) throws -> LocalCloud {
        let cloud = try LocalCloud(directory: url)
        if warning, let problem = cloud.faultPlanProblem { Output.warn(problem) }
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

    @Option(help: "The zone (default: the default zone).")
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
