/// How an owner answers someone who asked to join a share.
public enum AccessResponse: Sendable, Equatable, Codable {
    /// They become a participant with this permission, already accepted.
    case approve(SharePermission)
    /// Their request is dropped; they may ask again.
    case deny
    /// Their request is dropped and they may not ask again.
    case block
}
