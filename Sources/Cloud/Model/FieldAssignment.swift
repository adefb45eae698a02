import Foundation

/// One `KEY[:TYPE]=VALUE` assignment, the way `cloudnotes cloud save-record
/// --field` spells a field.
///
///     title=Groceries                 a string (the default type)
///     count:int=3   ratio:double=0.5  done:bool=true
///     due:date=2026-11-22T10:00:00Z   blob:bytes=aGVsbG8=
///     post:ref=p1   post:ref-delete-self=p1
///     tags:list=red,green            a list of strings
///     location:encrypted=c2VhbGVk     opaque encrypted bytes (base64)
public struct FieldAssignment: Equatable, Sendable {
    public enum Value: Equatable, Sendable {
        case plain(FieldValue)
        case encrypted(Data)
    }

    public static let types = ["string", "int", "double", "bool", "date", "bytes", "ref", "ref-delete-self", "list", "encrypted"]

    public var key: String
    public var value: Value

    public init(key: String, value: Value) {
        self.key = key
        self.value = value
    }

    public init(parsing text: String) throws(CloudError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw .invalidArguments("field \(text.inlineQuoted) is not KEY=VALUE or KEY:TYPE=VALUE")
        }
        let left = text[..<equals]
        let raw = String(text[text.index(after: equals)...])
        let parts = left.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        key = String(parts[0])
        try Self.validate(key: key)
        let type = parts.count == 2 ? String(parts[1]) : "string"
        value = try Self.value(type: type, raw: raw, key: key)
    }

    /// Field keys are identifiers: a letter, then letters, digits or '_'.
    public static func validate(key: String) throws(CloudError) {
        guard let first = key.unicodeScalars.first, CharacterSet.letters.contains(first), key.utf8.count <= 255,
              key.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") })
        else {
            throw .invalidArguments("field key \(key.prefix(40).inlineQuoted)\(key.count > 40 ? "…" : "") must start with a letter and hold "
                                    + "only ASCII letters, digits and '_', at most 255 of them")
        }
    }

    private static func value(type: String, raw: String, key: String) throws(CloudError) -> Value {
        func bad(_ what: String) -> CloudError { .invalidArguments("field \(key): \(raw.inlineQuoted) is not \(what)") }
        switch type {
        case "string": return .plain(.string(raw))
        case "int":
            guard let v = Int64(raw) else { throw bad("an integer") }
            return .plain(.int(v))
        case "double":
            guard let v = Double(raw), v.isFinite else { throw bad("a finite number") }
            return .plain(.double(v))
        case "bool":
            switch raw.lowercased() {
            case "true", "yes", "1": return .plain(.bool(true))
            case "false", "no", "0": return .plain(.bool(false))
            default: throw bad("true or false")
            }
        case "date":
            guard let v = ISO8601DateFormatter().date(from: raw) else { throw bad("an ISO 8601 date like 2026-11-22T10:00:00Z") }
            return .plain(.date(v))
        case "bytes", "encrypted":
            guard let v = Data(base64Encoded: raw) else { throw bad("base64") }
            return type == "bytes" ? .plain(.bytes(v)) : .encrypted(v)
        case "ref", "ref-delete-self":
            guard !raw.isEmpty else { throw bad("a record name") }
            return .plain(.reference(Reference(recordName: raw, action: type == "ref" ? .none : .deleteSelf)))
        case "list":
            return .plain(.list(raw.isEmpty ? [] : raw.split(separator: ",", omittingEmptySubsequences: false).map { .string(String($0)) }))
        default:
            throw .invalidArguments("field \(key): unknown type \(type.inlineQuoted) (known: \(types.joined(separator: ", ")))")
        }
    }

    /// Applies the assignment to a record, marking the key changed.
    public func apply(to record: inout Record) {
        switch value {
        case .plain(let v): record[key] = v
        case .encrypted(let data): record.setEncrypted(key, data)
        }
    }
}
