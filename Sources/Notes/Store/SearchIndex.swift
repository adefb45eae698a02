import Foundation

/// The full-text index behind `/` search, kept in step with the posts, their
/// comments and their notebooks.
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
/// - Indexing a post costs about 0.1 ms, twenty times writing its row, so it
///   is not done as the row is written (a sync applying 10,000 posts would
///   take three times as long). Triggers note which posts changed
///   (`search_dirty`, whichever code writes them), and `catchUp` indexes
///   those before any search reads: what a search finds is always the store
///   as it is.
enum SearchIndex {
    /// Slots in a millisecond: a million posts saved in one go still get one each.
    static let slots = 1 << 20

    static let migration = """
        CREATE TABLE IF NOT EXISTS SCHEMA.post_order(
            key INTEGER PRIMARY KEY, zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL,
            UNIQUE(zone_name, zone_owner, id));
        CREATE VIRTUAL TABLE IF NOT EXISTS SCHEMA.post_words USING fts5(
            words, people, tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M* So Sk'", prefix = '1 2 3', detail = column);
        CREATE TABLE IF NOT EXISTS SCHEMA.search_dirty(
            zone_name TEXT NOT NULL, zone_owner TEXT NOT NULL, id TEXT NOT NULL,
            PRIMARY KEY(zone_name, zone_owner, id)) WITHOUT ROWID;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_post_insert AFTER INSERT ON posts BEGIN \(dirty("new.id", "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_post_update
            AFTER UPDATE OF title, content, tags, modified_at, created_by, modified_by ON posts BEGIN \(dirty("new.id", "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_post_delete AFTER DELETE ON posts BEGIN \(dirty("old.id", "old")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_comment_insert AFTER INSERT ON comments BEGIN \(dirty("new.post_id", "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_comment_update AFTER UPDATE OF text ON comments BEGIN \(dirty("new.post_id", "new")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_comment_delete AFTER DELETE ON comments BEGIN \(dirty("old.post_id", "old")) END;
        CREATE TRIGGER IF NOT EXISTS SCHEMA.search_notebook_insert AFTER INSERT ON notebooks BEGIN
            INSERT OR IGNORE INTO search_dirty(zone_name, zone_owner, id)
                SELECT zone_name, zone_owner, id FROM posts WHERE zone_name = new.zone_name AND zone_owner = new.zone_owner;
        END;
        INSERT OR IGNORE INTO SCHEMA.search_dirty(zone_name, zone_owner, id) SELECT zone_name, zone_owner, id FROM SCHEMA.posts;
        """

    /// Notes that a post (in the zone of row `z`) changed: its entry is made again before the next search.
    private static func dirty(_ id: String, _ z: String) -> String {
        "INSERT OR IGNORE INTO search_dirty(zone_name, zone_owner, id) VALUES (\(z).zone_name, \(z).zone_owner, \(id));"
    }

    /// Statements that make the entries of the posts in `temp.search_batch` again in `schema`: the old ones
    /// out, then, for the posts still there, their words under a key after every key of their millisecond.
    static func reindex(_ schema: String) -> [String] {
        let batch = "temp.search_batch b"
        return [
            """
            DELETE FROM \(schema).post_words WHERE rowid IN (SELECT o.key FROM \(schema).post_order o JOIN \(batch) \(samePost("o", "b")))
            """,
            """
            DELETE FROM \(schema).post_order WHERE key IN (SELECT o.key FROM \(schema).post_order o JOIN \(batch) \(samePost("o", "b")))
            """,
            """
            INSERT INTO \(schema).post_order(key, zone_name, zone_owner, id)
            SELECT coalesce((SELECT max(key) + 1 FROM \(schema).post_order WHERE key >= base AND key < base + \(slots)), base)
                   + row_number() OVER (PARTITION BY base ORDER BY id) - 1, zone_name, zone_owner, id
            FROM (SELECT \(base("p")) AS base, p.zone_name, p.zone_owner, p.id FROM \(schema).posts p JOIN \(batch) \(samePost("p", "b")))
            """,
            """
            INSERT INTO \(schema).post_words(rowid, words, people)
            SELECT o.key, \(words("p", schema: schema + ".")), \(people("p"))
            FROM \(batch) JOIN \(schema).post_order o \(samePost("o", "b")) JOIN \(schema).posts p \(samePost("p", "b"))
            """,
            """
            DELETE FROM \(schema).search_dirty WHERE (zone_name, zone_owner, id) IN (SELECT zone_name, zone_owner, id FROM \(batch))
            """,
        ]
    }

    /// The first row ID of the millisecond a post (row `p`) was last changed in.
    private static func base(_ p: String) -> String {
        "CAST(coalesce(\(p).modified_at, 0) * 1000 AS INTEGER) * \(slots)"
    }

    private static func samePost(_ a: String, _ b: String) -> String {
        "ON \(a).zone_name = \(b).zone_name AND \(a).zone_owner = \(b).zone_owner AND \(a).id = \(b).id"
    }

    /// What a post's words are: its text, its comments and its notebook's title, đ folded.
    private static func words(_ p: String, schema: String) -> String {
        """
        replace(replace(\(p).title || ' ' || \(p).content || ' ' || \(p).tags || ' '
            || coalesce((SELECT title FROM \(schema)notebooks n WHERE n.zone_name = \(p).zone_name AND n.zone_owner = \(p).zone_owner), '') || ' '
            || coalesce((SELECT group_concat(text, ' ') FROM \(schema)comments c
                         WHERE c.zone_name = \(p).zone_name AND c.zone_owner = \(p).zone_owner AND c.post_id = \(p).id), ''),
            'đ', 'd'), 'Đ', 'D')
        """
    }

    private static func people(_ p: String) -> String {
        "coalesce(\(p).created_by, '') || ' ' || coalesce(\(p).modified_by, '') || ' ' || \(p).zone_owner"
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
        // (Sixteen words of at most 64 characters each: a paste of a page is still one quick query.)
        terms = Self.words(text).prefix(16).map { String($0.prefix(64)) }.map { Term(word: $0, people: people($0)) }
    }

    /// The words of a text as the index's tokenizer cuts them: runs of letters, digits, private-use
    /// characters, emoji and marks (so a vowel sign of Hindi or Thai stays inside its word; a Latin diacritic the
    /// tokenizer drops), đ as d. Cut by Unicode scalar, as the tokenizer does, not by grapheme.
    public static func words(_ text: String) -> [String] {
        var words: [String] = [], word = String.UnicodeScalarView()
        for scalar in text.replacingOccurrences(of: "đ", with: "d").replacingOccurrences(of: "Đ", with: "D").unicodeScalars {
            if isWordScalar(scalar) {
                word.append(scalar)
            } else if !word.isEmpty {
                words.append(String(word))
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    /// The tokenizer's categories: L*, N*, Co, M*, and So and Sk (emoji and their skin tones).
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse,
             .nonspacingMark, .spacingMark, .enclosingMark, .otherSymbol, .modifierSymbol: true
        default: false
        }
    }

    /// Whether some word of `name` starts with `word`, ignoring case and diacritics (how the index matches).
    public static func matches(_ name: String, _ word: String) -> Bool {
        let fold = { (text: String) in text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        let wanted = fold(word)
        return words(name).contains { fold($0).hasPrefix(wanted) }
    }

    /// The FTS5 query: each word a quoted prefix, one token as the tokenizer cuts (a phrase would need the
    /// positions `detail = column` leaves out); quotes doubled, though a word holds none, so no query syntax
    /// gets in.
    var match: String? {
        guard !terms.isEmpty else { return nil }
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return terms.map { term in
            let alternatives = ["words : \(quoted(term.word))*"] + term.people.map { "people : \(quoted($0))" }
            return "(" + alternatives.joined(separator: " OR ") + ")"
        }.joined(separator: " AND ")
    }
}
