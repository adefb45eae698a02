import Foundation

/// One version of a record as the cloud kept it, numbered from 1 for the oldest it ever had.
public struct RecordVersion: Equatable, Sendable {
    public var number: Int
    /// The record as that save left it, its system fields saying who saved it and when.
    public var record: Record

    public init(number: Int, record: Record) {
        self.number = number
        self.record = record
    }
}

/// A record deleted less than the trash's time ago, with what it held last.
public struct DeletedRecord: Equatable, Sendable {
    public var last: RecordVersion
    public var deletedAt: Date
    public var deletedBy: String

    public init(last: RecordVersion, deletedAt: Date, deletedBy: String) {
        self.last = last
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
    }
}
