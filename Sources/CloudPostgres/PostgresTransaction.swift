import Cloud
import Foundation
import Logging
import PostgresNIO

/// One pooled connection's transaction, as the cloud's rules use it. The rules write `?` (and SQLite's `?N`);
/// PostgreSQL takes `$N`, so each statement's text is translated once and kept.
///
/// Every wait of this thread for an answer is two thread switches, so it waits only where the rules read an
/// answer: the transaction's opening (`BEGIN`) is handed over with its first statement, a writer's lock is
/// asked like `ask`, a statement `send` is given is not waited for, and a read's `COMMIT` is not either.
/// Answers come in order, so when a statement's answer is awaited, the ones handed over before it have
/// theirs: the first failure among them is the one thrown (the rest were refused because of it).
///
/// On the wire each statement is a round trip of its own: postgres-nio sends a connection's next statement
/// only when the one before is answered (no pipelining). So statements `send` is given in a row (a save's
/// version kept, its row, the zone touched, the sequence moved) go as one: `cloudnotes_run`, a function of
/// the schema's, runs their `EXECUTE`s (and `PREPARE`s) in order inside the transaction. They are sent
/// before the next statement that is not one of them, or the commit.
final class PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    /// The connection as its pool lent it, with the statements prepared on it.
    private let lent: PostgresPool.Lent
    private let statements: StatementCache
    private let logger: Logger
    /// Sent before the body's first statement; nothing is sent for a body that runs none. Nil: no transaction
    /// at all, each statement on its own.
    private let opening: [String]?
    /// Whether the transaction's opening was sent.
    private var begun = false
    /// Sent, answer not yet looked at.
    private var unanswered: [EventLoopFuture<PostgresQueryResult>] = []
    /// Whether a statement of this transaction failed: a `PREPARE` sent after it may not have been done.
    private var failed = false
    /// Statements given to `send`, prepared, not sent yet: sent together (`sendBatch`).
    private var batch: [String] = []
    /// The statements a `PREPARE` in `batch` makes (counted as prepared on the connection already).
    private var batchPrepares: [String] = []

    init(_ lent: PostgresPool.Lent, opening: [String]?, statements: StatementCache, logger: Logger) {
        self.lent = lent
        connection = lent.connection
        self.opening = opening
        self.statements = statements
        self.logger = logger
    }

    var dialect: SQLDialect { .postgres }

    /// Only until the next statement: what that changes, the answer would not show.
    private(set) var identityUnderLock: SQLAnswer?

    /// Takes the writers' lock with `query`, which reads the cloud's identity and sequence (kept as
    /// `identityUnderLock`). Sent like `ask`: the thread waits when the rules read the identity.
    func lockWriters(with query: String) throws {
        let answer = try ask(query, [])
        identityUnderLock = answer
    }

    func run(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws -> Int {
        identityUnderLock = nil
        let answer = submit(sql, values)
        try settle()
        let result = try awaited(answer)
        for each in result.rows { try row(PostgresResultRow(each.makeRandomAccess())) }
        return result.metadata.rows ?? 0
    }

    func send(_ sql: String, _ values: [SQLValue]) throws {
        identityUnderLock = nil
        guard let statement = statements.prepared(sql, values) else { return unanswered.append(submit(sql, values)) }
        batch.append(gathering(statement, values))
    }

    /// The `EXECUTE` of a prepared statement, its `PREPARE` gathered into `batch` first when this connection has
    /// not made it (counted as made from now on; `rollBack` forgets it if the batch is never sent).
    private func gathering(_ statement: StatementCache.Prepared, _ values: [SQLValue]) -> String {
        if lent.prepared.insert(statement.name).inserted {
            batch.append(statement.preparing)
            batchPrepares.append(statement.name)
        }
        return StatementCache.executing(statement.name, values)
    }

    /// Sends the statements `send` gathered: one alone as it is, more in one call of `cloudnotes_run`.
    private func sendBatch() {
        guard !batch.isEmpty else { return }
        let statements = batch
        batch = []
        batchPrepares = []
        if statements.count == 1 { return unanswered.append(query(PostgresQuery(unsafeSQL: statements[0]))) }
        var binds = PostgresBindings(capacity: 1)
        binds.append(statements)
        unanswered.append(query(PostgresQuery(unsafeSQL: "SELECT cloudnotes_run($1)", binds: binds)))
    }

    /// Sent like `send`; its rows are read when asked for (after the commit, which waited for every answer,
    /// they are there).
    func ask(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
        identityUnderLock = nil
        let answer = submit(sql, values)
        unanswered.append(answer)
        return SQLAnswer { [self] in
            try settle()  // read mid-transaction: a failure sent before it is the one to throw
            return try awaited(answer).rows.map { SQLValuesRow(PostgresResultRow($0.makeRandomAccess())) }
        }
    }

    /// Commits what was sent, waiting for every answer. PostgreSQL answers the `COMMIT` of a transaction a
    /// failed statement aborted with `ROLLBACK`, not an error: that is one here.
    func commit() throws {
        sendBatch()
        guard begun else { return }
        let tag = query(PostgresQuery(unsafeSQL: "COMMIT"))
        try settle()
        guard try awaited(tag).metadata.command == "COMMIT" else {
            failed = true
            throw CloudError.storage("PostgreSQL rolled the transaction back: a statement in it failed")
        }
    }

    /// Ends a transaction that wrote nothing without waiting: the connection's next user's statements queue
    /// behind the `COMMIT`, and a failure of it changes nothing (the connection's next statement fails too).
    /// Statements whose answers were never looked at are waited for (rarely: reads look at theirs), so that
    /// one that failed, and a `PREPARE` it stopped, are known before the connection is lent again; after a
    /// failure it rolls back instead.
    func end() {
        // A failure the body looked past (`try?`) may have stopped a `PREPARE` sent after it.
        if failed { return rollBack() }
        sendBatch()
        if !unanswered.isEmpty && (try? settle()) == nil { return rollBack() }
        guard begun else { return }
        _ = query(PostgresQuery(unsafeSQL: "COMMIT"))
    }

    /// Rolls back (after a failure). A connection that cannot is closed, so it is not lent again.
    ///
    /// A prepared statement outlives the transaction that prepared it, but one a failed statement kept from
    /// being prepared does not exist: after a failure the connection forgets all it prepared, and so does
    /// the record of it.
    func rollBack() {
        // Never sent: what they would have prepared was not.
        lent.prepared.subtract(batchPrepares)
        batch = []
        batchPrepares = []
        let sent = unanswered
        unanswered = []
        do {
            if begun { _ = try connection.queryAnswered(PostgresQuery(unsafeSQL: "ROLLBACK"), logger: logger).wait() }
            // Answered in order: every statement sent before the `ROLLBACK` has its answer now.
            failed = failed || sent.contains { (try? $0.wait()) == nil }
            if failed, !lent.prepared.isEmpty {
                lent.prepared = []
                _ = try connection.queryAnswered(PostgresQuery(unsafeSQL: "DEALLOCATE ALL"), logger: logger).wait()
            }
        } catch {
            // (Already broken: closing is best effort, and the pool opens a new one.)
            try? connection.close().wait()
        }
    }

    /// The statement prepared on this connection and run with the values (its `PREPARE`, if the connection
    /// has not made it, going with the statements gathered before it); as it is, bound, when it is not one to
    /// prepare. What was gathered is sent first, so answered first.
    private func submit(_ sql: String, _ values: [SQLValue]) -> EventLoopFuture<PostgresQueryResult> {
        guard let statement = statements.prepared(sql, values) else {
            sendBatch()
            return submitUnprepared(sql, values)
        }
        let executing = gathering(statement, values)
        sendBatch()
        return query(PostgresQuery(unsafeSQL: executing))
    }

    private func submitUnprepared(_ sql: String, _ values: [SQLValue]) -> EventLoopFuture<PostgresQueryResult> {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let v): binds.append(v)
            case .real(let v): binds.append(v)
            case .text(let v): binds.append(v)
            case .blob(let v): binds.append(ByteBuffer(bytes: v))
            }
        }
        return query(PostgresQuery(unsafeSQL: statements.translated(sql), binds: binds))
    }

    private func query(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        if !begun, let opening {
            begun = true
            unanswered += opening.map { connection.queryAnswered(PostgresQuery(unsafeSQL: $0), logger: logger) }
        }
        return connection.queryAnswered(query, logger: logger)
    }

    /// Waits for the answers of what was sent before, throwing the first failure.
    private func settle() throws {
        let sent = unanswered
        unanswered = []
        do {
            for answer in sent { _ = try answer.wait() }
        } catch {
            failed = true
            throw error
        }
    }

    private func awaited(_ answer: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        do {
            return try answer.wait()
        } catch {
            failed = true
            throw error
        }
    }
}

/// A result row of PostgreSQL's, read as the rules read SQLite's: integers (and booleans, as 0 and 1), doubles,
/// text and bytes, by position or name. A cell that does not decode as the type asked for reads as SQLite reads
/// a mismatched value, nil or 0 (`try?` below); the schema's column types never ask for another.
struct PostgresResultRow: SQLRow {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRandomAccessRow) { self.row = row }

    func isNull(_ column: Int) -> Bool { row[column].bytes == nil }

    func text(_ column: Int) -> String { optionalText(column) ?? "" }

    func optionalText(_ column: Int) -> String? {
        let cell = row[column]
        guard cell.bytes != nil else { return nil }
        switch cell.dataType {
        case .int2, .int4, .int8: return String(int64(column))
        default: return try? cell.decode(String.self)
        }
    }

    func int64(_ column: Int) -> Int64 {
        let cell = row[column]
        guard cell.bytes != nil else { return 0 }
        switch cell.dataType {
        case .bool: return (try? cell.decode(Bool.self)) == true ? 1 : 0
        case .int2: return Int64((try? cell.decode(Int16.self)) ?? 0)
        case .int4: return Int64((try? cell.decode(Int32.self)) ?? 0)
        case .float4, .float8: return Int64((try? cell.decode(Double.self)) ?? 0)
        case .numeric: return (try? cell.decode(String.self)).flatMap { Int64($0) } ?? 0
        default: return (try? cell.decode(Int64.self)) ?? 0
        }
    }

    func double(_ column: Int) -> Double? {
        let cell = row[column]
        guard cell.bytes != nil else { return nil }
        switch cell.dataType {
        case .int2, .int4, .int8, .bool: return Double(int64(column))
        default: return try? cell.decode(Double.self)
        }
    }

    func data(_ column: Int) -> Data? {
        let cell = row[column]
        guard cell.bytes != nil else { return nil }
        return try? cell.decode(Data.self)
    }

    var columnCount: Int { row.count }

    func value(_ column: Int) -> SQLValue {
        guard !isNull(column) else { return .null }
        switch row[column].dataType {
        case .int2, .int4, .int8, .bool: return .integer(int64(column))
        case .float4, .float8: return .real(double(column) ?? 0)
        case .bytea: return .blob(data(column) ?? Data())
        default: return .text(text(column))
        }
    }

    /// The first column of that name, as SQLite's rows answer.
    func column(named name: String) -> Int {
        guard let index = row.firstIndex(where: { $0.columnName == name }) else { preconditionFailure("no column \(name) in a PostgreSQL result") }
        return index
    }
}

