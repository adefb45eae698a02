/// Why a zone went away; clients react differently to each (CloudKit's
/// `CKSyncEngine.Event.FetchedDatabaseChanges.Deletion.Reason`).
public enum ZoneDeletionReason: String, Codable, Sendable, CaseIterable {
    /// The owner deleted it: drop the local copy.
    case deleted
    /// The owner purged it, deleting it from every device for good.
    case purged
    /// The owner reset their encrypted data: re-upload what is kept locally.
    case encryptedDataReset
}
