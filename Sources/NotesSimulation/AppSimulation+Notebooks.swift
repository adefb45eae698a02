import Cloud
import Foundation
import Notes

extension AppSimulation {
    /// A person renames or deletes one of their notebooks (not Notes), while their other devices may not have heard
    /// and write on in it. A rename moves its posts under their names, so their words follow them (see `check`); a
    /// deletion takes the words in the posts this device holds there (an edit elsewhere may bring a post back).
    func churn(_ action: String, on device: Device, step: Int, now: Date) throws {
        let books = try device.store.notebooks().filter { $0.scope == .private && $0.title != "Notes" }
        guard let book = pick(books) else { return }
        let posts = try device.store.posts(in: book)
        if action == "renameNotebook" {
            let name = "N\(step)"
            guard try device.store.renameRefusal(book, to: name) == nil else { return }
            let renamed = try device.store.renameNotebook(book, to: name, by: device.account.id, on: device.editor.device, now: now)
            for post in posts {
                let moved = RecordID(name: post.id, zone: renamed.zone)
                typed[moved, default: []].formUnion(typed[post.recordID, default: []].intersection(Self.tags(in: post)))
                movedTo[post.recordID] = moved
            }
            log?.note("renamed \(book.zone) to \(renamed.zone)")
        } else {
            for post in posts { markDeleted(post.recordID) }
            try device.store.deleteNotebook(book)
            log?.note("deleted notebook \(book.zone) with \(posts.map(\.id))")
        }
    }

    /// A post deleted: its words go with it, and those typed where it was before a move too.
    func markDeleted(_ id: RecordID) {
        deletedPosts.insert(id)
        var gone = [id]
        while let target = gone.popLast() {
            for (source, next) in movedTo where next == target && deletedPosts.insert(source).inserted { gone.append(source) }
        }
    }
}
