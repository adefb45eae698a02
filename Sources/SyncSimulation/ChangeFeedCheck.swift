import Cloud
import Foundation

/// Follows every account's view of every zone it sees the way a client
/// does, fetching the changes since its last token, and after each step
/// compares what it holds with a fetch from scratch.
///
/// What a participant of hierarchical shares sees can change without any
/// record in view changing (a parent re-created elsewhere takes what hangs
/// below it along); the cloud must then deliver the change or expire the
/// token. Checked here, step by step, a lapse names the step that caused it
/// instead of surfacing as a device that never converges.
final class ChangeFeedCheck {
    private struct Followed {
        var token: ChangeToken?
        /// Change tags by record name.
        var tags: [String: String] = [:]
    }

    /// A connection of its own with faults off, so the check neither fails
    /// nor draws from the run's fault stream.
    private let cloud: Cloud
    private let accounts: [Account]
    /// Each account's database change tokens, by scope.
    private var databaseTokens: [String: ChangeToken] = [:]
    /// Each view of a zone, keyed by account, scope and zone.
    private var followed: [String: Followed] = [:]

    init(directory: URL, clock: ManualClock, accounts: [Account]) throws {
        cloud = try Cloud(directory: directory, clock: clock, faults: .off, environment: [:])
        self.accounts = accounts
    }

    /// Every view whose incremental fetch now differs from a fresh one; `moment` says when, for the report.
    /// Only the zones each database's change feed names are looked at, as a client would.
    func check(after moment: String) throws -> [String] {
        var violations: [String] = []
        for account in accounts {
            for scope in [DatabaseScope.private, .shared] {
                let db = cloud.database(scope, as: account)
                let feed = "\(account.name) \(scope.rawValue)"
                for zone in try changedZones(db, feed: feed) {
                    let key = "\(feed) \(zone)"
                    var view = followed[key] ?? Followed()
                    do {
                        try Self.fetch(db, zone, into: &view)
                    } catch {
                        guard error == .changeTokenExpired else { throw error }
                        view = Followed()
                        try Self.fetch(db, zone, into: &view)
                    }
                    var fresh = Followed()
                    try Self.fetch(db, zone, into: &fresh)
                    if view.tags != fresh.tags {
                        violations.append("after \(moment), \(key): fetching changes gives \(Self.describe(view.tags)) "
                            + "where a fresh fetch gives \(Self.describe(fresh.tags))")
                        view = fresh
                    }
                    followed[key] = view
                }
            }
        }
        return violations
    }

    /// The zones the database's feed says changed since the last look; zones
    /// it says are gone are forgotten, as a client forgets them.
    private func changedZones(_ db: CloudDatabase, feed: String) throws -> [ZoneID] {
        var changed: [ZoneID] = []
        var token = databaseTokens[feed]
        var more = true
        while more {
            let batch: DatabaseChanges
            do {
                batch = try db.databaseChanges(since: token)
            } catch {
                guard error == .changeTokenExpired else { throw error }
                followed = followed.filter { !$0.key.hasPrefix(feed + " ") }
                token = nil
                continue
            }
            changed += batch.modified
            for deletion in batch.deleted { followed["\(feed) \(deletion.zone)"] = nil }
            token = batch.token
            more = batch.moreComing
        }
        databaseTokens[feed] = token
        return changed
    }

    private static func fetch(_ db: CloudDatabase, _ zone: ZoneID, into view: inout Followed) throws(CloudError) {
        var more = true
        while more {
            let batch = try db.zoneChanges(in: zone, since: view.token)
            for record in batch.modified { view.tags[record.id.name] = record.changeTag ?? "" }
            for deletion in batch.deleted { view.tags[deletion.id.name] = nil }
            view.token = batch.token
            more = batch.moreComing
        }
    }

    private static func describe(_ tags: [String: String]) -> String {
        "[" + tags.sorted { $0.key < $1.key }.map { "\($0.key)#\($0.value)" }.joined(separator: " ") + "]"
    }
}
