import Cloud
import Foundation

/// A comment on a post: a record of type `Comment` whose parent is the post,
/// so a share of the post carries its comments.
public struct Comment: Equatable, Sendable {
    public static let recordType = "Comment"

    public var id: String
    public var postID: String
    public var zone: ZoneID
    public var scope: DatabaseScope
    public var text: String
    public var createdAt: Date?
    public var createdBy: String?
    /// When it was last changed (its creation until then), and by whom: its author, unless someone with
    /// write access to the notebook saved over it (the cloud lets them; the app never does).
    public var modifiedAt: Date?
    public var modifiedBy: String?

    /// Its author changed it after writing it.
    public var wasEdited: Bool {
        guard let createdAt, let modifiedAt else { return false }
        return modifiedAt > createdAt
    }

    public init(id: String, postID: String, zone: ZoneID, scope: DatabaseScope, text: String) {
        self.id = id
        self.postID = postID
        self.zone = zone
        self.scope = scope
        self.text = text
    }

    init(record: Record, scope: DatabaseScope) {
        self.init(id: record.id.name, postID: record.parent ?? "", zone: record.id.zone, scope: scope, text: record["text"].shownAsText)
        createdAt = record.system?.createdAt
        createdBy = record.system?.createdBy
        modifiedAt = record.system?.modifiedAt
        modifiedBy = record.system?.modifiedBy
    }

    func apply(to record: inout Record) {
        if record["text"] == nil || record["text"].shownAsText != text { record["text"] = .string(text) }
        // A "comment" below nothing (one planted by raw requests, then sent again by a device rebuilding a cloud)
        // keeps what it has: an empty parent would be refused, and with it the whole request.
        guard !postID.isEmpty else { return }
        if record.parent != postID { record.setParent(postID) }
        // Deleted with its post.
        let ref = FieldValue.reference(Reference(recordName: postID, action: .deleteSelf))
        if record["post"] != ref { record["post"] = ref }
    }
}
