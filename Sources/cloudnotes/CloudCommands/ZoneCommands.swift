import ArgumentParser
import Cloud
import Notes

struct CreateZone: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a custom zone in an account's private database (idempotent).")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The zone's name.") var zone: String
    @Option(help: "The owning account.") var account: String

    func run() throws {
        let cloud = try cloud.open()
        let zoneID = try cloud.database(.private, as: try cloud.account(named: account)).save(zone: ZoneID(name: zone))
        Output.line("zone \(zoneID.name) of \(account) exists")
    }
}

struct DeleteZone: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a custom zone and every record in it.")

    @OptionGroup var cloud: CloudOptions
    @Argument(help: "The zone's name.") var zone: String
    @Option(help: "The owning account.") var account: String
    @Option(help: "deleted, purged or encryptedDataReset.") var reason: ZoneDeletionReason = .deleted

    func run() throws {
        let cloud = try cloud.open()
        try cloud.database(.private, as: try cloud.account(named: account)).delete(zone: ZoneID(name: zone), reason: reason)
        Output.line("deleted zone \(zone) of \(account) (\(reason.rawValue))")
    }
}

struct Zones: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the zones an account sees in one of its databases.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The account asking.") var account: String
    @Option(help: "private, shared or public.") var database: DatabaseScope = .private
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let cloud = try cloud.open()
        let zones = try cloud.database(database, as: try cloud.account(named: account)).allZones()
        let names = try AccountNames(cloud)
        if json { return try Output.json(zones.map { ["name": $0.name, "owner": names($0.owner)] }) }
        if zones.isEmpty { return Output.line("no zones in \(account)'s \(database.rawValue) database") }
        Output.table([["ZONE", "OWNER"]] + zones.map { [$0.name, names($0.owner)] })
    }
}
