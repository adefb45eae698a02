import Cloud
import Foundation

/// Follows every account's view of every zone it sees the way a client
/// does, fetching the changes since its last tokens, and compares what it
/// holds with a fetch from scratch.
///
/// What a participant of hierarchical shares sees can change without any
/// record in view changing (a parent re-created elsewhere takes what hangs
/// below it along); the cloud must then deliver the change or expire the
/// token. One follower looks after every step; as some lapses need two
/// changes between a client's fetches (a deletion, then the record back out
/// of view), others look after gaps drawn from the run's seed, up to 30 and
/// up to 300 steps. A lapse names the step that revealed it instead of
/// surfacing as a device that never converges.
final class ChangeFeedCheck {
    /// A connection of its own with faults off, so the check neither fails
    /// nor draws from the run's fault stream.
    private let cloud: LocalCloud
    private let accounts: [Account]
    private var followers: [Follower]
    private let gaps: SeededRandom
    /// The cloud the followers follow: a new one (emptied, an older copy put back) starts them afresh.
    private var identity: String?

    init(directory: URL, clock: ManualClock, accounts: [Account], seed: UInt64) throws {
        cloud = try LocalCloud(directory: directory, clock: clock, faults: .off, environment: [:])
        self.accounts = accounts
        gaps = SeededRandom(seed: seed)
        followers = [1, 30, 300].map { Follower(longestGap: $0) }
    }

    /// The views whose changes now differ from a fresh fetch. `step` picks
    /// the followers whose turn it is (all when nil); `moment` says when, for the report.
    func check(after moment: String, step: Int? = nil) throws -> [String] {
        let current = try cloud.identity().id
        if current != identity {
            identity = current
            followers = followers.map { Follower(longestGap: $0.longestGap) }
        }
        var violations: [String] = []
        for index in followers.indices {
            if let step {
                guard step >= followers[index].nextLook else { continue }
                followers[index].nextLook = step + 1 + gaps.below(followers[index].longestGap)
            }
            for account in accounts {
                for scope in [DatabaseScope.private, .shared] {
                    violations += try followers[index].look(at: cloud.database(scope, as: account),
                                                            feed: "\(account.name) \(scope.rawValue)", after: moment)
                }
            }
        }
        return violations
    }
}

/// One client's worth of tokens, looking again at most `longestGap` steps after its last look.
private struct Follower {
    struct View {
        var token: ChangeToken?
        /// Change tags by record name.
        var tags: [String: String] = [:]
    }

    let longestGap: Int
    var nextLook = 0
    /// Database change tokens, by feed (account and scope).
    private var databaseTokens: [String: ChangeToken] = [:]
    /// Views of zones, by feed and zone.
    private var views: [String: [ZoneID: View]] = [:]

    init(longestGap: Int) { self.longestGap = longestGap }

    /// Fetches the changes of the zones the feed names, and reports each view that differs from a fresh fetch.
    mutating func look(at db: CloudDatabase, feed: String, after moment: String) throws -> [String] {
        var violations: [String] = []
        for zone in try changedZones(db, feed: feed) {
            var view = views[feed]?[zone] ?? View()
            do {
                try Self.fetch(db, zone, into: &view)
            } catch {
                guard error == .changeTokenExpired else { throw error }
                view = View()
                try Self.fetch(db, zone, into: &view)
            }
            var fresh = View()
            try Self.fetch(db, zone, into: &fresh)
            if view.tags != fresh.tags {
                violations.append("after \(moment), \(feed) \(zone) (looking within \(longestGap) steps): fetching changes gives "
                    + "\(Self.describe(view.tags)) where a fresh fetch gives \(Self.describe(fresh.tags))")
                view = fresh
            }
            views[feed, default: [:]][zone] = view
        }
        return violations
    }

    /// The zones the database's feed says changed since the last look; zones
    /// it says are gone are forgotten, as a client forgets them.
    private mutating func changedZones(_ db: CloudDatabase, feed: String) throws -> [ZoneID] {
        var changed: [ZoneID] = []
        var token = databaseTokens[feed]
        var more = true
        while more {
            let batch: DatabaseChanges
            do {
                batch = try db.databaseChanges(since: token)
            } catch {
                guard error == .changeTokenExpired else { throw error }
                views[feed] = nil
                token = nil
                continue
            }
            changed += batch.modified
            for deletion in batch.deleted { views[feed]?[deletion.zone] = nil }
            token = batch.token
            more = batch.moreComing
        }
        databaseTokens[feed] = token
        return changed
    }

    private static func fetch(_ db: CloudDatabase, _ zone: ZoneID, into view: inout View) throws(CloudError) {
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
