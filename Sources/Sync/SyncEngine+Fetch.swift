import Cloud
import Foundation

extension SyncEngine {
    /// Fetches what changed: the database's changes, then each changed zone,
    /// batch by batch from the saved tokens. With a zone scope, only those
    /// zones are fetched. A transient error stops the fetch and is thrown;
    /// the tokens saved so far stay, so the next fetch goes on from there.
    /// A batch the app could not apply stops it too, before its token: the
    /// next fetch brings that batch again. A zone the cloud cannot serve (not
    /// one that ended) keeps its token and its place among the zones to
    /// fetch; the others are fetched, and the fetch then fails with
    /// `SyncError.zoneUnreadable`, so nothing says all is well.
    public func fetchChanges(_ zoneScope: ZoneScope = .all) throws {
        try exclusively { database in
            post(.willFetchChanges)
            defer { post(.didFetchChanges) }
            let zones: [ZoneID]
            switch zoneScope {
            case .all:
                try fetchDatabaseChanges(database)
                zones = state.withLock { $0.zonesToFetch }
            case .zones(let set):
                zones = set.sorted { $0.description < $1.description }
            }
            var unreadable: SyncError?
            for zone in zones {
                do {
                    try fetchZone(zone, database)
                } catch let error as SyncError {
                    guard case .zoneUnreadable = error else { throw error }
                    unreadable = unreadable ?? error
                }
            }
            if let unreadable { throw unreadable }
        }
    }

    /// Fetches the database's changes, noting each changed zone as one to
    /// fetch before the token moves past it.
    private func fetchDatabaseChanges(_ database: CloudDatabase) throws {
        var moreComing = true
        while moreComing {
            let token = state.withLock { $0.databaseToken }
            let batch: DatabaseChanges
            do {
                batch = try request("databaseChanges", "token=\(token?.description ?? "nil")") {
                    try database.databaseChanges(since: token)
                }
            } catch CloudError.changeTokenExpired {
                state.withLock { $0.forgetTokens() }
                continue
            }
            if !batch.deleted.isEmpty { try ensureSameCloud() }
            if !batch.modified.isEmpty || !batch.deleted.isEmpty {
                try deliver(.fetchedDatabaseChanges(modifications: batch.modified, deletions: batch.deleted))
            }
            state.withLock { state in
                let gone = Set(batch.deleted.map(\.zone))
                for zone in gone { state.zoneTokens[zone] = nil }
                state.zonesToFetch.removeAll(where: gone.contains)
                state.zonesToFetch += batch.modified.filter { !state.zonesToFetch.contains($0) }
                state.databaseToken = batch.token
            }
            postStateUpdate()
            moreComing = batch.moreComing
        }
    }

    /// Fetches one zone's changes. A fetch from scratch (no token) keeps its
    /// token to itself until it completes, so an interrupted one starts over
    /// and the app sees every from-scratch fetch whole. Otherwise the records
    /// this engine saved come back only if someone changed them since. A token
    /// that expires sends it back to the start once; a from-scratch fetch that
    /// expires again (the cloud keeps changing what the caller sees) stops, and
    /// the next fetch tries again, rather than going round for ever.
    private func fetchZone(_ zone: ZoneID, _ database: CloudDatabase, restarted: Bool = false) throws {
        var token = state.withLock { $0.zoneTokens[zone] }
        let fromScratch = token == nil
        let known = fromScratch ? [:] : ownSaves[zone] ?? [:]
        post(.willFetchRecordZoneChanges(zone, fromScratch: fromScratch))
        var finished = false
        do {
            var moreComing = true
            while moreComing {
                let since = token
                let batch = try request("zoneChanges", "\(zone) token=\(since?.description ?? "nil")") {
                    try database.zoneChanges(in: zone, since: since, known: known)
                }
                if !batch.modified.isEmpty || !batch.deleted.isEmpty {
                    try deliver(.fetchedRecordZoneChanges(modifications: batch.modified, deletions: batch.deleted))
                }
                token = batch.token
                if !fromScratch {
                    state.withLock { $0.zoneTokens[zone] = batch.token }
                    postStateUpdate()
                }
                moreComing = batch.moreComing
            }
            // The app finishes with the zone (a from-scratch fetch prunes what did not
            // arrive) before the token that covers it is saved.
            if fromScratch { try ensureSameCloud() }
            finished = true
            try deliver(.didFetchRecordZoneChanges(zone, error: nil))
            ownSaves[zone] = nil
            state.withLock { state in
                state.zoneTokens[zone] = token
                state.zonesToFetch.removeAll { $0 == zone }
            }
            postStateUpdate()
        } catch let error as CloudError {
            switch error {
            case .changeTokenExpired:
                state.withLock { $0.zoneTokens[zone] = nil }
                post(.didFetchRecordZoneChanges(zone, error: error))
                if restarted { throw error }
                try fetchZone(zone, database, restarted: true)  // again, from scratch
            case let transient where transient.isTransient:
                post(.didFetchRecordZoneChanges(zone, error: error))
                throw error
            case .zoneNotFound, .permissionFailure, .unknownItem, .unknownShare, .notAuthenticated, .unknownAccount:
                // Gone or out of reach (deleted, access lost): the app hears why (and drops the zone, or
                // the zone is asked about again next time); other zones go on.
                try ensureSameCloud()
                finished = true
                try deliver(.didFetchRecordZoneChanges(zone, error: error))
                state.withLock { state in
                    state.zoneTokens[zone] = nil
                    state.zonesToFetch.removeAll { $0 == zone }
                }
                postStateUpdate()
            default:
                // The cloud could not serve the zone (a record it cannot read, its store failing): the zone is no less
                // there. The app hears why; the token and the zone to fetch stay, so nothing is taken as deleted.
                finished = true
                try deliver(.didFetchRecordZoneChanges(zone, error: error))
                throw SyncError.zoneUnreadable(zone, cause: error)
            }
        } catch {
            // The app could not take a batch in (or finish the zone): the token stays before it.
            if !finished { post(.didFetchRecordZoneChanges(zone, error: error)) }
            throw error
        }
    }
}
