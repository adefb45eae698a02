import GRDB
import struct Cloud.Record  // GRDB has a Record too; here a record is the cloud's

/// The schema of a device's stores; `private.sqlite` and `shared.sqlite`
/// have the same one, migrated each under its own `user_version`.
enum StoreSchema {
    static let migrations: [String] = [
        // v1: the app's data, the cloud's last known records, pending changes, sync state.
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.notebooks(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, title TEXT NOT NULL,
            PRIMARY KEY(zone_name, zone_owner));
        CREATE TABLE IF NOT EXISTS SCHEMA.posts(
            id TEXT NOT NULL, zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL,
            title TEXT NOT NULL, content TEXT NOT NULL, tags TEXT NOT NULL, location TEXT, location_sealed BLOB,
            created_at REAL, created_by TEXT, modified_at REAL, modified_by TEXT,
            conflicted INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY(zone_name, zone_owner, id));
        CREATE TABLE IF NOT EXISTS SCHEMA.comments(
            id TEXT NOT NULL, zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, post_id TEXT NOT NULL,
            text TEXT NOT NULL, created_at REAL, created_by TEXT,
            PRIMARY KEY(zone_name, zone_owner, id));
        CREATE TABLE IF NOT EXISTS SCHEMA.server_records(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, name TEXT NOT NULL, record BLOB NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, name));
        CREATE TABLE IF NOT EXISTS SCHEMA.pending(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, name));
        CREATE TABLE IF NOT EXISTS SCHEMA.sync_state(
            id INTEGER PRIMARY KEY CHECK (id = 1), serialization BLOB, last_sync REAL, last_error TEXT);
        """,
        // v2: the front end lists posts a screenful at a time, newest first, and marks those waiting to be sent.
        """
        CREATE INDEX IF NOT EXISTS SCHEMA.posts_by_modified ON posts(modified_at, id);
        """,
        // v3: the change tag of each known server record beside it, so a fetch recognises what it already holds.
        """
        ALTER TABLE SCHEMA.server_records ADD COLUMN change_tag TEXT;
        """,
        // v4: a post's row holds the cloud's record itself while it is unchanged (see `PostRow`): its change tag.
        """
        ALTER TABLE SCHEMA.posts ADD COLUMN change_tag TEXT;
        """,
        // v5: the device each post was last edited on, so a conflict block says whose text is whose.
        """
        ALTER TABLE SCHEMA.posts ADD COLUMN modified_on TEXT;
        """,
        // v6: key records of a cloud this device rebuilt, kept to open what their keys sealed (never to seal).
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.retired_keys(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, record BLOB NOT NULL,
            UNIQUE(zone_name, zone_owner, record));
        """,
        // v7: a location typed here over one this device could not open, the sealed one beside it until it opens.
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.unopened_locations(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL, sealed BLOB NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, id));
        """,
        // v8: a post's modified_at/by say when its content last changed; the cloud's stamps (which sharing
        // moves too) beside them, so the row still gives back the record it holds.
        """
        ALTER TABLE SCHEMA.posts ADD COLUMN saved_at REAL;
        ALTER TABLE SCHEMA.posts ADD COLUMN saved_by TEXT;
        UPDATE SCHEMA.posts SET saved_at = modified_at, saved_by = modified_by;
        """,
        // v9: when this device last showed each post (what is new since you looked), comments by post (counts in the
        // list), and when a comment was last edited.
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.seen(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL, seen_at REAL NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, id));
        CREATE INDEX IF NOT EXISTS SCHEMA.comments_by_post ON comments(zone_name, zone_owner, post_id);
        ALTER TABLE SCHEMA.comments ADD COLUMN modified_at REAL;
        """,
        // v10: what others did that touches this account, to say once and list again (used in main only), and
        // who last changed each comment, and when someone else's change of a post arrived here (what is new since
        // you looked goes by this device's clock, not the editor's).
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.notices(
            id INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, by TEXT NOT NULL, subject TEXT NOT NULL,
            detail TEXT, shown INTEGER NOT NULL DEFAULT 0);
        ALTER TABLE SCHEMA.comments ADD COLUMN modified_by TEXT;
        CREATE TABLE IF NOT EXISTS SCHEMA.arrived(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL, arrived_at REAL NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, id));
        """,
        // v11: the full-text index of `/` search (see `SearchIndex`), filled from the posts already here.
        SearchIndex.migration,
        // v12: a change the cloud refused for what it is (too large, say) stays in `pending`, marked with the
        // cloud's reason and when, so it is neither sent again nor forgotten (see `DeviceStore+Refused`).
        """
        ALTER TABLE SCHEMA.pending ADD COLUMN refused TEXT;
        ALTER TABLE SCHEMA.pending ADD COLUMN refused_at REAL;
        """,
        // v13: where this device last moved each post from and to (used in main only): a cloud put back from an older
        // copy and rebuilt is told of the move again (see `prepareReupload`).
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.moves(
            name TEXT NOT NULL PRIMARY KEY, from_zone TEXT NOT NULL, from_owner TEXT NOT NULL,
            to_zone TEXT NOT NULL, to_owner TEXT NOT NULL);
        """,
        // v14: notebooks this device deleted, and when the cloud took the deletion (used in main only): one that comes
        // back from another device (changes waiting in it there) is said, not shown again silently.
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.deleted_notebooks(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, deleted_at REAL NOT NULL,
            PRIMARY KEY(zone_name, zone_owner));
        """,
        // v15: which of those this device renamed, and to what (used in main only): one back from another device is
        // said as renamed, not as deleted.
        """
        CREATE TABLE IF NOT EXISTS SCHEMA.renamed_notebooks(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, renamed_to TEXT NOT NULL,
            PRIMARY KEY(zone_name, zone_owner));
        """,
    ]

    /// Brings one schema ("main" or "shared") up to date inside the caller's transaction.
    static func migrate(_ db: Database, schema: String) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA \(schema).user_version") ?? 0
        guard version < migrations.count else { return }
        for step in migrations[version...] {
            try db.execute(sql: step.replacingOccurrences(of: "SCHEMA.", with: "\(schema)."))
        }
        try db.execute(sql: "PRAGMA \(schema).user_version = \(migrations.count)")
    }
}
