import ArgumentParser
import Cloud
import Notes

struct Changes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What changed since a change token: in a zone with --zone, else which zones changed in the database.")

    @OptionGroup var cloud: CloudOptions
    @Option(help: "The account asking.") var account: String
    @Option(help: "private, shared or public.") var database: DatabaseScope = .private
    @Option(help: "The zone whose record changes to fetch.") var zone: String?
    @Option(help: "With --database shared: the zone's owner.") var owner: String?
    @Option(help: "The token a previous fetch printed (none: everything).") var token: String?
    @Option(parsing: .unconditional, help: "At most this many changes in the batch.") var limit: Int?
    @Flag(help: "Print JSON.") var json = false

    private struct ZoneChangesView: Encodable {
        var modified: [RecordView]
        var deleted: [String]
        var token: String
        var moreComing: Bool
    }

    private struct DatabaseChangesView: Encodable {
        var modified: [String]
        var deleted: [[String: String]]
        var token: String
        var moreComing: Bool
    }

    func run() throws {
        let since = try token.map { try ChangeToken(parsing: $0) }
        if let limit, limit < 1 { throw CLIError.usage("--limit must be at least 1") }
        let cloud = try cloud.open()
        let db = cloud.database(database, as: try cloud.account(named: account))
        let names = try AccountNames(cloud)
        if let zone {
            let zoneID = try owner.map { ZoneID(name: zone, owner: try cloud.account(named: $0).id) } ?? ZoneID(name: zone)
            let changes = try db.zoneChanges(in: zoneID, since: since, limit: limit)
            if json {
                return try Output.json(ZoneChangesView(
                    modified: changes.modified.map { RecordView($0, names: names) },
                    deleted: changes.deleted.map(\.id.name), token: changes.token.description, moreComing: changes.moreComing))
            }
            Output.table(changes.modified.map { ["changed", $0.id.name, $0.type, "tag \($0.changeTag ?? "")"] }
                + changes.deleted.map { ["deleted", $0.id.name, $0.type, ""] })
            footer(changes.token, changes.moreComing)
        } else {
            let changes = try db.databaseChanges(since: since, limit: limit)
            if json {
                return try Output.json(DatabaseChangesView(
                    modified: changes.modified.map(\.name),
                    deleted: changes.deleted.map { ["zone": $0.zone.name, "reason": $0.reason.rawValue] },
                    token: changes.token.description, moreComing: changes.moreComing))
            }
            Output.table(changes.modified.map { ["changed", "zone", $0.name + (database == .shared ? " of \(names($0.owner))" : "")] }
                + changes.deleted.map { ["deleted", "zone", "\($0.zone.name) (\($0.reason.rawValue))"] })
            footer(changes.token, changes.moreComing)
        }
    }

    private func footer(_ token: ChangeToken, _ moreComing: Bool) {
        Output.line("token \(token)")
        Output.line("more coming: \(moreComing ? "yes" : "no")")
    }
}
