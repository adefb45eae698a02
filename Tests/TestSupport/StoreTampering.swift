import Cloud
import Foundation

/// What a careless operator's restore does to the cloud in a directory, on the run's store: on the SQLite run
/// the file's bytes emptied or put back (`CloudTampering`); on the PostgreSQL run the database's rows put back
/// as `pg_dump` wrote them, or its tables dropped, as restoring an older dump or recreating the database would.
/// Only between requests, as an operator's restore is.
public struct StoreTampering {
    private let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// Everything the cloud holds now, to put back later.
    public func snapshot() throws -> Data {
        try TestStore.database(for: directory).map(TestStore.dump) ?? CloudTampering(directory: directory).snapshot()
    }

    public func restore(_ snapshot: Data) throws {
        guard let url = try TestStore.database(for: directory) else { return try CloudTampering(directory: directory).restore(snapshot) }
        try TestStore.putBack(snapshot, into: url)
    }

    /// Leaves the store as a new, empty one: the file emptied, or the database's tables dropped.
    public func empty() throws {
        guard let url = try TestStore.database(for: directory) else { return try CloudTampering(directory: directory).empty() }
        try TestStore.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public", in: url)
    }
}
