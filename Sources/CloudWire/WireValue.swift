import Cloud
import Foundation

/// A field's value as CloudKit Web Services writes it: `{"value": …, "type": "STRING"}`.
///
/// Apple's types carry CloudNotes' values one to one: STRING, INT64,
/// DOUBLE, TIMESTAMP (milliseconds since 1970, fractions kept), BYTES
/// (base64), REFERENCE (`{recordName, action}`, action NONE or DELETE_SELF)
/// and the `_LIST` form of each for a list whose items share one type.
/// Three are ours, as Apple has none: BOOLEAN, LIST (items of mixed types,
/// each a `{value, type}`) and ENCRYPTED_BYTES (a value the client sealed;
/// the cloud keeps it opaque).
public enum WireValue: Hashable, Sendable {
    case plain(FieldValue)
    case encrypted(Data)
}

extension WireValue: JSONConvertible {
    public init(json: JSON) throws(WireFormatError) {
        let object = try json.object("a field's value")
        guard let value = object["value"], value != .null else { throw WireFormatError("a field needs a value") }
        self = try Self.decode(value, type: object.string("type") ?? Self.inferredType(of: value))
    }

    public var json: JSON {
        let (value, type) = Self.encode(self)
        return .object(["value": value, "type": .string(type)])
    }

    static func decode(_ value: JSON, type: String) throws(WireFormatError) -> WireValue {
        if type == "ENCRYPTED_BYTES" { return .encrypted(try bytes(value)) }
        if type == "LIST" {
            guard case .array(let items) = value else { throw WireFormatError("a LIST value is an array") }
            return .plain(.list(try items.map { item throws(WireFormatError) in
                guard let itemType = item["type"]?.string, let itemValue = item["value"],
                      case .plain(let plain) = try decode(itemValue, type: itemType) else {
                    throw WireFormatError("each item of a LIST is a {value, type} of a plain type")
                }
                return plain
            }))
        }
        if type.hasSuffix("_LIST") {
            guard case .array(let items) = value else { throw WireFormatError("a \(type) value is an array") }
            let itemType = String(type.dropLast("_LIST".count))
            return .plain(.list(try items.map { item throws(WireFormatError) in try scalar(item, type: itemType) }))
        }
        return .plain(try scalar(value, type: type))
    }

    static func encode(_ wire: WireValue) -> (value: JSON, type: String) {
        switch wire {
        case .encrypted(let data):
            return (.string(data.base64EncodedString()), "ENCRYPTED_BYTES")
        case .plain(.list(let items)):
            let types = Set(items.map(typeName))
            if items.isEmpty { return (.array([]), "STRING_LIST") }
            if let type = types.first, types.count == 1, type != "LIST" { return (.array(items.map(scalar)), type + "_LIST") }
            return (.array(items.map { item in
                let (value, type) = encode(.plain(item))
                return .object(["value": value, "type": .string(type)])
            }), "LIST")
        case .plain(let value):
            return (scalar(value), typeName(value))
        }
    }

    /// The type of a value written without one (Apple makes `type` optional): its JSON's.
    static func inferredType(of value: JSON) -> String {
        switch value {
        case .int: "INT64"
        case .double: "DOUBLE"
        case .bool: "BOOLEAN"
        case .object: "REFERENCE"
        case .array(let items): items.first.map { inferredType(of: $0) + "_LIST" } ?? "STRING_LIST"
        case .string, .null: "STRING"
        }
    }

    /// Apple's name for a value's type.
    static func typeName(_ value: FieldValue) -> String {
        switch value {
        case .string: "STRING"
        case .int: "INT64"
        case .double: "DOUBLE"
        case .bool: "BOOLEAN"
        case .date: "TIMESTAMP"
        case .bytes: "BYTES"
        case .reference: "REFERENCE"
        case .list: "LIST"
        }
    }

    private static func scalar(_ value: FieldValue) -> JSON {
        switch value {
        case .string(let v): .string(v)
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .bool(let v): .bool(v)
        // (Within what the cloud now takes; an older cloud may hold one past it, which is written at the edge of that
        // range rather than failing every read of its zone.)
        case .date(let v): .double(min(max(v.timeIntervalSince1970, -FieldValue.maxDateSeconds), FieldValue.maxDateSeconds) * 1000)
        case .bytes(let v): .string(v.base64EncodedString())
        case .reference(let r): .object(["recordName": .string(r.recordName), "action": .string(r.action == .deleteSelf ? "DELETE_SELF" : "NONE")])
        case .list(let items): encode(.plain(.list(items))).value
        }
    }

    private static func scalar(_ value: JSON, type: String) throws(WireFormatError) -> FieldValue {
        switch (type, value) {
        case ("STRING", .string(let s)): return .string(s)
        case ("INT64", _) where value.int != nil: return .int(value.int!)  // 12, or 12.0 as some writers put it
        case ("INT64", .string(let s)) where Int64(s) != nil: return .int(Int64(s)!)  // numbersAsStrings
        case ("DOUBLE", _) where value.double != nil: return .double(value.double!)
        case ("BOOLEAN", .bool(let b)): return .bool(b)
        case ("TIMESTAMP", _) where value.double != nil: return .date(Date(timeIntervalSince1970: value.double! / 1000))
        case ("BYTES", _): return .bytes(try bytes(value))
        case ("REFERENCE", _):
            guard let name = value["recordName"]?.string else { throw WireFormatError("a REFERENCE names its recordName") }
            return .reference(Reference(recordName: name, action: value["action"]?.string == "DELETE_SELF" ? .deleteSelf : .none))
        default:
            throw WireFormatError("\(type) cannot hold \(value)")
        }
    }

    private static func bytes(_ value: JSON) throws(WireFormatError) -> Data {
        guard let text = value.string, let data = Data(base64Encoded: text) else { throw WireFormatError("bytes are written in base64") }
        return data
    }
}

/// A body that does not follow the protocol; the server answers BAD_REQUEST with `why`.
public struct WireFormatError: Error, Equatable, Sendable {
    public let why: String
    public init(_ why: String) { self.why = why }
}
