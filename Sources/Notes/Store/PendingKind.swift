import Cloud
import Sync

/// What waits to be sent for a row of a store's `pending` table. The table
/// keeps the raw value; a value this version does not know (written by a
/// newer one, or damaged) is an error that keeps the row, never a guess.
enum PendingKind: String, Sendable {
    case saveRecord, deleteRecord, saveZone, deleteZone

    /// The kind a row holds, or `StoreError.unknownPendingKind`.
    init(stored: String, for id: RecordID) throws {
        guard let kind = PendingKind(rawValue: stored) else { throw StoreError.unknownPendingKind(stored, id) }
        self = kind
    }
}
