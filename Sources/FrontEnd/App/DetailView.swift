import Cloud
import Foundation
import Glibc
import Notes

/// A post's detail pane: title, facts, text, comments.
enum DetailView {
    static func make(_ post: Post, comments: [Comment], share: Share?, readOnly: String?, names: (String) -> String,
                     now: Date) -> ScreenModel.Detail {
        var facts: [(String, String)] = [("Notebook", "\(post.zone.name) (\(names(post.zone.owner)))")]
        if post.scope == .shared {
            facts.append(("Sharing", "shared with you by \(names(post.zone.owner))" + (readOnly == nil ? " · you may edit" : " · read-only")))
        } else if let share {
            let others = share.invitees.count
            facts.append(("Sharing", (share.isZoneWide ? "notebook shared" : "shared") + " with \(others.counting("person", plural: "people"))"))
        }
        if let at = post.shownCreatedAt { facts.append(("Created", "\(format(at)) by \(post.createdBy.map(names) ?? "?")")) }
        if let at = post.modifiedAt { facts.append(("Modified", "\(format(at)) by \(post.modifiedBy.map(names) ?? "?")")) }
        if let location = post.location { facts.append(("Location", location)) }
        if !post.tags.isEmpty { facts.append(("Tags", post.tags.joined(separator: ", "))) }
        if post.conflicted {
            let sides = ConflictBlock.find(in: post.fields).first?.sides.map(\.author.label) ?? []
            let who = sides.isEmpty ? "edited in two places at once" : sides.joined(separator: " and ") + " changed the same text"
            facts.append(("Conflict", "\(who): both kept · m keep mine · t keep theirs · o keep both"))
        }
        return ScreenModel.Detail(title: post.title.isEmpty ? "(untitled)" : post.title, facts: facts, content: post.content,
                                  comments: comments.map { (byline($0, names: names, now: now), $0.text) },
                                  notice: readOnly)
    }

    /// "heather · 2h" (and "· edited" when its author changed it since).
    static func byline(_ comment: Comment, names: (String) -> String, now: Date) -> String {
        let who = comment.createdBy.map(names) ?? "?"
        let when = comment.createdAt.map { " · " + RelativeTime.text($0, now: now) } ?? ""
        guard comment.wasEdited else { return who + when }
        // Saved over by someone else (raw, with write access): said, so their words are not taken for the author's.
        if let editor = comment.modifiedBy, editor != comment.createdBy { return who + when + " · changed by \(names(editor))" }
        return who + when + " · edited"
    }

    /// "2026-11-22 05:57" in the local time zone (`localtime_r`: a DateFormatter costs a millisecond to make).
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min)
    }
}
