import Foundation

/// Any JSON value. The bodies a sync moves in bulk (records, their fields, the answers that carry them) are read
/// and written through it by hand (`JSONConvertible`): Codable's generic machinery cost four times the rest of a
/// sync through the server.
public enum JSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    /// A member of an object; nil when this is not an object or has no such member.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }

    /// A number, whichever way it was written.
    public var double: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// A whole number, written as one or as a double with nothing after the point.
    public var int: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }
}

/// An object's members in the order they were written (or built). A key written twice counts as written last, as
/// other JSON readers take it.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSON
    }

    public private(set) var members: [Member] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, JSON)...) {
        members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> JSON? {
        get { members.last { $0.key == key }?.value }
    }

    /// Adds a member; nothing when `value` is nil (an optional key left out).
    public mutating func add(_ key: String, _ value: JSON?) {
        if let value { members.append(Member(key: key, value: value)) }
    }

    mutating func append(_ key: String, _ value: JSON) { members.append(Member(key: key, value: value)) }
}

extension JSON: Codable {
    /// For a value inside a body Codable reads (the rare operations'): its kind found by trying each.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSON].self) {
            self = .array(a)
        } else {
            var object = JSONObject()
            for (key, value) in try c.decode([String: JSON].self).sorted(by: { $0.key < $1.key }) { object.append(key, value) }
            self = .object(object)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(Dictionary(o.members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }))
        }
    }
}
