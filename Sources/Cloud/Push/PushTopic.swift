/// What a client subscribes to: changes in one account's database of one
/// scope, or in the container's public database.
public struct PushTopic: Hashable, Sendable, CustomStringConvertible {
    /// The notification file's name in the cloud's `notify` directory.
    public let fileName: String

    public static func database(_ scope: DatabaseScope, of accountID: String) -> PushTopic {
        scope == .public ? .publicDatabase : PushTopic(fileName: "\(accountID).\(scope.rawValue)")
    }

    public static let publicDatabase = PushTopic(fileName: "public")

    public var description: String { fileName }
}
