import Foundation

/// The storage seam: every rule of the cloud reads and writes through an open `SQLTransaction`, in SQL both
/// stores run (SQLite's file and PostgreSQL; see `CloudStorage` and docs/STORAGE.md). Statements take their
/// values as `?`, in order; the few places where the two dialects differ ask `dialect`.
public protocol SQLTransaction: AnyObject {
    var dialect: SQLDialect { get }

    /// Runs one statement with `values` bound to its `?`s in order, calling `row` for each result row (a row is
    /// valid only during that call). Returns how many rows the statement changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws -> Int

    /// Runs a statement whose outcome the caller does not read (no rows, no count). A store across a network
    /// sends it without waiting for its answer (PostgreSQL's, with the statements sent in a row after it, in
    /// one call): a failure is then thrown by a statement sent after it and waited for, or by the commit, and
    /// the transaction fails as a whole as it would have. SQLite runs it at once.
    func send(_ sql: String, _ values: [SQLValue]) throws

    /// Sends a query whose rows are read later (`SQLAnswer.rows`), further on in the transaction or after it
    /// commits. A store across a network sends it with the statements after it, waiting for no answer of its own
    /// until the rows are read; as with `send`, a failure fails the transaction. SQLite runs it at once.
    func ask(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer

    /// In a write whose store takes the writers' lock with a query of the cloud's identity and sequence
    /// (`LocalCloud.identityQuery`'s columns; PostgreSQL's `FOR UPDATE` of the sequence row), that query's
    /// answer, as the write began: the rules need not ask again. Nil once another statement ran (what it
    /// changed the answer would not show), when the lock reads nothing (SQLite's `BEGIN IMMEDIATE`), or outside
    /// a write.
    var identityUnderLock: SQLAnswer? { get }
}

/// The rows of a query sent with `ask`: read them later in the transaction (the statements sent after it go out
/// before its answer is awaited), or once it has committed.
public struct SQLAnswer {
    private let read: () throws -> [SQLValuesRow]

    public init(_ read: @escaping () throws -> [SQLValuesRow]) { self.read = read }

    public func rows() throws -> [SQLValuesRow] { try read() }
}

/// A row's values copied out of its statement, read by position.
public struct SQLValuesRow: SQLRow {
    public let values: [SQLValue]

    public init(_ row: any SQLRow) { values = (0..<row.columnCount).map(row.value) }

    public func isNull(_ column: Int) -> Bool { values[column] == .null }
    public func text(_ column: Int) -> String { optionalText(column) ?? "" }

    public func optionalText(_ column: Int) -> String? {
        switch values[column] {
        case .null: nil
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v
        case .blob(let v): String(decoding: v, as: UTF8.self)
        }
    }

    public func int64(_ column: Int) -> Int64 {
        switch values[column] {
        case .integer(let v): v
        case .real(let v): Int64(v)
        case .text(let v): Int64(v) ?? 0
        case .null, .blob: 0
        }
    }

    public func double(_ column: Int) -> Double? {
        switch values[column] {
        case .integer(let v): Double(v)
        case .real(let v): v
        case .text(let v): Double(v)
        case .null, .blob: nil
        }
    }

    public func data(_ column: Int) -> Data? {
        switch values[column] {
        case .blob(let v): v
        case .text(let v): Data(v.utf8)
        case .null, .integer, .real: nil
        }
    }

    public func column(named name: String) -> Int { preconditionFailure("an asked row is read by position, not by \(name)") }
    public var columnCount: Int { values.count }
    public func value(_ column: Int) -> SQLValue { values[column] }
}

/// Which SQL a store speaks, for the statements that cannot be written once.
public enum SQLDialect: Sendable {
    case sqlite, postgres

    /// The larger of two values (SQLite's scalar `max`; PostgreSQL's `GREATEST`).
    func greatest(_ a: String, _ b: String) -> String {
        switch self {
        case .sqlite: "max(\(a), \(b))"
        case .postgres: "GREATEST(\(a), \(b))"
        }
    }

    /// A name bound as a value, compared as the tables' names are (PostgreSQL's columns sort by bytes: a
    /// recursive query's first row must say so too).
    func name(_ value: String) -> String {
        switch self {
        case .sqlite: value
        case .postgres: "(\(value) COLLATE \"C\")"
        }
    }

    /// The rows of a JSON array of strings bound as one `?`, in a column named `value`.
    var jsonStrings: String {
        switch self {
        case .sqlite: "SELECT value FROM json_each(?)"
        case .postgres: "SELECT value COLLATE \"C\" FROM json_array_elements_text(CAST(? AS json)) AS value"
        }
    }
}

/// A value bound to a statement or read from a row.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A Swift value a statement takes as one of its `?`s.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Data: SQLBindable { public var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// A result row's values, by position (the fast way) or by column name.
public protocol SQLRow {
    func isNull(_ column: Int) -> Bool
    func text(_ column: Int) -> String
    func optionalText(_ column: Int) -> String?
    func int64(_ column: Int) -> Int64
    func double(_ column: Int) -> Double?
    func data(_ column: Int) -> Data?
    /// The position of the column named `name`.
    func column(named name: String) -> Int
    var columnCount: Int { get }
    /// The column's value as the store holds it.
    func value(_ column: Int) -> SQLValue
}

extension SQLRow {
    public func bool(_ column: Int) -> Bool { int64(column) != 0 }
    public func optionalInt64(_ column: Int) -> Int64? { isNull(column) ? nil : int64(column) }

    public func text(_ name: String) -> String { text(column(named: name)) }
    public func optionalText(_ name: String) -> String? { optionalText(column(named: name)) }
    public func int64(_ name: String) -> Int64 { int64(column(named: name)) }
    public func optionalInt64(_ name: String) -> Int64? { optionalInt64(column(named: name)) }
    public func double(_ name: String) -> Double? { double(column(named: name)) }
    public func date(_ name: String) -> Date? { double(name).map(Date.init(timeIntervalSince1970:)) }
    public func data(_ name: String) -> Data? { data(column(named: name)) }
    public func bool(_ name: String) -> Bool { bool(column(named: name)) }
}

extension SQLTransaction {
    public var identityUnderLock: SQLAnswer? { nil }

    public func send(_ sql: String, _ values: [SQLValue]) throws {
        try run(sql, values) { _ in }
    }

    public func ask(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
        var rows: [SQLValuesRow] = []
        try run(sql, values) { row in rows.append(SQLValuesRow(row)) }
        return SQLAnswer { rows }
    }

    /// `send` with Swift values.
    public func send(_ sql: String, _ values: [any SQLBindable] = []) throws {
        try send(sql, values.map(\.sqlValue))
    }

    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ values: [any SQLBindable] = []) throws -> Int {
        try run(sql, values.map(\.sqlValue)) { _ in }
    }

    /// Every result row, each made into a value by `decode`.
    public func all<T>(_ sql: String, _ values: [any SQLBindable] = [], _ decode: (any SQLRow) throws -> T) throws -> [T] {
        var found: [T] = []
        try run(sql, values.map(\.sqlValue)) { found.append(try decode($0)) }
        return found
    }

    /// The first result row made into a value by `decode`, or nil when there is none.
    public func first<T>(_ sql: String, _ values: [any SQLBindable] = [], _ decode: (any SQLRow) throws -> T) throws -> T? {
        var found: T?
        try run(sql, values.map(\.sqlValue)) { row in
            if found == nil { found = try decode(row) }
        }
        return found
    }

    /// The first column of the first row as an integer; nil when there is no row or it holds NULL.
    public func int64(_ sql: String, _ values: [any SQLBindable] = []) throws -> Int64? {
        try first(sql, values) { $0.optionalInt64(0) } ?? nil
    }

    /// The first column of the first row as text; nil when there is no row or it holds NULL.
    public func string(_ sql: String, _ values: [any SQLBindable] = []) throws -> String? {
        try first(sql, values) { $0.optionalText(0) } ?? nil
    }

    /// The first column of every row, as text.
    public func strings(_ sql: String, _ values: [any SQLBindable] = []) throws -> [String] {
        try all(sql, values) { $0.text(0) }
    }

    /// Whether the statement returns a row whose first column is true (non-zero).
    public func exists(_ sql: String, _ values: [any SQLBindable] = []) throws -> Bool {
        try first(sql, values) { $0.bool(0) } ?? false
    }
}
