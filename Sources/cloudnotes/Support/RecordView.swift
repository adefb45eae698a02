import Cloud
import Foundation
import Notes

/// A record as the command line shows it, in text or as JSON.
struct RecordView: Encodable {
    struct Stamp: Encodable {
        var at: Date
        var by: String
    }

    var recordName: String
    var recordType: String
    var zone: String
    var owner: String
    var changeTag: String?
    var created: Stamp?
    var modified: Stamp?
    var parent: String?
    var fields: [String: FieldValue]
    /// Sealed by the client; shown only as the bytes the cloud holds.
    var encryptedFields: [String: Data]

    init(_ record: Record, names: AccountNames) {
        recordName = record.id.name
        recordType = record.type
        zone = record.id.zone.name
        owner = names(record.id.zone.owner)
        changeTag = record.changeTag
        created = record.system.map { Stamp(at: $0.createdAt, by: names($0.createdBy)) }
        modified = record.system.map { Stamp(at: $0.modifiedAt, by: names($0.modifiedBy)) }
        parent = record.parent
        fields = record.fields
        encryptedFields = record.encryptedFields
    }

    func printText() {
        Output.line("\(recordName)  \(recordType)  zone \(zone)  owner \(owner)")
        var rows: [[String]] = []
        if let changeTag { rows.append(["  change tag", "", changeTag]) }
        if let created { rows.append(["  created", "", "\(Output.date(created.at)) by \(created.by)"]) }
        if let modified { rows.append(["  modified", "", "\(Output.date(modified.at)) by \(modified.by)"]) }
        if let parent { rows.append(["  parent", "", parent]) }
        for key in fields.keys.sorted() {
            rows.append(["  " + key, fields[key]!.typeName, Self.text(fields[key]!)])
        }
        for key in encryptedFields.keys.sorted() {
            rows.append(["  " + key, "encrypted", "\(encryptedFields[key]!.count) bytes"])
        }
        Output.table(rows)
    }

    static func text(_ value: FieldValue) -> String {
        switch value {
        case .string(let s): s.debugDescription
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): String(b)
        case .date(let d): Output.date(d)
        case .bytes(let data): data.base64EncodedString()
        case .reference(let ref): ref.recordName
        case .list(let items): "[" + items.map(text).joined(separator: ", ") + "]"
        }
    }
}
