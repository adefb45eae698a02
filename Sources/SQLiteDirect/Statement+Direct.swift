import Foundation
import GRDB
import GRDBSQLite

/// Runs a prepared GRDB statement with its values bound, and its result
/// rows read, straight through SQLite's C API.
///
/// GRDB boxes every argument into a `DatabaseValue` inside a
/// `StatementArguments`, and copies every result row into a `Row`: on the
/// statements a sync runs for every record (a hundred rows of ten values
/// each, tens of thousands of times), that cost more than SQLite's own
/// work. Use this for those few statements; everything else goes through
/// GRDB as usual. The statement runs inside GRDB's transaction and
/// connection (busy timeout included); no GRDB observer sees it, and the
/// store registers none.
extension Statement {
    /// Binds values with `bind`, steps through the result, calling `row` for each result row, and resets.
    public func run(binding bind: (inout StatementBinder) -> Void, row: (ResultRow) throws -> Void = { _ in }) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var binder = StatementBinder(handle: handle)
        bind(&binder)
        precondition(binder.count == Int(sqlite3_bind_parameter_count(handle)), "\(binder.count) values bound for: \(sql)")
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try row(ResultRow(handle: handle))
            case SQLITE_DONE: return
            case let code:
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
            }
        }
    }
}

/// Binds a statement's values in order, from its first parameter.
public struct StatementBinder {
    fileprivate let handle: SQLiteStatement
    /// How many values are bound so far.
    public private(set) var count = 0

    /// SQLite copies the bytes before the call returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// A valid address for zero bytes: a null pointer would bind NULL, not "" or an empty blob.
    private static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

    private mutating func next() -> Int32 {
        count += 1
        return Int32(count)
    }

    public mutating func add(_ value: String) {
        var text = value
        let index = next()
        text.withUTF8 { bytes in
            let start = UnsafeRawPointer(bytes.baseAddress) ?? Self.empty
            _ = sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
    }

    public mutating func add(_ value: String?) {
        if let value { add(value) } else { _ = sqlite3_bind_null(handle, next()) }
    }

    public mutating func add(_ value: Double?) {
        let index = next()
        if let value { _ = sqlite3_bind_double(handle, index, value) } else { _ = sqlite3_bind_null(handle, index) }
    }

    public mutating func add(_ value: Int64) {
        _ = sqlite3_bind_int64(handle, next(), value)
    }

    public mutating func add(_ value: Bool) {
        add(Int64(value ? 1 : 0))
    }

    public mutating func add(_ value: Data?) {
        let index = next()
        guard let value else { _ = sqlite3_bind_null(handle, index); return }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? Self.empty, Int32(bytes.count), Self.transient)
        }
    }
}

/// A result row's values by column position, whether read through GRDB (`Row`) or directly (`ResultRow`),
/// so a type is read from either by one function.
public protocol ColumnValues {
    func text(_ column: Int) -> String
    func optionalText(_ column: Int) -> String?
    func double(_ column: Int) -> Double?
    func int64(_ column: Int) -> Int64
    func bool(_ column: Int) -> Bool
    func data(_ column: Int) -> Data?
}

extension Row: ColumnValues {
    public func text(_ column: Int) -> String { self[column] ?? "" }
    public func optionalText(_ column: Int) -> String? { self[column] }
    public func double(_ column: Int) -> Double? { self[column] }
    public func int64(_ column: Int) -> Int64 { self[column] ?? 0 }
    public func bool(_ column: Int) -> Bool { self[column] ?? false }
    public func data(_ column: Int) -> Data? { self[column] }
}

/// The current result row of a statement run with `run(binding:row:)`; valid only inside that call.
public struct ResultRow: ColumnValues {
    fileprivate let handle: SQLiteStatement

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    /// The column as text; NULL reads as "".
    public func text(_ column: Int) -> String {
        guard let bytes = sqlite3_column_text(handle, Int32(column)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    public func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }

    public func double(_ column: Int) -> Double? { isNull(column) ? nil : sqlite3_column_double(handle, Int32(column)) }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }

    public func bool(_ column: Int) -> Bool { int64(column) != 0 }

    public func data(_ column: Int) -> Data? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard count > 0, let bytes = sqlite3_column_blob(handle, Int32(column)) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// What the column holds in this row (SQLite's storage class).
    public enum Kind { case null, integer, real, text, blob }

    public func kind(_ column: Int) -> Kind {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The position of the result column named `name` (a statement's own names are a programmer's choice,
    /// so a missing one stops the process rather than read the wrong column).
    public func column(named name: String) -> Int {
        for column in 0..<Int(sqlite3_column_count(handle)) where String(cString: sqlite3_column_name(handle, Int32(column))) == name {
            return column
        }
        preconditionFailure("no column \(name) in: \(String(cString: sqlite3_sql(handle)))")
    }
}
