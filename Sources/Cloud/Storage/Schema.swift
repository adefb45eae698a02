import Foundation
import GRDB

/// The cloud file's schema, as an ordered list of migrations.
///
/// Each step runs once, inside the same immediate transaction that reads
/// `user_version`, so processes that open a new cloud at the same moment
/// cannot apply a step twice (GRDB's migrator checks outside its transaction).
enum Schema {
    static let migrations: [String] = [
        // v1: accounts, databases, zones, records with tombstones, a global change sequence.
        """
        CREATE TABLE sequence(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value INTEGER NOT NULL);
        INSERT INTO sequence VALUES (1, 0);
        CREATE TABLE accounts(
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            email TEXT NOT NULL UNIQUE COLLATE NOCASE,
            created_at REAL NOT NULL);
        CREATE TABLE databases(
            id INTEGER PRIMARY KEY,
            container TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            purged_through INTEGER NOT NULL DEFAULT 0,
            UNIQUE(container, scope, owner));
        CREATE TABLE zones(
            id INTEGER PRIMARY KEY,
            database INTEGER NOT NULL REFERENCES databases(id),
            name TEXT NOT NULL,
            seq INTEGER NOT NULL,
            created_seq INTEGER NOT NULL,
            deleted_reason TEXT,
            deleted_at REAL,
            purged_through INTEGER NOT NULL DEFAULT 0,
            UNIQUE(database, name));
        CREATE INDEX zones_by_seq ON zones(database, seq);
        CREATE TABLE records(
            zone INTEGER NOT NULL REFERENCES zones(id),
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            body BLOB NOT NULL,
            parent TEXT,
            change_tag TEXT NOT NULL,
            created_at REAL NOT NULL,
            created_by TEXT NOT NULL,
            modified_at REAL NOT NULL,
            modified_by TEXT NOT NULL,
            seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY(zone, name)) WITHOUT ROWID;
        CREATE INDEX records_by_seq ON records(zone, seq);
        CREATE INDEX records_by_parent ON records(zone, parent) WHERE parent IS NOT NULL;
        CREATE TABLE cascades(
            zone INTEGER NOT NULL,
            source TEXT NOT NULL,
            target TEXT NOT NULL,
            PRIMARY KEY(zone, target, source)) WITHOUT ROWID;
        """,
        // v2: shares, their participants (who may reach which zone), access requests.
        """
        CREATE TABLE shares(
            id INTEGER PRIMARY KEY,
            zone INTEGER NOT NULL REFERENCES zones(id),
            name TEXT NOT NULL,
            root TEXT,
            token_hash BLOB NOT NULL UNIQUE,
            public_permission TEXT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX shares_by_zone ON shares(zone, deleted);
        CREATE TABLE participants(
            id INTEGER PRIMARY KEY,
            share INTEGER NOT NULL REFERENCES shares(id),
            account TEXT,
            role TEXT NOT NULL,
            permission TEXT NOT NULL,
            status TEXT NOT NULL,
            one_time_id TEXT,
            one_time_hash BLOB UNIQUE,
            seq INTEGER NOT NULL,
            UNIQUE(share, account));
        CREATE INDEX participants_by_account ON participants(account);
        CREATE TABLE access_requests(
            share INTEGER NOT NULL REFERENCES shares(id),
            account TEXT NOT NULL,
            status TEXT NOT NULL,
            requested_at REAL NOT NULL,
            PRIMARY KEY(share, account)) WITHOUT ROWID;
        """,
        // v3: when a record last moved within a zone that has hierarchical shares.
        """
        ALTER TABLE zones ADD COLUMN hierarchy_seq INTEGER NOT NULL DEFAULT 0;
        """,
        // v4: every save clears the record's own delete-self references, found by source.
        """
        CREATE INDEX cascades_by_source ON cascades(zone, source);
        """,
        // v5: the cloud's identity, which devices remember (see `LocalCloud.recoverIfRestored`).
        """
        CREATE TABLE identity(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            cloud TEXT NOT NULL,
            created_at REAL NOT NULL);
        """,
        // v6: earlier versions of each record (kept when a save replaces it or a deletion tombstones it),
        // how long the cloud keeps them and what was deleted (see `Retention`), and who last changed each
        // participant (so one taken off a share is told by whom; see `endedShares`) and when they joined (history
        // from before is not theirs to read; see `ZoneAccess.joined`).
        """
        CREATE TABLE versions(
            zone INTEGER NOT NULL REFERENCES zones(id),
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            type TEXT NOT NULL,
            body BLOB NOT NULL,
            parent TEXT,
            change_tag TEXT NOT NULL,
            created_at REAL NOT NULL,
            created_by TEXT NOT NULL,
            modified_at REAL NOT NULL,
            modified_by TEXT NOT NULL,
            PRIMARY KEY(zone, name, version)) WITHOUT ROWID;
        CREATE TABLE retention(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            history_versions INTEGER NOT NULL,
            history_days REAL NOT NULL,
            trash_days REAL NOT NULL);
        ALTER TABLE participants ADD COLUMN changed_by TEXT;
        ALTER TABLE participants ADD COLUMN joined_seq INTEGER;
        """,
        // v7: the last commit posted to each push topic, so a commit can tell its caller which came before it
        // (see `Commit`: a device drops the push of its own change when it had seen everything before it).
        """
        CREATE TABLE push_topics(
            name TEXT PRIMARY KEY,
            seq INTEGER NOT NULL) WITHOUT ROWID;
        """,
        // v8: who may call over the network (see `LocalCloud+Devices`): each device's public key, one-time
        // enrolment codes and web tokens, the secret ones kept only as SHA-256 hashes.
        """
        CREATE TABLE devices(
            key_id TEXT PRIMARY KEY,
            account TEXT NOT NULL REFERENCES accounts(id),
            public_key BLOB NOT NULL,
            name TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_at REAL);
        CREATE INDEX devices_by_account ON devices(account);
        CREATE TABLE enrolments(
            code_hash BLOB PRIMARY KEY,
            account TEXT NOT NULL REFERENCES accounts(id),
            expires_at REAL NOT NULL);
        CREATE TABLE web_tokens(
            api_token TEXT PRIMARY KEY,
            auth_hash BLOB NOT NULL,
            account TEXT NOT NULL REFERENCES accounts(id),
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            revoked_at REAL);
        """,
        // v9: operators' keys, for the console's commands from another machine (see `LocalCloud+Operators`),
        // the one-time codes they enrol with, and the operators' requests seen (replays refused by every server
        // of the directory, not one process).
        """
        CREATE TABLE operator_keys(
            key_id TEXT PRIMARY KEY,
            public_key BLOB NOT NULL,
            name TEXT NOT NULL,
            created_at REAL NOT NULL,
            revoked_at REAL);
        CREATE TABLE operator_codes(
            code_hash BLOB PRIMARY KEY,
            expires_at REAL NOT NULL);
        CREATE TABLE operator_requests(
            signature TEXT PRIMARY KEY,
            until REAL NOT NULL) WITHOUT ROWID;
        """,
        // v10: the signed requests the servers answered with a write, so a request captured on its way to one
        // server is refused by every other (see `ServedRequest`).
        """
        CREATE TABLE signed_requests(
            signature TEXT PRIMARY KEY,
            until REAL NOT NULL) WITHOUT ROWID;
        CREATE INDEX signed_requests_until ON signed_requests(until);
        """,
        // v11: the commit a topic was at before the last moved it, set by the statement that moves it, which
        // returns it: a topic is read and moved in one statement.
        """
        ALTER TABLE push_topics ADD COLUMN previous INTEGER;
        """,
        // v12: versions a record brought with it when its owner moved it from another zone (`VersionTable.carry`):
        // its owner's history, not for the new zone's participants, who could not read them there; and where a
        // moved record's tombstone went (a save of the old copy is told where it is now).
        """
        ALTER TABLE versions ADD COLUMN carried INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE records ADD COLUMN moved_to INTEGER;
        """,
    ]

    /// The version of a file whose cloud moved to another store (`retire`): above any step's.
    static let movedVersion = 1_000_000

    /// Brings the file's schema up to date at the start of every write; refuses a file whose cloud moved.
    static func migrate(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if version == movedVersion { throw try moved(db) }
        guard version < migrations.count else { return }
        for step in migrations[version...] {
            try db.execute(sql: step)
        }
        try db.execute(sql: "PRAGMA user_version = \(migrations.count)")
    }

    /// Marks the file's cloud as moved to `destination` (`cloudnotes cloud migrate`, before it copies the
    /// file): from then on every write to the file is refused with where the cloud went, so a server or device
    /// still on the file keeps its changes for the new store rather than writing them where nobody will read
    /// them. A trigger on every table refuses them, which every version of this program obeys (one from before
    /// `retire` takes the version below for a newer schema's, and would write on); the version lets this one
    /// refuse at the first statement. Processes that had the file open go on reading it.
    /// `intoEmpty`: the destination held no cloud when the file was marked, so a destination that holds the
    /// file's cloud later took it whole from the file.
    static func retire(_ db: any SQLTransaction, movedTo destination: String, intoEmpty: Bool, at time: Date) throws {
        let version = try db.int64("PRAGMA user_version") ?? 0
        try db.execute("""
            CREATE TABLE moved_to(destination TEXT NOT NULL, moved_at REAL NOT NULL, version INTEGER NOT NULL, into_empty INTEGER NOT NULL)
            """)
        try db.execute("INSERT INTO moved_to VALUES (?, ?, ?, ?)", [destination, time.timeIntervalSince1970, version, intoEmpty ? 1 : 0])
        let refusal = movedMessage(to: destination, at: time).replacingOccurrences(of: "'", with: "''")
        let tables = try db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'moved_to' AND name NOT LIKE 'sqlite_%'") {
            $0.text("name")
        }
        for table in tables {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute("CREATE TRIGGER moved_\(event.lowercased())_\(table) BEFORE \(event) ON \(table) BEGIN SELECT RAISE(ABORT, '\(refusal)'); END")
            }
        }
        try db.execute("PRAGMA user_version = \(movedVersion)")
    }

    /// Takes `retire`'s mark back: the file is the cloud's again, at the schema version it was marked at.
    static func unretire(_ db: Database) throws {
        guard try move(db) != nil else { return }
        // A mark from before it kept the version was made at the eleventh step's.
        let version = (try? Int.fetchOne(db, sql: "SELECT version FROM moved_to")) ?? 11
        for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'moved_*'") {
            try db.execute(sql: "DROP TRIGGER \(trigger)")
        }
        try db.execute(sql: "DROP TABLE moved_to")
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }

    /// Where a file's cloud moved (`retire`).
    struct Move: Equatable {
        var destination: String
        /// The destination held no cloud when the file was marked.
        var intoEmpty: Bool
    }

    /// Where the file's cloud moved, or nil if it did not.
    static func move(_ db: Database) throws -> Move? {
        guard try Int.fetchOne(db, sql: "PRAGMA user_version") == movedVersion else { return nil }
        let destination = try String.fetchOne(db, sql: "SELECT destination FROM moved_to") ?? "another store"
        // A mark from before it said so was made after the copy, into an empty database.
        let intoEmpty = (try? Bool.fetchOne(db, sql: "SELECT into_empty FROM moved_to")) ?? true
        return Move(destination: destination, intoEmpty: intoEmpty)
    }

    private static func moved(_ db: Database) throws -> CloudError {
        let row = try Row.fetchOne(db, sql: "SELECT destination, moved_at FROM moved_to")
        return .storage(movedMessage(to: row?["destination"] ?? "another store",
                                     at: (row?["moved_at"] as Double?).map(Date.init(timeIntervalSince1970:))))
    }

    private static func movedMessage(to destination: String, at time: Date?) -> String {
        let when = time.map { " on \($0.formatted(.iso8601))" } ?? ""
        return "this cloud moved to \(destination)\(when) (cloudnotes cloud migrate), and its file takes no more changes: "
            + "serve it with cloudnotes cloud serve --store \(destination), and point devices at that server"
    }
}
