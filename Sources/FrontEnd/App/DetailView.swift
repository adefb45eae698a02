import Cloud
import Foundation
import Notes

/// A post's detail pane: title, facts, text, comments.
enum DetailView {
    static func make(_ post: Post, comments: [Comment], share: Share?, readOnly: String?, names: (String) -> String) -> ScreenModel.Detail {
        var facts: [(String, String)] = [("Notebook", "\(post.zone.name) (\(names(post.zone.owner)))")]
        if post.scope == .shared {
            facts.append(("Sharing", "shared with you by \(names(post.zone.owner))" + (readOnly == nil ? " · you may edit" : " · read-only")))
        } else if let share {
            let others = share.participants.filter { $0.role != .owner && $0.status != .removed }.count
            facts.append(("Sharing", (share.isZoneWide ? "notebook shared" : "shared") + " with \(others) \(others == 1 ? "person" : "people")"))
        }
        if let at = post.createdAt { facts.append(("Created", "\(format(at)) by \(post.createdBy.map(names) ?? "?")")) }
        if let at = post.modifiedAt { facts.append(("Modified", "\(format(at)) by \(post.modifiedBy.map(names) ?? "?")")) }
        if let location = post.location { facts.append(("Location", location)) }
        if !post.tags.isEmpty { facts.append(("Tags", post.tags.joined(separator: ", "))) }
        if post.conflicted { facts.append(("Conflict", "edited in two places at once; both texts are kept below, edit to resolve")) }
        return ScreenModel.Detail(title: post.title.isEmpty ? "(untitled)" : post.title, facts: facts, content: post.content,
                                  comments: comments.map { ("\($0.createdBy.map(names) ?? "?")", $0.text) },
                                  notice: readOnly)
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
