/// How a save treats the server's copy of a record (CloudKit's `CKModifyRecordsOperation.RecordSavePolicy`).
public enum SavePolicy: String, Codable, Sendable, CaseIterable {
    /// Saves the changed keys only if the record's change tag is the server's;
    /// else *server record changed*, with the server's record.
    case ifServerRecordUnchanged
    /// Saves the changed keys over the server's record, whatever its tag.
    case changedKeys
    /// Replaces every key of the server's record, whatever its tag.
    case allKeys
}

/// What happened to each record of a modify request.
public struct ModifyResult: Sendable {
    public var saveResults: [RecordID: Result<Record, CloudError>] = [:]
    public var deleteResults: [RecordID: Result<Void, CloudError>] = [:]
    /// The commit as this database saw it; nil when nothing in it changed.
    public var commit: Commit?

    public init() {}

    /// Every item that failed, with its error.
    public var failures: [ItemID: CloudError] {
        var errors: [ItemID: CloudError] = [:]
        for (id, result) in saveResults { if case .failure(let e) = result { errors[.record(id)] = e } }
        for (id, result) in deleteResults { if case .failure(let e) = result { errors[.record(id)] = e } }
        return errors
    }

    /// Takes in the results of another part of the same request.
    public mutating func merge(_ other: ModifyResult) {
        // Assigned whole when empty: a merge into an empty dictionary still rehashes every entry.
        if saveResults.isEmpty { saveResults = other.saveResults } else { saveResults.merge(other.saveResults) { $1 } }
        if deleteResults.isEmpty { deleteResults = other.deleteResults } else { deleteResults.merge(other.deleteResults) { $1 } }
    }

    /// Throws a partial failure naming every item that failed.
    public func throwIfFailed() throws(CloudError) {
        let errors = failures
        if !errors.isEmpty { throw .partialFailure(errors) }
    }
}
