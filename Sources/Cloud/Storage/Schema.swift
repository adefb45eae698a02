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
    ]

    static func migrate(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version < migrations.count else { return }
        for step in migrations[version...] {
            try db.execute(sql: step)
        }
        try db.execute(sql: "PRAGMA user_version = \(migrations.count)")
    }
}
