import Foundation

/// The compact binary form of records: the cloud's record bodies and a
/// device's copies of server records are written this way, because JSON
/// made every sync pay for text formatting and parsing at each layer.
///
/// The first byte names the form; JSON written by earlier versions starts
/// with `{` and is still read, so existing files need no migration.
///
///     let data = RecordArchive.encode(record)
///     let same = try RecordArchive.decode(data)
public enum RecordArchive {
    /// Data that is not an archive of the expected form (truncated, damaged, or from elsewhere).
    public struct Damaged: Error, CustomStringConvertible {
        public let description: String
    }

    private static let bodyForm: UInt8 = 1
    private static let recordForm: UInt8 = 2
    private static let jsonStart = UInt8(ascii: "{")

    /// A whole record: identity, type, parent, system fields, fields and the keys marked changed.
    public static func encode(_ record: Record) -> Data {
        var out = Writer(form: recordForm)
        out.string(record.id.name)
        out.string(record.id.zone.name)
        out.string(record.id.zone.owner)
        out.string(record.type)
        out.optional(record.parent) { $0.string($1) }
        out.optional(record.system) { out, system in
            out.string(system.changeTag)
            out.date(system.createdAt)
            out.string(system.createdBy)
            out.date(system.modifiedAt)
            out.string(system.modifiedBy)
        }
        out.fields(record.fields, record.encryptedFields)
        out.count(record.changedKeys.count)
        for key in record.changedKeys.sorted() { out.string(key) }
        return out.data
    }

    public static func decode(_ data: Data) throws(Damaged) -> Record {
        if data.first == jsonStart { return try json(Record.self, data) }
        var input = try Reader(data, form: recordForm)
        let id = RecordID(name: try input.string(), zone: ZoneID(name: try input.string(), owner: try input.string()))
        let type = try input.string()
        let parent = try input.optional { input throws(Damaged) in try input.string() }
        let system = try input.optional { input throws(Damaged) in
            SystemFields(changeTag: try input.string(), createdAt: try input.date(), createdBy: try input.string(),
                         modifiedAt: try input.date(), modifiedBy: try input.string())
        }
        let (fields, encrypted) = try input.fields()
        var record = Record(id: id, type: type, fields: fields, encryptedFields: encrypted, parent: parent, system: system)
        for _ in 0..<(try input.count()) { record.markChanged(try input.string()) }
        try input.end()
        return record
    }

    /// A record's plain and encrypted fields: what the cloud keeps in one column.
    static func encodeBody(_ record: Record) -> Data {
        var out = Writer(form: bodyForm)
        out.fields(record.fields, record.encryptedFields)
        return out.data
    }

    static func decodeBody(_ data: Data) throws(Damaged) -> (fields: [String: FieldValue], encrypted: [String: Data]) {
        if data.first == jsonStart {
            let body = try json(JSONBody.self, data)
            return (body.fields, body.encrypted ?? [:])
        }
        var input = try Reader(data, form: bodyForm)
        let body = try input.fields()
        try input.end()
        return body
    }

    /// The body as earlier versions wrote it.
    private struct JSONBody: Decodable {
        var fields: [String: FieldValue]
        var encrypted: [String: Data]?
    }

    private static func json<T: Decodable>(_ type: T.Type, _ data: Data) throws(Damaged) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch { throw Damaged(description: "damaged record: \(error)") }
    }
}

// MARK: Writing and reading

/// Field value tags; never renumber, archives on disk hold them.
private enum Tag: UInt8 {
    case string = 1, int, double, bool, date, bytes, reference, referenceDeleteSelf, list
}

private struct Writer {
    private(set) var bytes: [UInt8] = []

    init(form: UInt8) {
        bytes.reserveCapacity(256)
        bytes.append(form)
    }

    var data: Data { Data(bytes) }

    /// Unsigned LEB128: small counts and lengths take one byte.
    mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func fixed(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func data(_ value: Data) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func date(_ value: Date) { fixed(value.timeIntervalSinceReferenceDate.bitPattern) }

    mutating func optional<T>(_ value: T?, _ write: (inout Writer, T) -> Void) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        write(&self, value)
    }

    mutating func value(_ field: FieldValue) {
        switch field {
        case .string(let v): tag(.string); string(v)
        case .int(let v): tag(.int); fixed(UInt64(bitPattern: v))
        case .double(let v): tag(.double); fixed(v.bitPattern)
        case .bool(let v): tag(.bool); bytes.append(v ? 1 : 0)
        case .date(let v): tag(.date); date(v)
        case .bytes(let v): tag(.bytes); data(v)
        case .reference(let v): tag(v.action == .deleteSelf ? .referenceDeleteSelf : .reference); string(v.recordName)
        case .list(let v):
            tag(.list)
            count(v.count)
            for item in v { value(item) }
        }
    }

    /// Keys in order, so equal records archive to equal bytes.
    mutating func fields(_ fields: [String: FieldValue], _ encrypted: [String: Data]) {
        count(fields.count)
        for key in fields.keys.sorted() {
            string(key)
            value(fields[key]!)
        }
        count(encrypted.count)
        for key in encrypted.keys.sorted() {
            string(key)
            data(encrypted[key]!)
        }
    }

    private mutating func tag(_ tag: Tag) { bytes.append(tag.rawValue) }
}

private struct Reader {
    private let bytes: [UInt8]
    private var at = 1

    init(_ data: Data, form: UInt8) throws(RecordArchive.Damaged) {
        bytes = [UInt8](data)
        guard bytes.first == form else { throw RecordArchive.Damaged(description: "not a record archive of form \(form)") }
    }

    func end() throws(RecordArchive.Damaged) {
        guard at == bytes.count else { throw damaged("\(bytes.count - at) bytes after the record") }
    }

    mutating func byte() throws(RecordArchive.Damaged) -> UInt8 {
        guard at < bytes.count else { throw damaged("the record ends early") }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func count() throws(RecordArchive.Damaged) -> Int {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            let next = try byte()
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 {
                // No count can exceed what is left to read; this also keeps loops over counts short.
                guard value <= UInt64(bytes.count - at) else { throw damaged("a count of \(value) runs past the end") }
                return Int(value)
            }
        }
        throw damaged("a count is too long")
    }

    mutating func fixed() throws(RecordArchive.Damaged) -> UInt64 {
        guard bytes.count - at >= 8 else { throw damaged("the record ends early") }
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[at + i]) }
        at += 8
        return value
    }

    private mutating func slice() throws(RecordArchive.Damaged) -> ArraySlice<UInt8> {
        let length = try count()
        defer { at += length }
        return bytes[at..<at + length]
    }

    mutating func string() throws(RecordArchive.Damaged) -> String {
        guard let text = String(validating: try slice(), as: UTF8.self) else { throw damaged("a string is not UTF-8") }
        return text
    }

    mutating func data() throws(RecordArchive.Damaged) -> Data { Data(try slice()) }

    mutating func date() throws(RecordArchive.Damaged) -> Date {
        Date(timeIntervalSinceReferenceDate: try finite())
    }

    /// A double; NaN and infinities are never written, so one read means damage.
    mutating func finite() throws(RecordArchive.Damaged) -> Double {
        let value = Double(bitPattern: try fixed())
        guard value.isFinite else { throw damaged("a number is not finite") }
        return value
    }

    mutating func optional<T>(_ read: (inout Reader) throws(RecordArchive.Damaged) -> T) throws(RecordArchive.Damaged) -> T? {
        switch try byte() {
        case 0: return nil
        case 1: return try read(&self)
        case let other: throw damaged("optional marker \(other)")
        }
    }

    mutating func value(depth: Int = 0) throws(RecordArchive.Damaged) -> FieldValue {
        guard depth < 32 else { throw damaged("lists nested too deeply") }
        let raw = try byte()
        guard let tag = Tag(rawValue: raw) else { throw damaged("unknown field type \(raw)") }
        switch tag {
        case .string: return .string(try string())
        case .int: return .int(Int64(bitPattern: try fixed()))
        case .double: return .double(try finite())
        case .bool:
            switch try byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            case let other: throw damaged("bool \(other)")
            }
        case .date: return .date(try date())
        case .bytes: return .bytes(try data())
        case .reference: return .reference(Reference(recordName: try string()))
        case .referenceDeleteSelf: return .reference(Reference(recordName: try string(), action: .deleteSelf))
        case .list:
            var items: [FieldValue] = []
            for _ in 0..<(try count()) { items.append(try value(depth: depth + 1)) }
            return .list(items)
        }
    }

    mutating func fields() throws(RecordArchive.Damaged) -> ([String: FieldValue], [String: Data]) {
        var fields: [String: FieldValue] = [:]
        for _ in 0..<(try count()) {
            let key = try string()
            fields[key] = try value()
        }
        var encrypted: [String: Data] = [:]
        for _ in 0..<(try count()) {
            let key = try string()
            encrypted[key] = try data()
        }
        return (fields, encrypted)
    }

    private func damaged(_ what: String) -> RecordArchive.Damaged {
        RecordArchive.Damaged(description: "damaged record: \(what) (at byte \(at))")
    }
}
