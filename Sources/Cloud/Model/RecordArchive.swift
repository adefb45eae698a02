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
    private static let bodyForm: UInt8 = 1
    private static let recordForm: UInt8 = 2
    private static let jsonStart = UInt8(ascii: "{")

    /// A whole record: identity, type, parent, system fields, fields and the keys marked changed.
    public static func encode(_ record: Record) -> Data {
        var out = ArchiveWriter(form: recordForm)
        out.string(record.id.name)
        out.zone(record.id.zone)
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

    public static func decode(_ data: Data) throws(ArchiveDamaged) -> Record {
        if data.first == jsonStart { return try json(Record.self, data) }
        var input = try ArchiveReader(data, form: recordForm, what: "record")
        let id = RecordID(name: try input.string(), zone: try input.zone())
        let type = try input.string()
        let parent = try input.optional { input throws(ArchiveDamaged) in try input.string() }
        let system = try input.optional { input throws(ArchiveDamaged) in
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
        var out = ArchiveWriter(form: bodyForm)
        out.fields(record.fields, record.encryptedFields)
        return out.data
    }

    static func decodeBody(_ data: Data) throws(ArchiveDamaged) -> (fields: [String: FieldValue], encrypted: [String: Data]) {
        if data.first == jsonStart {
            let body = try json(JSONBody.self, data)
            return (body.fields, body.encrypted ?? [:])
        }
        var input = try ArchiveReader(data, form: bodyForm, what: "record")
        let body = try input.fields()
        try input.end()
        return body
    }

    /// The body as earlier versions wrote it.
    private struct JSONBody: Decodable {
        var fields: [String: FieldValue]
        var encrypted: [String: Data]?
    }

    private static func json<T: Decodable>(_ type: T.Type, _ data: Data) throws(ArchiveDamaged) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch { throw ArchiveDamaged(description: "damaged record: \(error)") }
    }
}

// MARK: Field values

/// Field value tags; never renumber, archives on disk hold them.
private enum Tag: UInt8 {
    case string = 1, int, double, bool, date, bytes, reference, referenceDeleteSelf, list
}

extension ArchiveWriter {
    mutating func value(_ field: FieldValue) {
        switch field {
        case .string(let v): tag(.string); string(v)
        case .int(let v): tag(.int); fixed(UInt64(bitPattern: v))
        case .double(let v): tag(.double); fixed(v.bitPattern)
        case .bool(let v): tag(.bool); byte(v ? 1 : 0)
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
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            string(key)
            value(field)
        }
        count(encrypted.count)
        for (key, bytes) in encrypted.sorted(by: { $0.key < $1.key }) {
            string(key)
            data(bytes)
        }
    }

    private mutating func tag(_ tag: Tag) { byte(tag.rawValue) }
}

extension ArchiveReader {
    /// Lists deeper than a save may hold (`FieldValue.maxListDepth`) still read, up to what the wire's JSON reader
    /// could ever have let in: a record an earlier version took stays readable, fetched, dumped and deleted.
    static let maxListDepth = 128

    mutating func value(depth: Int = 0) throws(ArchiveDamaged) -> FieldValue {
        guard depth <= Self.maxListDepth else { throw damaged("lists nested too deeply") }
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

    mutating func fields() throws(ArchiveDamaged) -> ([String: FieldValue], [String: Data]) {
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
}
