import Cloud
import Foundation

/// A post: a record of type `Post` in a notebook's zone.
public struct Post: Equatable, Sendable {
    public static let recordType = "Post"
    /// The longest title this app saves: a title is a line on every reader's screen (a text goes in the text).
    public static let maxTitleLength = 1_000

    /// The record name: a stable ID, unique in its zone.
    public var id: String
    public var zone: ZoneID
    /// Which store holds it: the account's own (private) or one shared with it.
    public var scope: DatabaseScope
    public var title: String
    public var content: String
    public var tags: [String]
    public var location: String?
    public var createdAt: Date?
    /// When it was created, as a person reads it: the cloud stamps a creation when the post reaches it, which
    /// may be after it was typed (offline, or on a clock behind the cloud's), so never later than its last change.
    public var shownCreatedAt: Date? { createdAt.map { min($0, modifiedAt ?? $0) } }
    public var createdBy: String?
    /// When its content (title, text, tags, location) last changed, and who changed it: sharing, comments and
    /// permissions do not move these (see `Post.lastEdit(of:)`).
    public var modifiedAt: Date?
    public var modifiedBy: String?
    /// The name of the device the last edit was typed on, for conflict labels.
    public var modifiedOn: String?
    /// A field holds a conflict block (`ConflictBlock`): both sides' text, until someone resolves it.
    public var conflicted: Bool
    /// The location as the cloud holds it, sealed; opened when a zone key is at hand.
    var sealedLocation: Data?
    /// When the cloud last saved its record and who saved it (its system fields), which sharing moves too;
    /// kept so a row can give back the record it holds.
    var savedAt: Date?
    var savedBy: String?

    /// The post has a location this device cannot open: it holds no key the location was sealed with (yet).
    public var locationLocked: Bool { location == nil && sealedLocation != nil }

    public init(id: String, zone: ZoneID, scope: DatabaseScope = .private, title: String, content: String = "",
                tags: [String] = [], location: String? = nil) {
        self.id = id
        self.zone = zone
        self.scope = scope
        self.title = title
        self.content = content
        self.tags = tags
        self.location = location
        conflicted = false
    }

    public var recordID: RecordID { RecordID(name: id, zone: zone) }
}

/// The fields of a post that sync, as one value the merge works on.
public struct PostFields: Equatable, Sendable {
    public var title: String
    public var content: String
    public var tags: [String]
    public var location: String?

    public init(title: String, content: String, tags: [String], location: String?) {
        self.title = title
        self.content = content
        self.tags = tags
        self.location = location
    }
}

extension Post {
    public var fields: PostFields {
        get { PostFields(title: title, content: content, tags: tags, location: location) }
        set {
            title = newValue.title
            content = newValue.content
            tags = newValue.tags
            location = newValue.location
        }
    }
}
