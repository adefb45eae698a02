import Foundation

/// The full-text index behind `/` search, kept in step with the posts, their
/// comments and their notebooks by triggers (so every write path keeps it,
/// whichever code makes it).
///
/// - `post_words` (FTS5) holds, for each post, its title, text, tags,
///   comments and notebook title (`words`) and the IDs of its author, last
///   editor and owner (`people`). The tokenizer folds case and diacritics
///   ("ha noi" finds "Hà Nội"); đ, which Unicode does not decompose, is
///   written as d on both sides.
/// - Each post's FTS row ID is its place in the list: the millisecond it was
///   last changed, times 2^20, plus a slot unique within that millisecond
///   (`post_order` maps it back to the post). FTS5 walks its matches in row
///   ID order and stops at the page's end, so a page of matches costs the
///   same at a million posts as at a thousand: no sort of every match.
enum SearchIndex {
    /// Slots in a millisecond: a million posts saved in one go still get one each.
    static let slots = 1 << 20

    static let migration = """
        CREATE TABLE IF NOT EXISTS SCHEMA.post_order(
            key INTEGER PRIMARY KEY, zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL,
            UNIQUE(zone_name, zone_owner, id));
        CREATE VIRTUAL TABLE IF NOT EXISTS SCHEMA.post_words USING fts5(
            words, people, tokenize = "unicode61 remove_diacritics 2", prefix = '1 2 3', detail = column);
        CREATE TRIGGER IF NOT EXISTS SCHEMA.post_words_insert AFTER INSERT ON posts BEGIN
            \(unindex("new")) \(index("new"))
        END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.post_words_update
        AFTER UPDATE OF title, content, tags, modified_at, created_by, modified_by ON posts BEGIN
            \(unindex("old")) \(index("new"))
        END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.post_words_delete AFTER DELETE ON posts BEGIN
            \(unindex("old"))
        END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.comment_words_insert AFTER INSERT ON comments BEGIN \(reindexPost(of: "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.comment_words_update AFTER UPDATE OF text ON comments BEGIN \(reindexPost(of: "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.comment_words_delete AFTER DELETE ON comments BEGIN \(reindexPost(of: "old")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.notebook_words_insert AFTER INSERT ON notebooks BEGIN
            UPDATE post_words SET words = (
                SELECT \(words("p")) FROM post_order o JOIN posts p \(samePost("o", "p")) WHERE o.key = post_words.rowid)
            WHERE rowid IN (SELECT key FROM post_order WHERE zone_name = new.zone_name AND zone_owner = new.zone_owner);
        END;
        INSERT OR IGNORE INTO SCHEMA.post_order(key, zone_name, zone_owner, id)
            SELECT base + row_number() OVER (PARTITION BY base ORDER BY id) - 1, zone_name, zone_owner, id
            FROM (SELECT \(base("posts")) AS base, zone_name, zone_owner, id FROM SCHEMA.posts);
        INSERT INTO SCHEMA.post_words(rowid, words, people)
            SELECT o.key, \(words("p", schema: "SCHEMA.")), \(people("p")) FROM SCHEMA.post_order o JOIN SCHEMA.posts p \(samePost("o", "p"));
        """

    /// The first row ID of the millisecond a post (row `p`) was last changed in.
    private static func base(_ p: String) -> String {
        "CAST(coalesce(\(p).modified_at, 0) * 1000 AS INTEGER) * \(slots)"
    }

    private static func samePost(_ a: String, _ b: String) -> String {
        "ON \(a).zone_name = \(b).zone_name AND \(a).zone_owner = \(b).zone_owner AND \(a).id = \(b).id"
    }

    /// What a post's words are: its text, its comments and its notebook's title, đ folded.
    /// (`schema` names the tables' schema outside a trigger, where unqualified names would mean main's.)
    private static func words(_ p: String, schema: String = "") -> String {
        """
        replace(replace(\(p).title || ' ' || \(p).content || ' ' || \(p).tags || ' '
            || coalesce((SELECT title FROM \(schema)notebooks b WHERE b.zone_name = \(p).zone_name AND b.zone_owner = \(p).zone_owner), '') || ' '
            || coalesce((SELECT group_concat(text, ' ') FROM \(schema)comments c
                         WHERE c.zone_name = \(p).zone_name AND c.zone_owner = \(p).zone_owner AND c.post_id = \(p).id), ''),
            'đ', 'd'), 'Đ', 'D')
        """
    }

    private static func people(_ p: String) -> String {
        "coalesce(\(p).created_by, '') || ' ' || coalesce(\(p).modified_by, '') || ' ' || \(p).zone_owner"
    }

    private static func index(_ p: String) -> String {
        """
        INSERT INTO post_order(key, zone_name, zone_owner, id) VALUES (
            (SELECT coalesce(max(key) + 1, \(base(p))) FROM post_order
             WHERE key >= \(base(p)) AND key < \(base(p)) + \(slots)), \(p).zone_name, \(p).zone_owner, \(p).id);
        INSERT INTO post_words(rowid, words, people) VALUES (last_insert_rowid(), \(words(p)), \(people(p)));
        """
    }

    /// Removes a post's entry; after INSERT OR REPLACE too, whose replaced row fires no delete trigger.
    private static func unindex(_ p: String) -> String {
        let post = "zone_name = \(p).zone_name AND zone_owner = \(p).zone_owner AND id = \(p).id"
        return """
            DELETE FROM post_words WHERE rowid = (SELECT key FROM post_order WHERE \(post));
            DELETE FROM post_order WHERE \(post);
            """
    }

    /// A comment changed: its post's words again.
    private static func reindexPost(of c: String) -> String {
        """
        UPDATE post_words SET words = (
            SELECT \(words("p")) FROM posts p WHERE p.zone_name = \(c).zone_name AND p.zone_owner = \(c).zone_owner AND p.id = \(c).post_id)
        WHERE rowid = (SELECT key FROM post_order WHERE zone_name = \(c).zone_name AND zone_owner = \(c).zone_owner AND id = \(c).post_id);
        """
    }
}

/// What `/` looks for: every word of the text, each as the start of a word of a post (its text, tags,
/// comments or notebook) or of the name of someone who wrote, changed or owns it.
public struct PostSearch: Equatable, Sendable {
    public struct Term: Equatable, Sendable {
        public var word: String
        /// The accounts whose names hold a word starting with this one.
        public var people: [String]
    }

    public let text: String
    public let terms: [Term]

    /// `people` gives the accounts whose names match a word (as `matches` matches).
    public init(_ text: String, people: (String) -> [String] = { _ in [] }) {
        self.text = text
        terms = Self.words(text).map { Term(word: $0, people: people($0)) }
    }

    /// The words of a text as the index cuts them: runs of letters and digits, đ as d.
    public static func words(_ text: String) -> [String] {
        text.replacingOccurrences(of: "đ", with: "d").replacingOccurrences(of: "Đ", with: "D")
            .split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Whether some word of `name` starts with `word`, ignoring case and diacritics (how the index matches).
    public static func matches(_ name: String, _ word: String) -> Bool {
        let fold = { (text: String) in text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        let wanted = fold(word)
        return words(name).contains { fold($0).hasPrefix(wanted) }
    }

    /// The FTS5 query: each word a quoted prefix (its letters and digits only, so no query syntax gets in).
    var match: String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { term in
            let alternatives = ["words : \"\(term.word)\"*"] + term.people.map { "people : \"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }
            return "(" + alternatives.joined(separator: " OR ") + ")"
        }.joined(separator: " AND ")
    }
}
