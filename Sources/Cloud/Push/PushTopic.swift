/// What a client subscribes to: changes in one account's database of one
/// scope, or in the container's public database.
public struct PushTopic: Hashable, Sendable, CustomStringConvertible {
    /// The notification file's name in the cloud's `notify` directory.
    public let fileName: String

    /// The topic a push names (a store carries topics between processes by this name).
    public init(fileName: String) {
        self.fileName = fileName
    }

    public static func database(_ scope: DatabaseScope, of accountID: String) -> PushTopic {
        scope == .public ? .publicDatabase : PushTopic(fileName: "\(accountID).\(scope.rawValue)")
    }

    public static let publicDatabase = PushTopic(fileName: "public")

    public var description: String { fileName }
}
