import Foundation

/// How long the cloud keeps what was: each record's earlier versions (its history) and deleted records
/// (the trash, restorable until then). Kept in the cloud file, so every process serving it agrees.
public struct Retention: Equatable, Sendable, Codable {
    /// Versions of a record kept, the current one included.
    public var historyVersions: Int
    /// Earlier versions saved longer ago than this go, however few are left.
    public var historyDays: Double
    /// A deleted record stays restorable this long.
    public var trashDays: Double

    public static let standard = Retention(historyVersions: 100, historyDays: 90, trashDays: 30)

    public init(historyVersions: Int, historyDays: Double, trashDays: Double) {
        self.historyVersions = historyVersions
        self.historyDays = historyDays
        self.trashDays = trashDays
    }

    static let secondsPerDay: TimeInterval = 86_400

    var trashAge: TimeInterval { trashDays * Self.secondsPerDay }
}
