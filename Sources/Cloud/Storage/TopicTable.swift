
/// Queries on the `push_topics` table: the last commit posted to each topic.
enum TopicTable {
    /// Moves each topic to `sequence`; once the transaction has committed, the returned closure tells the commit
    /// each was at before. A topic never posted to (or posted to before the table existed) is taken to have changed
    /// just before this request (`unknown`), so nobody takes its push for one they have seen.
    ///
    /// The topics' previous commits are asked for in one query whose answer is read after the commit: a writer
    /// holds the cloud's sequence for its whole transaction, and on PostgreSQL this spares it a round trip.
    static func advance(_ db: any SQLTransaction, _ topics: Set<PushTopic>, to sequence: Int64,
                        unknown: Int64) throws -> () throws -> [PushTopic: Int64] {
        let names = topics.map(\.fileName)
        let list = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let before = try db.ask("SELECT name, seq FROM push_topics WHERE name IN (\(list))", names.map(SQLValue.text))
        for name in names {
            try db.send("INSERT INTO push_topics(name, seq) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET seq = excluded.seq",
                        [name, sequence])
        }
        return {
            var known: [String: Int64] = [:]
            for row in try before.rows() { known[row.text(0)] = row.int64(1) }
            return Dictionary(uniqueKeysWithValues: topics.map { ($0, known[$0.fileName] ?? unknown) })
        }
    }

    /// The last commit posted to each topic (0 for one never posted to).
    static func last(_ db: any SQLTransaction, _ topics: Set<PushTopic>) throws -> [PushTopic: Int64] {
        var last: [PushTopic: Int64] = [:]
        for topic in topics { last[topic] = try seq(db, topic) ?? 0 }
        return last
    }

    private static func seq(_ db: any SQLTransaction, _ topic: PushTopic) throws -> Int64? {
        try db.int64("SELECT seq FROM push_topics WHERE name = ?", [topic.fileName])
    }
}
