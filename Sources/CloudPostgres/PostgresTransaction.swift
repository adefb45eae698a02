import Cloud
import Foundation
import Logging
import PostgresNIO

/// One pooled connection's transaction, as the cloud's rules use it. The rules write `?` (and SQLite's `?N`);
/// PostgreSQL takes `$N`, so each statement's text is translated once and kept.
///
/// Every wait for an answer is a round trip and two thread switches, so statements go out ahead of their
/// answers where the rules allow: the transaction's opening (`BEGIN`, a writer's lock) goes with its first
/// statement, a statement `send` is given is not waited for, and a read's `COMMIT` is not either. PostgreSQL
/// answers in order, so when a statement's answer is awaited, the ones sent before it have theirs: the first
/// failure among them is the one thrown (the rest were refused because of it).
final class PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    private let statements: StatementCache
    private let logger: Logger
    /// Sent before the body's first statement; nothing is sent for a body that runs none. Nil: no transaction
    /// at all, each statement on its own.
    private let opening: [String]?
    /// Whether the transaction's opening was sent.
    private var begun = false
    /// Sent, answer not yet looked at.
    private var unanswered: [EventLoopFuture<PostgresQueryResult>] = []

    init(_ connection: PostgresConnection, opening: [String]?, statements: StatementCache, logger: Logger) {
        self.connection = connection
        self.opening = opening
        self.statements = statements
        self.logger = logger
    }

    var dialect: SQLDialect { .postgres }

    func run(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws -> Int {
        let answer = submit(sql, values)
        try settle()
        let result = try answer.wait()
        for each in result.rows { try row(PostgresResultRow(each.makeRandomAccess())) }
        return result.metadata.rows ?? 0
    }

    func send(_ sql: String, _ values: [SQLValue]) throws {
        unanswered.append(submit(sql, values))
    }

    /// Sent like `send`; its rows are read when asked for (after the commit, which waited for every answer,
    /// they are there).
    func ask(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
        let answer = submit(sql, values)
        unanswered.append(answer)
        return SQLAnswer { [self] in
            try settle()  // read mid-transaction: a failure sent before it is the one to throw
            return try answer.wait().rows.map { SQLValuesRow(PostgresResultRow($0.makeRandomAccess())) }
        }
    }

    /// Commits what was sent, waiting for every answer. PostgreSQL answers the `COMMIT` of a transaction a
    /// failed statement aborted with `ROLLBACK`, not an error: that is one here.
    func commit() throws {
        guard begun else { return }
        let tag = query(PostgresQuery(unsafeSQL: "COMMIT"))
        try settle()
        guard try tag.wait().metadata.command == "COMMIT" else {
            throw CloudError.storage("PostgreSQL rolled the transaction back: a statement in it failed")
        }
    }

    /// Ends a transaction that wrote nothing without waiting: the connection's next user's statements queue
    /// behind the `COMMIT`, and a failure of it changes nothing (the connection's next statement fails too).
    func end() {
        guard begun else { return }
        _ = query(PostgresQuery(unsafeSQL: "COMMIT"))
        unanswered = []
    }

    /// Rolls back (after a failure). A connection that cannot is closed, so it is not lent again.
    func rollBack() {
        unanswered = []
        guard begun else { return }
        do { _ = try query(PostgresQuery(unsafeSQL: "ROLLBACK")).wait() } catch { try? connection.close().wait() }
    }

    private func submit(_ sql: String, _ values: [SQLValue]) -> EventLoopFuture<PostgresQueryResult> {
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
            unanswered += opening.map { connection.query(PostgresQuery(unsafeSQL: $0), logger: logger) }
        }
        return connection.query(query, logger: logger)
    }

    /// Waits for the answers of what was sent before, throwing the first failure.
    private func settle() throws {
        let sent = unanswered
        unanswered = []
        for answer in sent { _ = try answer.wait() }
    }
}

/// The `$N` text of each statement the rules have run, translated once.
final class StatementCache: @unchecked Sendable {
    private let lock = NSLock()
    private var translated: [String: String] = [:]

    func translated(_ sql: String) -> String {
        if let known = lock.withLock({ translated[sql] }) { return known }
        let text = Self.numbered(sql)
        lock.withLock { translated[sql] = text }
        return text
    }

    /// `?` becomes `$1`, `$2`, … in order; `?N` becomes `$N`, and a `?` after it the next past the highest, as
    /// SQLite numbers them. Quoted text ('…', "…") and comments (`--` to the line's end) are left as they are.
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var next = 0
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = characters.next()
        while let c = pending {
            pending = characters.next()
            if let open = quote {
                out.append(c)
                if open == "-" ? c == "\n" : c == open { quote = nil }
            } else if c == "-" && pending == "-" {
                quote = "-"  // a comment, to the end of its line
                out.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                out.append(c)
            } else if c == "?" {
                var digits = ""
                while let d = pending, d.isASCII, d.isNumber {
                    digits.append(d)
                    pending = characters.next()
                }
                if digits.isEmpty {
                    next += 1
                    out += "$\(next)"
                } else {
                    next = max(next, Int(digits) ?? 0)
                    out += "$" + digits
                }
            } else {
                out.append(c)
            }
        }
        return out
    }
}

/// A result row of PostgreSQL's, read as the rules read SQLite's: integers (and booleans, as 0 and 1), doubles,
/// text and bytes, by position or name.
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

