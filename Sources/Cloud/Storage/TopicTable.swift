
/// Queries on the `push_topics` table: the last commit posted to each topic.
enum TopicTable {
    /// Moves each topic to `sequence`; once the transaction has committed, the returned closure tells the commit
    /// each was at before. A topic never posted to (or posted to before the table existed) is taken to have changed
    /// just before this request (`unknown`), so nobody takes its push for one they have seen.
    ///
    /// One statement moves the topics and returns where each was (`previous`, set as it moves), its answer read
    /// after the commit: a writer holds the cloud's sequence for its whole transaction, and on PostgreSQL each
    /// statement is a round trip.
    static func advance(_ db: any SQLTransaction, _ topics: Set<PushTopic>, to sequence: Int64,
                        unknown: Int64) throws -> () throws -> [PushTopic: Int64] {
        let names = topics.map(\.fileName)
        let rows = Array(repeating: "(?, ?)", count: names.count).joined(separator: ", ")
        let moved = try db.ask("""
            INSERT INTO push_topics(name, seq) VALUES \(rows)
            ON CONFLICT(name) DO UPDATE SET previous = push_topics.seq, seq = excluded.seq RETURNING name, previous
            """, names.flatMap { [SQLValue.text($0), .integer(sequence)] })
        return {
            var known: [String: Int64] = [:]
            for row in try moved.rows() where !row.isNull(1) { known[row.text(0)] = row.int64(1) }
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
