import Cloud
import Foundation

/// Something someone else did that touches this account, said once in words ("jermaine removed you from
/// 'Standup notes'") and kept for a while to be listed again (`cloudnotes notices`, `:notices`).
public struct Notice: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case removed, shareEnded, sharedDeleted, left, accepted, declined, permission
        /// A notebook this device deleted is in the cloud again (its detail: the day it was deleted).
        case notebookBack
        /// The same, of one this device renamed (its detail: the name it was given).
        case renamedNotebookBack
    }

    /// Its place in the device's list (0 until stored).
    public var id: Int64 = 0
    public var at: Date
    public var kind: Kind
    /// Who did it: a user record ID.
    public var by: String
    /// What it was about, ready to read: "'Trip'" or "notebook Trip".
    public var subject: String
    /// A permission change's new permission.
    public var detail: String?

    public init(at: Date, kind: Kind, by: String, subject: String, detail: String? = nil) {
        self.at = at
        self.kind = kind
        self.by = by
        self.subject = subject
        self.detail = detail
    }

    /// The notice in words, naming people through `names`.
    public func text(names: (String) -> String) -> String {
        switch kind {
        case .removed: "\(names(by)) removed you from \(subject)"
        case .shareEnded: "\(names(by)) stopped sharing \(subject)"
        case .sharedDeleted: "\(names(by)) deleted \(subject), which was shared with you"
        case .left: "\(names(by)) left \(subject)"
        case .accepted: "\(names(by)) accepted your invitation to \(subject)"
        // (Seen only as invited, then gone: a device that did not sync between cannot tell a refusal from a stay.)
        case .declined: "\(names(by)) declined your invitation to \(subject) (or accepted it and left since)"
        case .permission: "your permission on \(subject) is now \(detail ?? "changed")"
        case .notebookBack: "\(subject), deleted on this device\(detail.map { " on \($0)" } ?? ""), is back: another device of yours had "
            + "changes waiting in it, or made it anew (delete it again to delete it)"
        case .renamedNotebookBack: "\(subject), renamed \(detail ?? "") on this device, is back: another device of yours had changes "
            + "waiting in it, or made it anew (move what is in it to \(detail ?? "the new name"), then delete it)"
        }
    }

    /// How a share is named in a notice.
    static func subject(of share: Share) -> String {
        share.isZoneWide ? "notebook \(share.title)" : "\"\(share.title)\""
    }

    /// What changed in a share between two fetches of it that `me` should hear of: as its owner, who accepted
    /// and who left; as a participant, a new permission. `savedBy` saved the new one. Nothing on a first
    /// sight (nothing to compare).
    static func changes(from old: Share?, to new: Share, savedBy: String?, scope: DatabaseScope, me: String, at: Date) -> [Notice] {
        guard let old else { return [] }  // nothing to compare
        let subject = subject(of: new)
        if scope == .private {
            return new.participants.compactMap { person in
                guard person.role != .owner, let id = person.userRecordID, id != me else { return nil }
                let before = old.participant(id)
                // Accepted an invitation (whoever saved the share last), or joined by a link; letting someone in
                // oneself (approving a request) is not news.
                if person.status == .accepted, before?.status != .accepted, before?.status == .pending || savedBy != me {
                    return Notice(at: at, kind: .accepted, by: id, subject: subject)
                }
                if person.status == .removed, let before, before.status != .removed, savedBy == id {
                    return Notice(at: at, kind: before.status == .pending ? .declined : .left, by: id, subject: subject)
                }
                return nil
            }
        }
        guard let mine = new.participant(me), let before = old.participant(me), mine.status == .accepted, before.status == .accepted,
              mine.permission != before.permission else { return [] }
        return [Notice(at: at, kind: .permission, by: savedBy ?? new.id.zone.owner, subject: subject, detail: mine.permission.text)]
    }

    /// What a participant hears when their part in shares ended (as the cloud tells it; their own leaving is not news).
    static func ended(_ ended: [EndedShare], known: [String: Share], me: String) -> [Notice] {
        ended.compactMap { end in
            // Only shares this device knew (told once: after the zone is dropped it knows none of them).
            guard end.by != me, let share = known[end.shareName] else { return nil }
            let subject = subject(of: share)
            switch end.reason {
            case .removed: return Notice(at: end.at, kind: .removed, by: end.by, subject: subject)
            case .ended: return Notice(at: end.at, kind: .shareEnded, by: end.by, subject: subject)
            case .deleted: return Notice(at: end.at, kind: .sharedDeleted, by: end.by, subject: subject)
            case .left: return nil
            }
        }
    }
}
