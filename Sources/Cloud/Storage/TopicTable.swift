
/// Queries on the `push_topics` table: the last commit posted to each topic.
enum TopicTable {
    /// Moves each topic to `sequence` and returns the commit each was at before. A topic never posted to (or
    /// posted to before the table existed) is taken to have changed just before this request (`unknown`), so
    /// nobody takes its push for one they have seen.
    static func advance(_ db: any SQLTransaction, _ topics: Set<PushTopic>, to sequence: Int64, unknown: Int64) throws -> [PushTopic: Int64] {
        var previous: [PushTopic: Int64] = [:]
        for topic in topics {
            previous[topic] = try seq(db, topic) ?? unknown
            try db.send("INSERT INTO push_topics(name, seq) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET seq = excluded.seq",
                           [topic.fileName, sequence])
        }
        return previous
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
