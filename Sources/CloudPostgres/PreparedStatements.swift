import Cloud
import Foundation

/// The rules' statements as PostgreSQL prepares them: parsed and planned once per connection, not on every call.
///
/// A statement is made with SQL `PREPARE` and run with `EXECUTE name(values)`, its values written into the
/// `EXECUTE` as literals. That is because PostgreSQL does not pass an extended-protocol statement's parameters
/// into `EXECUTE`'s arguments ("there is no parameter $1"), and postgres-nio's own named statements take their
/// text from a static property, one Swift type per statement, and run only as `async`. A literal goes into the
/// parameter's declared type through that type's input function, which reads what it is given exactly:
/// integers as digits, doubles in their shortest round-trip spelling, text quoted with its quotes doubled (the
/// connection runs with `standard_conforming_strings`, so a backslash is only a backslash), bytes in hex.
/// The `EXECUTE` is parsed anew each time, but it is one short statement, not the query with its joins.
///
/// A statement is prepared for the types of the values it is given (integer, double, text, bytes; a null's
/// type is inferred), so the same text called with other types is another prepared statement, as the
/// unprepared statement's parameters were typed by its values.
final class StatementCache: @unchecked Sendable {
    /// A statement of the rules, prepared for one list of value types.
    struct Prepared {
        /// Its name on every connection that prepared it.
        let name: String
        /// What prepares it on a connection.
        let preparing: String
    }

    /// The most values a prepared statement takes.
    static let maxValues = 16

    private let lock = NSLock()
    private var translated: [String: String] = [:]
    private var prepared: [String: Prepared] = [:]

    /// The `$N` text of a statement the rules write with `?`s, translated once.
    func translated(_ sql: String) -> String {
        if let known = lock.withLock({ translated[sql] }) { return known }
        let text = Self.numbered(sql)
        lock.withLock { translated[sql] = text }
        return text
    }

    /// The prepared form of `sql` for these values; nil for a statement that is run as it is:
    /// - one `PREPARE` does not take (anything but a query or a change of rows);
    /// - one of more than `maxValues` values: a list (names `IN (…)`, a batch's rows) whose length varies, so
    ///   each length is a statement of its own, used rarely. Sending 10,000 posts took 35% longer with those
    ///   prepared too (BENCHMARKS.md, session 19);
    /// - one whose text holds U+0000, which a statement's text cannot carry (bound, PostgreSQL refuses it with a
    ///   clear error).
    func prepared(_ sql: String, _ values: [SQLValue]) -> Prepared? {
        guard values.count <= Self.maxValues, Self.isPreparable(sql), !values.contains(where: Self.holdsNull) else { return nil }
        let types = values.map(Self.typeName)
        let key = types.joined(separator: ",") + "\n" + sql
        if let known = lock.withLock({ prepared[key] }) { return known }
        let text = translated(sql)
        return lock.withLock {
            if let known = prepared[key] { return known }
            let name = "cn\(prepared.count + 1)"
            let statement = Prepared(name: name, preparing: "PREPARE \(name)" + (types.isEmpty ? "" : "(\(types.joined(separator: ", ")))")
                                     + " AS " + text)
            prepared[key] = statement
            return statement
        }
    }

    /// `EXECUTE name(literals)`: runs the prepared statement with these values.
    static func executing(_ name: String, _ values: [SQLValue]) -> String {
        guard !values.isEmpty else { return "EXECUTE " + name }
        var out = "EXECUTE " + name + "("
        for (i, value) in values.enumerated() {
            if i > 0 { out += ", " }
            literal(value, into: &out)
        }
        return out + ")"
    }

    /// `value` as an SQL literal its parameter's type reads exactly.
    static func literal(_ value: SQLValue, into out: inout String) {
        switch value {
        case .null:
            out += "NULL"
        case .integer(let v):
            out += String(v)
        case .real(let v):
            out += v.isNaN ? "'NaN'" : v.isInfinite ? (v < 0 ? "'-Infinity'" : "'Infinity'") : "'\(v)'"
        case .text(let v):
            // By bytes, not characters: a quote followed by a combining mark is one Character that is not "'",
            // but its quote byte still ends the literal.
            guard v.utf8.contains(UInt8(ascii: "'")) else {
                out += "'" + v + "'"
                return
            }
            var quoted = [UInt8]()
            quoted.reserveCapacity(v.utf8.count + 8)
            quoted.append(UInt8(ascii: "'"))
            for byte in v.utf8 {
                quoted.append(byte)
                if byte == UInt8(ascii: "'") { quoted.append(byte) }
            }
            quoted.append(UInt8(ascii: "'"))
            out += String(decoding: quoted, as: UTF8.self)
        case .blob(let v):
            let digits = Array("0123456789abcdef".utf8)
            var hex = [UInt8]()
            hex.reserveCapacity(v.count * 2 + 4)
            hex += Array("'\\x".utf8)
            for byte in v {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0xF)])
            }
            hex.append(UInt8(ascii: "'"))
            out += String(decoding: hex, as: UTF8.self)
        }
    }

    private static func typeName(_ value: SQLValue) -> String {
        switch value {
        case .null: "unknown"
        case .integer: "int8"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    private static func holdsNull(_ value: SQLValue) -> Bool {
        if case .text(let text) = value { return text.utf8.contains(0) }
        return false
    }

    /// What `PREPARE` takes: a query or a change of rows.
    static func isPreparable(_ sql: String) -> Bool {
        let start = sql.drop(while: { $0.isWhitespace }).prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES"].contains { start.hasPrefix($0) }
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
