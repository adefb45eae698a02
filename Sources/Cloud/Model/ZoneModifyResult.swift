/// What happened to each zone of a zone modify request.
public struct ZoneModifyResult: Sendable {
    public var saveResults: [ZoneID: Result<ZoneID, CloudError>] = [:]
    public var deleteResults: [ZoneID: Result<ZoneDeletionReason, CloudError>] = [:]
    /// The commit as this database saw it; nil when nothing in it changed.
    public var commit: Commit?

    public init() {}

    /// Throws a partial failure naming every zone that failed.
    public func throwIfFailed() throws(CloudError) {
        var errors: [ItemID: CloudError] = [:]
        for (id, result) in saveResults { if case .failure(let e) = result { errors[.zone(id)] = e } }
        for (id, result) in deleteResults { if case .failure(let e) = result { errors[.zone(id)] = e } }
        if !errors.isEmpty { throw .partialFailure(errors) }
    }
}
