/// The server's limits, as CloudKit has them; tests shrink them.
public struct CloudLimits: Sendable, Equatable {
    /// Records and deletions in one modify request.
    public var maxItemsPerRequest = 400
    /// Encoded size of everything saved in one modify request.
    public var maxRequestBytes = 2 * 1024 * 1024
    /// Encoded size of one record.
    public var maxRecordBytes = 1024 * 1024
    /// Changes returned in one batch of a change fetch.
    public var fetchBatchSize = 400
    /// Participants on one share.
    public var maxParticipants = 100

    public init() {}
}
