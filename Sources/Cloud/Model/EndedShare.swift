import Foundation

/// How a participant's part in a share ended, told to that participant only (they took part; nothing of
/// anyone else's is revealed), so their devices can say in words why posts went away.
public struct EndedShare: Equatable, Codable, Sendable {
    public enum Reason: String, Codable, Sendable {
        /// The owner (or an administrator) took the participant off the share.
        case removed
        /// The owner stopped sharing.
        case ended
        /// The owner deleted what was shared (the post, or the whole notebook), and the share with it.
        case deleted
        /// The participant left it (from another of their devices, say).
        case left
    }

    /// The share's record name (its title is in the share record the device last fetched).
    public var shareName: String
    public var reason: Reason
    /// Who did it, and when.
    public var by: String
    public var at: Date
}
