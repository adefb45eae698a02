import Cloud
@testable import CloudPostgres
import Foundation
import Testing
import TestSupport

/// On PostgreSQL the rules' statements are prepared once per connection and run with their values written in as
/// literals (`StatementCache`): every value must arrive exactly, whatever it holds, and a statement a failure
/// kept from being prepared must not be counted as prepared.
@Suite(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's (CLOUDNOTES_TEST_STORE=postgresql)"))
struct PreparedStatementTests {
    /// A storage of one connection for reads and one for writes, so each transaction meets what the one before
    /// it prepared.
    private func storage() throws -> PostgresStorage {
        let url = try #require(try TestStore.database(for: TemporaryDirectory("prepared").url))
        return try PostgresStorage(try PostgresLocation(parsing: url), connections: 1, writeConnections: 1)
    }

    @Test func everyValueArrivesExactlyAndTheStatementIsPreparedOnce() throws {
        let storage = try storage()
        let values: [SQLValue] = [
            .text("it's \\' a \"quote\" '); DROP TABLE records; -- $1 ?2 \n\t ☃ 🎉 Hà Nội"), .text(""),
            .text("'\u{301}); DROP TABLE records; --"),  // a quote and a combining mark: one Character, two scalars
            .integer(.min), .integer(.max), .integer(0), .integer(-1),
            .real(5e-324), .real(.greatestFiniteMagnitude), .real(-0.0), .real(0.1), .real(1.0 / 3), .real(-2.5e-10),
            .blob(Data((0...255).map { UInt8($0) })), .blob(Data()),
        ]
        let select = "SELECT " + values.indices.map { "? AS v\($0)" }.joined(separator: ", ") + ", CAST(? AS bigint) IS NULL AS none"
        let arrived = try storage.read { db in
            try (0..<2).map { _ in
                try db.all(select, values + [SQLValue.null]) { row in (0..<values.count).map { row.value($0) } + [row.value(values.count)] }
            }
        }
        for rows in arrived {
            let row = try #require(rows.first)
            #expect(Array(row.prefix(values.count)) == values)
            #expect(row.last == .integer(1), "NULL arrived as NULL")
            #expect(row[9] == .real(-0.0) && { if case .real(let zero) = row[9] { zero.sign == .minus } else { false } }(),
                    "negative zero keeps its sign")
        }

        // Asked on the same connection: prepared once, run twice; a list of more values is not prepared (each of
        // its lengths would be a statement of its own).
        let list = (0...StatementCache.maxValues).map { _ in SQLValue.integer(7) }
        let listed = try storage.read { db in
            try db.int64("SELECT count(*) AS listed FROM (VALUES (1)) v WHERE 7 IN (" + list.map { _ in "?" }.joined(separator: ", ") + ")", list)
        }
        #expect(listed == 1)
        let prepared = try storage.read { db in
            try db.all("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements WHERE name LIKE 'cn%'") { row in
                (row.text(0), row.int64(1))
            }
        }
        let roundTrip = prepared.filter { $0.0.contains("AS none") }
        #expect(roundTrip.count == 1 && roundTrip.first?.1 == 2, "\(prepared)")
        #expect(!prepared.contains { $0.0.contains("AS listed") }, "\(prepared)")
    }

    @Test func aStatementAFailureKeptFromBeingPreparedIsPreparedNextTime() throws {
        let storage = try storage()
        #expect(throws: (any Error).self) {
            try storage.write { db in
                try db.send("SELECT 1 / 0", [SQLValue]())  // fails, unawaited: what follows it in the flight is refused
                _ = try db.int64("SELECT ? + 1 AS after_the_failure", [41])
            }
        }
        let answer = try storage.write { db in try db.int64("SELECT ? + 1 AS after_the_failure", [41]) }
        #expect(answer == 42)
    }

    /// Statements sent in a row go to PostgreSQL in one call (`cloudnotes_run`), run there in the order sent.
    /// (Counted with `track_functions`, which the test cluster's superuser may set.)
    @Test func statementsSentInARowRunInOrderInOneCall() throws {
        let storage = try storage()
        try storage.write { db in try db.execute("CREATE TABLE scratch(a BIGINT PRIMARY KEY, b TEXT)") }
        let (rows, calls) = try storage.write { db in
            try db.execute("SET LOCAL track_functions = 'pl'")
            try db.send("INSERT INTO scratch VALUES (?, ?)", [.integer(1), .text("first")])
            try db.send("UPDATE scratch SET b = ? WHERE a = ?", [.text("it's second"), .integer(1)])
            try db.send("INSERT INTO scratch VALUES (?, ?)", [.integer(2), .text("gone")])
            try db.send("DELETE FROM scratch WHERE a = ?", [.integer(2)])
            let rows = try db.all("SELECT a, b FROM scratch ORDER BY a", [SQLValue]()) { row in "\(row.int64(0)) \(row.text(1))" }
            let calls = try db.int64("SELECT calls FROM pg_stat_xact_user_functions WHERE funcname = 'cloudnotes_run'")
            return (rows, calls)
        }
        #expect(rows == ["1 it's second"])
        #expect(calls == 1)

        // A failure among them fails the transaction whole: nothing sent before it in the call stays.
        #expect(throws: (any Error).self) {
            try storage.write { db in
                try db.send("INSERT INTO scratch VALUES (?, ?)", [.integer(3), .text("rolled back")])
                try db.send("INSERT INTO scratch VALUES (?, ?)", [.integer(1), .text("a key already there")])
            }
        }
        #expect(try storage.read { db in try db.int64("SELECT count(*) FROM scratch") } == 1)

        // Text that would end a literal early arrives exactly through a call too (inside one, `EXECUTE` would run
        // a second statement that broke out, where the protocol refused it).
        let hostile = ["it's '); DELETE FROM scratch; --", "'\u{301}); DELETE FROM scratch; --", "\\'; SELECT 1; --", "$$; $1 ?2"]
        try storage.write { db in
            for (i, text) in hostile.enumerated() { try db.send("INSERT INTO scratch VALUES (?, ?)", [.integer(Int64(10 + i)), .text(text)]) }
        }
        let arrived = try storage.read { db in try db.all("SELECT b FROM scratch WHERE a >= 10 ORDER BY a", [SQLValue]()) { $0.text(0) } }
        #expect(arrived == hostile)
        #expect(try storage.read { db in try db.int64("SELECT count(*) FROM scratch") } == 1 + Int64(hostile.count))
    }

    /// A transaction that fails before its gathered statements are sent never prepares what they would have:
    /// the next use of those statements prepares them.
    @Test func statementsNeverSentLeaveNothingCountedAsPrepared() throws {
        let storage = try storage()
        try storage.write { db in try db.execute("CREATE TABLE scratch(a BIGINT PRIMARY KEY)") }
        let stop = CloudError.invalidArguments("the rules refuse this request")
        #expect(throws: stop) {
            try storage.write { db in
                try db.send("INSERT INTO scratch VALUES (?)", [.integer(1)])
                throw stop
            }
        }
        try storage.write { db in try db.send("INSERT INTO scratch VALUES (?)", [.integer(2)]) }
        #expect(try storage.read { db in try db.all("SELECT a FROM scratch", [SQLValue]()) { $0.int64(0) } } == [2])
    }

    /// A read whose body looked past a failure (`try?`) ends with the statements that failure stopped from being
    /// prepared forgotten too.
    @Test func aFailureAReadLookedPastStillForgetsWhatItStopped() throws {
        let storage = try storage()
        try storage.read { db in
            _ = try? db.int64("SELECT 1 / 0 AS fails", [SQLValue]())
            _ = try? db.int64("SELECT ? + 2 AS looked_past", [1])
        }
        #expect(try storage.read { db in try db.int64("SELECT ? + 2 AS looked_past", [1]) } == 3)
    }

    /// A schema step of a newer server that changes the columns a prepared `SELECT *` returns makes PostgreSQL
    /// refuse the statement on the connections that prepared it: the client is told to try again (not a storage
    /// failure), and the connection prepares it afresh, so the next request is answered.
    @Test func aStatementWhoseColumnsAnotherServerChangedIsTriedAgain() throws {
        let storage = try storage()
        try storage.write { db in
            try db.execute("CREATE TABLE scratch(a BIGINT PRIMARY KEY)")
            try db.execute("INSERT INTO scratch VALUES (?)", [1])
        }
        func columns() throws -> Int? { try storage.read { db in try db.first("SELECT * FROM scratch WHERE a = ?", [1]) { $0.columnCount } } }
        #expect(try columns() == 1)
        try storage.write { db in try db.execute("ALTER TABLE scratch ADD COLUMN b TEXT") }
        #expect(throws: CloudError.serviceUnavailable(retryAfter: 1)) { try columns() }
        #expect(try columns() == 2)
    }
}
