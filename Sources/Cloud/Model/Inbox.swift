/// An invitation waiting in an account's inbox: a share its owner invited the account to by name or
/// email, which the account has neither accepted nor declined. No URL is needed to see or accept it.
public struct InboxInvitation: Equatable, Codable, Sendable {
    /// Stable while the invitation waits; meaningful only to the account invited.
    public var id: String
    public var metadata: ShareMetadata
}

/// A request to join one of an account's shares, with the share it is for.
public struct OwnedShareRequest: Equatable, Codable, Sendable {
    public var shareID: RecordID
    public var request: AccessRequest
}
