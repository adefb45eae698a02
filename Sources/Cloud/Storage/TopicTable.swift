import GRDB

/// Queries on the `push_topics` table: the last commit posted to each topic.
enum TopicTable {
    /// Moves each topic to `sequence` and returns the commit each was at before. A topic never posted to (or
    /// posted to before the table existed) is taken to have changed just before this request (`unknown`), so
    /// nobody takes its push for one they have seen.
    static func advance(_ db: Database, _ topics: Set<PushTopic>, to sequence: Int64, unknown: Int64) throws -> [PushTopic: Int64] {
        var previous: [PushTopic: Int64] = [:]
        for topic in topics {
            let name = topic.fileName
            previous[topic] = try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM push_topics WHERE name = ?"), arguments: [name])
                ?? unknown
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO push_topics(name, seq) VALUES (?, ?)").execute(arguments: [name, sequence])
        }
        return previous
    }

    static func last(_ db: Database, _ topics: Set<PushTopic>) throws -> [PushTopic: Int64] {
        var last: [PushTopic: Int64] = [:]
        for topic in topics {
            last[topic] = try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM push_topics WHERE name = ?"), arguments: [topic.fileName]) ?? 0
        }
        return last
    }
}
