import Cloud
import Foundation
import Notes

/// A post as the command line shows it.
struct PostView: Encodable {
    var id: String
    var notebook: String
    var owner: String
    var title: String
    var content: String
    var tags: [String]
    var location: String?
    /// It has a location this device holds no key to open yet.
    var locationLocked: Bool
    var created: RecordView.Stamp?
    var modified: RecordView.Stamp?
    var shared: Bool
    var readOnly: Bool
    var conflicted: Bool
    /// Each conflict block, with whose text is whose.
    var conflicts: [ConflictView]
    var comments: [CommentView] = []
    /// Why the cloud refused this post's change, kept here and not sent; nil when it did not.
    var notSent: String?

    struct ConflictView: Encodable {
        struct Side: Encodable {
            var author: String
            var device: String?
            var at: Date?
            var text: String
        }
        var field: ConflictBlock.Field
        var sides: [Side]
    }

    struct CommentView: Encodable {
        var id: String
        var by: String
        var at: Date?
        /// When it was last changed, if it was.
        var edited: Date?
        /// Who changed it, when not its author (a participant who may write the notebook can; the app never does).
        var changedBy: String?
        var text: String
    }

    init(_ post: Post, sharing: any SharingProvider, names: AccountNames) {
        id = post.id
        notebook = post.zone.name
        owner = names(post.zone.owner)
        title = post.title
        content = post.content
        tags = post.tags
        location = post.location
        locationLocked = post.locationLocked
        created = post.shownCreatedAt.map { RecordView.Stamp(at: $0, by: post.createdBy.map(names.callAsFunction) ?? "?") }
        modified = post.modifiedAt.map { RecordView.Stamp(at: $0, by: post.modifiedBy.map(names.callAsFunction) ?? "?") }
        shared = sharing.isShared(post)
        readOnly = !sharing.canEdit(post)
        conflicted = post.conflicted
        conflicts = ConflictBlock.find(in: post.fields).map { block in
            ConflictView(field: block.field, sides: block.sides.map {
                ConflictView.Side(author: $0.author.name, device: $0.author.device, at: $0.author.at, text: $0.text)
            })
        }
    }

    var markers: String {
        [shared ? "shared" : nil, readOnly ? "read-only" : nil, conflicted ? "conflict" : nil, notSent != nil ? "not-sent" : nil]
            .compactMap { $0 }.joined(separator: ",")
    }

    func printText() {
        Output.line(title)
        var rows: [[String]] = [["  id", id], ["  notebook", "\(notebook) (\(owner))"]]
        if !tags.isEmpty { rows.append(["  tags", tags.joined(separator: ", ")]) }
        if let location { rows.append(["  location", location]) }
        if locationLocked { rows.append(["  location", "(sealed with a key this device has not been granted yet)"]) }
        if let created { rows.append(["  created", "\(Output.date(created.at)) by \(created.by)"]) }
        if let modified { rows.append(["  modified", "\(Output.date(modified.at)) by \(modified.by)"]) }
        if !markers.isEmpty { rows.append(["  marks", markers]) }
        if let notSent {
            rows.append(["  not sent", "\(notSent); kept on this device: edit it to fit, or cloudnotes discard \(id)"])
        }
        for conflict in conflicts {
            rows.append(["  conflict", "\(conflict.field.rawValue): " + conflict.sides.map(\.label).joined(separator: " / ")
                         + "; resolve: cloudnotes resolve \(id) --mine|--theirs|--both"])
        }
        Output.table(rows)
        if !content.isEmpty {
            Output.line()
            Output.text(content)
        }
        if !comments.isEmpty {
            Output.line()
            for comment in comments {
                let edited = comment.edited.map { " (\(comment.changedBy.map { "changed by \($0)" } ?? "edited") \(Output.date($0)))" } ?? ""
                Output.line("  \(comment.by)\(comment.at.map { " at " + Output.date($0) } ?? "")\(edited) [\(comment.id)]: \(comment.text)")
            }
        }
    }
}

extension PostView.ConflictView.Side {
    /// "heather on laptop, 2026-11-23 14:02 UTC".
    var label: String { Author(name: author, device: device, at: at).label }
}
