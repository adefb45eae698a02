import Foundation

/// A body, or a part of one, that reads itself from a `JSON` value and writes itself as one, by hand: the bodies a
/// sync moves in bulk. Its Codable conformance goes through the same value, so a body Codable reads (the rarer
/// operations') can hold one and there is one definition of its keys.
public protocol JSONConvertible: Codable {
    init(json: JSON) throws(WireFormatError)
    var json: JSON { get }
}

extension JSONConvertible {
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(json: JSON(from: decoder))
        } catch let error as WireFormatError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.why))
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

/// The protocol's bodies to and from bytes: by hand where the type reads and writes itself, else by Codable.
public enum WireJSON {
    public static func encode(_ value: some Encodable) throws -> Data {
        if let convertible = value as? any JSONConvertible { return try convertible.json.encoded() }
        return try encoder.encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let convertible = type as? any JSONConvertible.Type, let value = try convertible.init(json: JSON(parsing: data)) as? T { return value }
        return try JSONDecoder().decode(type, from: data)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

// MARK: Reading a body's keys

extension JSON {
    /// This value's members; `what` names it in the error when it is not an object.
    func object(_ what: @autoclosure () -> String) throws(WireFormatError) -> JSONObject {
        guard case .object(let object) = self else { throw WireFormatError("\(what()) is an object") }
        return object
    }
}

extension JSONObject {
    /// A member that is present and not null.
    private func present(_ key: String) -> JSON? {
        guard let value = self[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(WireFormatError) -> String? {
        guard let value = present(key) else { return nil }
        guard let string = value.string else { throw WireFormatError("\(key) is a string") }
        return string
    }

    func requiredString(_ key: String) throws(WireFormatError) -> String {
        guard let string = try string(key) else { throw WireFormatError("\(key) is required") }
        return string
    }

    func bool(_ key: String) throws(WireFormatError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let bool) = value else { throw WireFormatError("\(key) is true or false") }
        return bool
    }

    func int(_ key: String) throws(WireFormatError) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let int = value.int else { throw WireFormatError("\(key) is a whole number") }
        return int
    }

    func double(_ key: String) throws(WireFormatError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let double = value.double else { throw WireFormatError("\(key) is a number") }
        return double
    }

    func array(_ key: String) throws(WireFormatError) -> [JSON]? {
        guard let value = present(key) else { return nil }
        guard case .array(let items) = value else { throw WireFormatError("\(key) is an array") }
        return items
    }

    func strings(_ key: String) throws(WireFormatError) -> [String]? {
        try array(key)?.map { item throws(WireFormatError) in
            guard let string = item.string else { throw WireFormatError("each of \(key) is a string") }
            return string
        }
    }

    func value<T: JSONConvertible>(_ key: String, as: T.Type = T.self) throws(WireFormatError) -> T? {
        try present(key).map { value throws(WireFormatError) in try T(json: value) }
    }

    func values<T: JSONConvertible>(_ key: String, as: T.Type = T.self) throws(WireFormatError) -> [T]? {
        try array(key)?.map { item throws(WireFormatError) in try T(json: item) }
    }

    // MARK: Writing

    mutating func add(_ key: String, _ string: String?) { add(key, string.map(JSON.string)) }
    mutating func add(_ key: String, _ bool: Bool?) { add(key, bool.map(JSON.bool)) }
    mutating func add(_ key: String, _ int: Int64?) { add(key, int.map(JSON.int)) }
    mutating func add(_ key: String, _ double: Double?) { add(key, double.map(JSON.double)) }
    mutating func add(_ key: String, _ strings: [String]?) { add(key, strings.map { .array($0.map(JSON.string)) }) }
    mutating func add(_ key: String, _ value: (some JSONConvertible)?) { add(key, value?.json) }
    mutating func add(_ key: String, _ values: [some JSONConvertible]?) { add(key, values.map { .array($0.map(\.json)) }) }
}
