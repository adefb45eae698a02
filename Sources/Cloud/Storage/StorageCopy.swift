import Foundation
import SQLiteDirect

/// What `copy` moved: rows per table, and the sequence the copy stands at.
public struct StorageCopyReport: Sendable, CustomStringConvertible {
    public var rows: [(table: String, count: Int)]
    public var sequence: Int64
    public var identity: String

    public var description: String {
        let total = rows.reduce(0) { $0 + $1.count }
        let detail = rows.filter { $0.count > 0 }.map { "\($0.table) \($0.count)" }.joined(separator: ", ")
        return "cloud \(identity) at change \(sequence): \(total) rows (\(detail))"
    }
}

/// Moves a cloud from one store into another that holds none yet (`cloudnotes cloud migrate`): every row of
/// every table as it is, row IDs, tombstones, share token hashes, the sequence and the cloud's identity
/// included, so devices go on syncing from their change tokens as if nothing had happened (no device fetches
/// everything again, none loses a change). One read of the source, one write of the target: all or nothing.
public enum StorageCopy {
    /// The tables and their columns, parents before the rows that refer to them.
    static let tables: [(name: String, columns: [String])] = [
        ("identity", ["id", "cloud", "created_at"]),
        ("retention", ["id", "history_versions", "history_days", "trash_days"]),
        ("accounts", ["id", "name", "email", "created_at"]),
        ("databases", ["id", "container", "scope", "owner", "purged_through"]),
        ("zones", ["id", "database", "name", "seq", "created_seq", "deleted_reason", "deleted_at", "purged_through", "hierarchy_seq"]),
        ("records", ["zone", "name", "type", "body", "parent", "change_tag", "created_at", "created_by", "modified_at", "modified_by",
                     "seq", "deleted", "moved_to"]),
        ("cascades", ["zone", "source", "target"]),
        ("versions", ["zone", "name", "version", "type", "body", "parent", "change_tag", "created_at", "created_by", "modified_at",
                      "modified_by", "carried"]),
        ("shares", ["id", "zone", "name", "root", "token_hash", "public_permission", "deleted"]),
        ("participants", ["id", "share", "account", "role", "permission", "status", "one_time_id", "one_time_hash", "seq", "changed_by",
                          "joined_seq"]),
        ("access_requests", ["share", "account", "status", "requested_at"]),
        // Not `previous`: it is read only from the statement that sets it (`TopicTable.advance`).
        ("push_topics", ["name", "seq"]),
        ("devices", ["key_id", "account", "public_key", "name", "created_at", "revoked_at"]),
        ("enrolments", ["code_hash", "account", "expires_at"]),
        ("web_tokens", ["api_token", "auth_hash", "account", "created_at", "expires_at", "revoked_at"]),
        ("operator_keys", ["key_id", "public_key", "name", "created_at", "revoked_at"]),
        ("operator_codes", ["code_hash", "expires_at"]),
        ("operator_requests", ["signature", "until"]),
        ("signed_requests", ["signature", "until"]),
    ]

    /// Tables of the signatures of requests answered, kept only against their replay: not the cloud's state.
    static let replayGuards: Set<String> = ["signed_requests", "operator_requests"]

    /// Tables whose `id` the store hands out: the target's counters move past the copied IDs.
    static let counted = ["databases", "zones", "shares", "participants"]

    /// Copies the cloud in `source` into `target`. `retiredAt`: the source is a cloud's file that is to take no
    /// more changes (`Schema.retire`), marked so before it is read: no write can reach the file after the copy
    /// read it, and be lost. If the database did not take the cloud, the mark is taken back and the file serves
    /// on; a file marked by a run cut short is copied by the next. nil leaves the source as it was.
    public static func copy(from source: any CloudStorage, to target: any CloudStorage, retiredAt: Date? = nil) throws(CloudError) -> StorageCopyReport {
        guard let retiredAt else { return try source.read { from in try copy(from, source: source.location, to: target) } }
        guard let file = source as? SQLiteStorage else { throw .invalidArguments("only a cloud's file is retired when it moves") }
        if let move = try file.move() {
            guard move.destination == target.location else {
                throw .invalidArguments("\(file.location) has moved to \(move.destination) already: run migrate again with --to that "
                                        + "database, or take the move back with --undo")
            }
            // Marked by a run cut short, and no change taken since: a database that was empty then and holds the
            // file's cloud now took it whole.
            return try file.read { from in try copy(from, source: file.location, to: target, markedBefore: move.intoEmpty) }
        }
        let own = try file.read(cloud(in:))
        let held = try target.read(cloud(in:))
        do {
            try file.retire(movedTo: target.location, intoEmpty: held == nil, at: retiredAt)
        } catch {
            throw .storage("\(file.location) could not be marked as moved, so nothing was copied: \(error)")
        }
        do {
            return try file.read { from in try copy(from, source: file.location, to: target) }
        } catch {
            return try settle(file, failing: error, target: target, own: own, heldBefore: held)
        }
    }

    /// After a copy that failed, the file's mark is taken back unless the database holds the file's cloud now
    /// and did not before (its commit's answer was lost: the file stays marked, the copy stands); a database
    /// that cannot say keeps the file marked, for it may have taken it.
    private static func settle(_ file: SQLiteStorage, failing failure: CloudError, target: any CloudStorage, own: String?,
                               heldBefore: String?) throws(CloudError) -> StorageCopyReport {
        let now = Result { () throws(CloudError) in try target.read { to in (try cloud(in: to), try to.int64("SELECT value FROM sequence WHERE id = 1")) } }
        guard case .success(let (held, sequence)) = now else {
            throw .storage("\(failure); \(target.location) may have taken the cloud, so \(file.location) stays marked as moved: "
                           + "run cloudnotes cloud migrate again once it answers, or with --undo to serve the file again")
        }
        guard held == own, held != heldBefore else {
            do { try file.unretire() } catch {
                throw .storage("\(failure); and \(file.location) could not take back its mark as moved (\(error)): "
                               + "run cloudnotes cloud migrate --undo")
            }
            throw failure
        }
        return StorageCopyReport(rows: [], sequence: sequence ?? 0, identity: held ?? "")
    }

    /// Where the cloud of a file `copy` marked went, or nil if it is still the file's.
    public static func destination(of source: any CloudStorage) throws(CloudError) -> String? {
        guard let file = source as? SQLiteStorage else { return nil }
        return try file.move()?.destination
    }

    /// What `takeBackMove` did.
    public struct TakenBack: Sendable {
        /// Where the cloud had moved.
        public var destination: String
        /// The cloud's new ID, when it was given one.
        public var newIdentity: String?
    }

    /// Takes back the mark `copy` left on a cloud's file (`cloudnotes cloud migrate --undo`): the file serves
    /// again as it was when it was copied. Refused when the database it moved to (`database`, opened only if
    /// the file moved; another is refused) holds the cloud with rows the file has not, or cannot say: devices
    /// or the operator changed it there since, or may have, and devices' tokens are past the file's. `force`
    /// takes the file back all the same, under a new identity, so those devices rebuild the cloud from what
    /// they hold rather than miss changes. Nil if the file had not moved.
    /// `highWater`: the file's directory's high-water mark, where a server that served the moved cloud from this
    /// directory wrote how far it went (changes past the file's, which the file would not have).
    public static func takeBackMove(of source: any CloudStorage, database: () throws(CloudError) -> any CloudStorage, force: Bool,
                                    highWater directory: URL? = nil, random: any RandomSource = SystemRandom(),
                                    clock: any CloudClock = SystemClock()) throws(CloudError) -> TakenBack? {
        guard let file = source as? SQLiteStorage, let move = try file.move() else { return nil }
        let opened = Result { () throws(CloudError) in try database() }
        if case .success(let other) = opened, other.location != move.destination {
            throw .invalidArguments("the file moved to \(move.destination), not \(other.location): give --to that database")
        }
        // The database must hold exactly the cloud the file holds (what was copied): its identity, its sequence, and
        // every row, an account, device or token made there included (which move no change number), by a hash a
        // row. Anything else (another identity: restored from a dump and re-identified, or another cloud; no cloud;
        // more) may hold what devices saved there since, which the file would not have.
        let here = try file.read { from in try LocalCloud.readIdentity(from) }
        let verdict = Result { () throws(CloudError) -> String? in
            let database = try opened.get()
            return try file.read { from in
                try database.read { to in
                    let there = try LocalCloud.readIdentity(to)
                    guard let id = there.id, !id.isEmpty else { return "holds no cloud (emptied since, or it never took the copy)" }
                    guard id == here.id else {
                        return "holds cloud \(id), not \(here.id ?? "?") as the file does (restored or re-identified since, or another cloud)"
                    }
                    guard there.sequence == here.sequence, try same(tables.filter { !replayGuards.contains($0.name) }, from, to) else {
                        return "holds this cloud with changes the file has not (at change \(there.sequence), the file at \(here.sequence)): "
                            + "devices or the operator made them there since"
                    }
                    return nil
                }
            }
        }
        var doubt: String?
        switch verdict {
        case .success(let found?): doubt = "\(move.destination) \(found)"
        case .success(nil): break
        case .failure(let error): doubt = "\(move.destination) cannot say whether devices saved there since (\(error))"
        }
        if doubt == nil, let directory, let id = here.id,
           let seen = HighWaterMark(path: directory.appendingPathComponent("high-water").path, ownsUnnamedMark: false).read()?.byCloud[id],
           seen > here.sequence {
            doubt = "a server of this directory served the cloud up to change \(seen), past the file's \(here.sequence)"
        }
        if let doubt, !force {
            throw .invalidArguments("\(doubt), and the file would not have it: --force takes the file back under a new identity, "
                                    + "so devices rebuild the cloud from what they hold")
        }
        var renamed: String?
        try file.unretire { db in
            if doubt != nil { renamed = try LocalCloud.giveNewIdentity(db, random: random, clock: clock) }
        }
        return TakenBack(destination: move.destination, newIdentity: renamed)
    }

    /// The ID of the cloud a store holds, if any.
    private static func cloud(in db: any SQLTransaction) throws -> String? {
        try db.string("SELECT cloud FROM identity WHERE id = 1")
    }

    /// `markedBefore`: the file was marked as moved to `target` before this run, so a database that holds its cloud
    /// took all of it then.
    private static func copy(_ from: any SQLTransaction, source: String, to target: any CloudStorage,
                             markedBefore: Bool = false) throws -> StorageCopyReport {
        try target.write { to in
            let sequence = try from.int64("SELECT value FROM sequence WHERE id = 1") ?? 0
            guard let cloud = try cloud(in: from), !cloud.isEmpty else {
                throw CloudError.invalidArguments("\(source) has no identity yet: open it as a cloud first")
            }
            let held = try to.int64("SELECT value FROM sequence WHERE id = 1") ?? 0
            let accounts = try to.int64("SELECT count(*) FROM accounts") ?? 0
            let identity = try to.int64("SELECT count(*) FROM identity") ?? 0
            if held != 0 || accounts != 0 || identity != 0 {
                if try Self.cloud(in: to) == cloud {
                    // Nothing to copy. Taken whole by an earlier run that marked the file first; or this very
                    // cloud, row for row, copied by a program that marked the file after the copy and was cut
                    // short between. Not the sequence alone: some changes (an account made, a device revoked)
                    // do not move it.
                    if try markedBefore || (held == sequence && same(tables, from, to)) {
                        return StorageCopyReport(rows: [], sequence: held, identity: cloud)
                    }
                    let how = held == sequence ? "in rows that move no change number, as an account made" : "change \(sequence) against \(held)"
                    throw CloudError.invalidArguments("\(target.location) holds this cloud as it was copied, but \(source) changed after "
                                                      + "(\(how)): give the copy an empty database")
                }
                guard try unused(to) else {
                    throw CloudError.invalidArguments("\(target.location) already holds a cloud (change \(held), \(accounts) accounts)")
                }
                // A cloud nobody used: made by a command run on the database before the copy (a listing of its
                // accounts, a server started early), which gave it an identity. It gives way to the file's.
                for table in tables.reversed() { try to.execute("DELETE FROM \(table.name)") }
            }
            var rows: [(String, Int)] = []
            for table in tables { rows.append((table.name, try copy(table.name, columns: table.columns, from: from, to: to))) }
            try to.execute("UPDATE sequence SET value = ? WHERE id = 1", [sequence])
            if to.dialect == .postgres {
                for table in counted {
                    try to.execute("""
                        SELECT setval(pg_get_serial_sequence('\(table)', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM \(table)), false)
                        """)
                }
            }
            return StorageCopyReport(rows: rows, sequence: sequence, identity: cloud)
        }
    }

    /// Whether the store's cloud holds nothing anyone made: only what opening it writes (its identity, its
    /// retention), and what answering requests does (their signatures, kept against replay).
    private static func unused(_ db: any SQLTransaction) throws -> Bool {
        let made = tables.map(\.name).filter { !replayGuards.union(["identity", "retention", "push_topics"]).contains($0) }
        return try made.allSatisfy { try db.int64("SELECT count(*) FROM \($0)") == 0 }
    }

    /// Whether every one of `tables` holds the same rows in both stores.
    private static func same(_ tables: [(name: String, columns: [String])], _ from: any SQLTransaction, _ to: any SQLTransaction) throws -> Bool {
        try tables.allSatisfy { try same($0.name, columns: $0.columns, from, to) }
    }

    /// Whether `table` holds the same rows in both stores (as many of each, in any order), by a hash a row.
    private static func same(_ table: String, columns: [String], _ from: any SQLTransaction, _ to: any SQLTransaction) throws -> Bool {
        func hashes(_ db: any SQLTransaction) throws -> [Int] {
            var all: [Int] = []
            _ = try db.run("SELECT \(columns.joined(separator: ", ")) FROM \(table)", []) { row in
                var hasher = Hasher()
                for column in columns.indices { hasher.combine(row.value(column)) }
                all.append(hasher.finalize())
            }
            return all.sorted()
        }
        return try hashes(from) == hashes(to)
    }

    /// Copies one table in runs of rows (a few thousand values to a statement) as it reads them, so a run is all
    /// the copy holds at once (the file's rows are read one by one); returns how many rows.
    private static func copy(_ table: String, columns: [String], from: any SQLTransaction, to: any SQLTransaction) throws -> Int {
        let list = columns.joined(separator: ", ")
        let placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        let size = max(1, 4_000 / columns.count)
        var run: [[SQLValue]] = []
        run.reserveCapacity(size)
        func flush() throws {
            try inSQLLists(run, size: size, each: placeholders) { rows, values in
                _ = try to.run("INSERT INTO \(table)(\(list)) VALUES \(values)", rows.flatMap { $0 }) { _ in }
            }
            run.removeAll(keepingCapacity: true)
        }
        var count = 0
        _ = try from.run("SELECT \(list) FROM \(table)", []) { row in
            run.append((0..<columns.count).map { row.value($0) })
            count += 1
            if run.count == size { try flush() }
        }
        try flush()
        return count
    }
}
