import Foundation

/// A reference from one record to another in the same zone.
public struct Reference: Hashable, Codable, Sendable {
    /// What happens to the referring record when the target is deleted.
    public enum Action: String, Codable, Sendable {
        case none
        /// The referring record is deleted with its target (CloudKit's `.deleteSelf`).
        case deleteSelf
    }

    public var recordName: String
    public var action: Action

    public init(recordName: String, action: Action = .none) {
        self.recordName = recordName
        self.action = action
    }
}

/// A typed value of a record field.
public indirect enum FieldValue: Hashable, Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case bytes(Data)
    case reference(Reference)
    case list([FieldValue])

    /// False for a number that is NaN or infinite, or a date further than `maxDateSeconds` from 1970, at any depth:
    /// no field may hold one (the cloud refuses it; a stored one could not be written on the wire, in milliseconds,
    /// and every read of its zone would fail).
    public var isFinite: Bool {
        switch self {
        case .double(let v): v.isFinite
        case .date(let v): v.timeIntervalSince1970.magnitude <= Self.maxDateSeconds
        case .list(let v): v.allSatisfy(\.isFinite)
        case .string, .int, .bool, .bytes, .reference: true
        }
    }

    /// The furthest a date may lie from 1970, either way: 100 million days, as JavaScript's `Date` (whose clients
    /// read these dates in milliseconds).
    public static let maxDateSeconds: TimeInterval = 8.64e12

    /// How deep lists nest in the value: 0 for a plain value, 1 for a list of plain values.
    public var listDepth: Int {
        guard case .list(let values) = self else { return 0 }
        return 1 + (values.lazy.map(\.listDepth).max() ?? 0)
    }

    /// The deepest lists a saved field may hold. CloudKit takes no list inside a list; the cloud takes a few, and
    /// every reader of the cloud's records (`ArchiveReader.maxListDepth`) takes far more, so anything saved reads back.
    public static let maxListDepth = 8

    /// The references the value holds, at any depth.
    public var references: [Reference] {
        switch self {
        case .reference(let reference): [reference]
        case .list(let values): values.flatMap(\.references)
        case .string, .int, .double, .bool, .date, .bytes: []
        }
    }

    /// The type's name as the command line and JSON spell it.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .date: "date"
        case .bytes: "bytes"
        case .reference(let ref): ref.action == .deleteSelf ? "ref-delete-self" : "ref"
        case .list: "list"
        }
    }
}

extension FieldValue: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "string": self = .string(try c.decode(String.self, forKey: .value))
        case "int": self = .int(try c.decode(Int64.self, forKey: .value))
        case "double": self = .double(try c.decode(Double.self, forKey: .value))
        case "bool": self = .bool(try c.decode(Bool.self, forKey: .value))
        case "date": self = .date(Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .value)))
        case "bytes": self = .bytes(try c.decode(Data.self, forKey: .value))
        case "ref": self = .reference(Reference(recordName: try c.decode(String.self, forKey: .value)))
        case "ref-delete-self":
            self = .reference(Reference(recordName: try c.decode(String.self, forKey: .value), action: .deleteSelf))
        case "list": self = .list(try c.decode([FieldValue].self, forKey: .value))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown field type '\(type)'")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(typeName, forKey: .type)
        switch self {
        case .string(let v): try c.encode(v, forKey: .value)
        case .int(let v): try c.encode(v, forKey: .value)
        case .double(let v): try c.encode(v, forKey: .value)
        case .bool(let v): try c.encode(v, forKey: .value)
        case .date(let v): try c.encode(v.timeIntervalSince1970, forKey: .value)
        case .bytes(let v): try c.encode(v, forKey: .value)
        case .reference(let v): try c.encode(v.recordName, forKey: .value)
        case .list(let v): try c.encode(v, forKey: .value)
        }
    }
}
