import Foundation

extension Share {
    /// Field keys of a share's record.
    enum Key {
        static let title = "title", type = "type", publicPermission = "publicPermission"
        static let rootRecord = "rootRecord", participants = "participants"
    }

    /// Reads a share from its record, as fetched in zone changes.
    public init(record: Record) throws(CloudError) {
        guard record.type == Self.recordType else {
            throw .invalidArguments("record \(record.id.name) is a \(record.type), not a share")
        }
        guard case .string(let title)? = record[Key.title],
              case .string(let permission)? = record[Key.publicPermission],
              let publicPermission = SharePermission(rawValue: permission),
              case .bytes(let encoded)? = record[Key.participants],
              let participants = try? JSONDecoder().decode([ShareParticipant].self, from: encoded)
        else {
            throw .invalidArguments("record \(record.id.name) is not a well-formed share")
        }
        id = record.id
        self.title = title
        if case .string(let type)? = record[Key.type] { self.type = type } else { type = nil }
        if case .string(let root)? = record[Key.rootRecord] { rootRecord = root } else { rootRecord = nil }
        self.publicPermission = publicPermission
        self.participants = participants
        changeTag = record.changeTag
    }

    /// The record the cloud keeps for this share.
    func record() -> Record {
        var record = Record(type: Self.recordType, id: id)
        record[Key.title] = .string(title)
        if let type { record[Key.type] = .string(type) }
        if let rootRecord { record[Key.rootRecord] = .string(rootRecord) }
        record[Key.publicPermission] = .string(publicPermission.rawValue)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // (Strings and enumerations: encoding cannot fail.)
        record[Key.participants] = .bytes((try? encoder.encode(participants)) ?? Data())
        return record
    }
}
