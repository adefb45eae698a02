/// A change that reached this device from the cloud, for a brief notice
/// ("mary edited 'Groceries'").
public struct Arrival: Equatable, Sendable {
    public enum Kind: String, Sendable { case added, edited, deleted, commented }

    public var kind: Kind
    public var postID: String
    public var title: String
    /// The user record ID of whoever made the change, when the cloud says.
    public var by: String?

    public init(kind: Kind, postID: String, title: String, by: String?) {
        self.kind = kind
        self.postID = postID
        self.title = title
        self.by = by
    }

    /// "mary edited 'Groceries'", naming people through `name`.
    public func notice(name: (String) -> String) -> String {
        let who = by.map(name) ?? "someone"
        return switch kind {
        case .added: "\(who) added \"\(title)\""
        case .edited: "\(who) edited \"\(title)\""
        case .deleted: "\"\(title)\" was deleted"
        case .commented: "\(who) commented on \"\(title)\""
        }
    }
}
