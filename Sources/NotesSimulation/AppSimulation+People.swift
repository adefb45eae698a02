import Cloud
import Foundation
import Notes
import Sync

/// What the simulated people do: edit what their screen showed (now, or a
/// while ago), keep editors open, edit on two devices at once, resolve
/// conflicts, remove lines on purpose, share.
extension AppSimulation {
    /// The oldest a screen may be when someone edits from it, in steps.
    static let staleness = 60

    /// Every tag a post holds, in any field.
    static func tags(in post: Post) -> Set<String> {
        let text = [post.title, post.content, post.location ?? ""].joined(separator: "\n")
        return Set(text.matches(of: /\[t[0-9a-z-]+\]/).map { String($0.0) })
    }

    /// Types a tag into a post's text (a line at any place), its title or its location.
    func type(_ tag: String, into post: inout Post) {
        switch random.below(10) {
        case 0: post.title += " " + tag
        case 1: post.location = (post.location.map { $0 + " " } ?? "") + tag
        default:
            var lines = post.content.isEmpty ? [] : post.content.components(separatedBy: "\n")
            lines.insert(tag, at: random.below(lines.count + 1))
            post.content = lines.joined(separator: "\n")
        }
    }

    /// Runs a save; false where it was refused whole as too large for the cloud, in one line that says to shorten it
    /// (a post grown past the record limit around eve's huge values, kept on its device as not sent): nothing counts.
    func fits(_ save: () throws -> Void) throws -> Bool {
        do {
            try save()
            return true
        } catch let error as StoreError {
            guard case .tooLarge = error else { throw error }
            counts["refusedTooLarge", default: 0] += 1
            return false
        }
    }

    /// Saves an edit from `base`; on success its tags count as typed.
    func save(_ edited: Post, from base: Post, tags: [String], on device: Device, now: Date) throws {
        guard try fits({ _ = try device.store.saveEdit(edited, from: base.fields, by: device.editor, now: now) }) else { return }
        typed[edited.recordID, default: []].formUnion(tags)
        log?.note("typed \(tags.joined()) into \(edited.recordID) on \(device.name)")
    }

    /// Refreshes what a device's screen shows of one post.
    func look(on device: Device, step: Int) throws {
        guard let post = pick(try device.store.posts()) else { return }
        screens[device.index, default: [:]][post.id] = (post, step)
    }

    /// An edit from the copy the device holds now, or (stale) from what its screen showed up to a minute of steps ago.
    func edit(on device: Device, step: Int, stale: Bool, now: Date) throws {
        let current = try writable(device)
        let ids = Set(current.map(\.id))
        let shown = (screens[device.index] ?? [:]).values.filter { step - $0.step <= Self.staleness && ids.contains($0.post.id) }
            .sorted { $0.post.id < $1.post.id }  // in an order the seed decides, not the hash seed of the process
        guard let base = stale ? pick(shown)?.post ?? pick(current) : pick(current) else { return }
        var edited = base
        let tag = "[t\(step)]"
        type(tag, into: &edited)
        try save(edited, from: base, tags: [tag], on: device, now: now)
        if !stale { screens[device.index, default: [:]][base.id] = (try device.store.post(id: base.id, zone: base.zone, scope: base.scope) ?? edited, step) }
    }

    /// Two devices of one account edit the same post before either syncs.
    func concurrentEdit(from device: Device, step: Int, now: Date) throws {
        let mates = devices.filter { $0.account.id == device.account.id }
        guard mates.count > 1, let post = pick(try device.store.posts().filter { $0.scope == .private }) else { return }
        for (i, mate) in mates.prefix(2).enumerated() {
            guard let copy = try mate.store.post(id: post.id, zone: post.zone, scope: post.scope) else { continue }
            var edited = copy
            let tag = "[t\(step)-\(i)]"
            type(tag, into: &edited)
            try save(edited, from: copy, tags: [tag], on: mate, now: now)
        }
    }

    /// An editor open over many steps: opened on the copy of the moment, typed into, then saved or left.
    func editorSession(_ action: String, on device: Device, step: Int, now: Date) throws {
        switch (action, sessions[device.index]) {
        case ("openEditor", nil):
            if let post = pick(try writable(device)) { sessions[device.index] = Session(base: post) }
        case ("typeInEditor", var session?):
            session.typed.append("[t\(step)]")
            sessions[device.index] = session
        case ("saveEditor", let session?):
            sessions[device.index] = nil
            var edited = session.base
            for tag in session.typed { type(tag, into: &edited) }
            guard edited != session.base else { return }
            // The person may have lost the right to edit while typing: then the save is refused here, and nothing counts.
            guard try writable(device).contains(where: { $0.recordID == edited.recordID }) else { return }
            try save(edited, from: session.base, tags: session.typed, on: device, now: now)
        case ("leaveEditor", _?):
            sessions[device.index] = nil
        default:
            break
        }
    }

    /// Someone settles a conflict: mostly keeping both; keeping one side drops the other's words on purpose.
    func resolve(on device: Device, now: Date) throws {
        guard let post = pick(try writable(device).filter(\.conflicted)) else { return }
        let choice: ConflictResolution.Choice = [.both, .both, .both, .mine, .theirs][random.below(5)]
        do {
            var saved: SavedEdit?
            guard try fits({ saved = try device.store.resolve(post, keeping: choice, by: device.editor, now: now) }), let saved else { return }
            removed.formUnion(Self.tags(in: post).subtracting(Self.tags(in: saved.post)))
            counts["resolved", default: 0] += 1
        } catch is ConflictResolution.Failure {
            counts["resolveRefused", default: 0] += 1  // neither side is this person's
        }
    }

    /// Someone deletes a line of text they see, on purpose.
    func trim(on device: Device, now: Date) throws {
        guard let post = pick(try writable(device)) else { return }
        var lines = post.content.components(separatedBy: "\n")
        guard let index = pick(lines.indices.filter { lines[$0].contains("[t") }) else { return }
        let line = lines.remove(at: index)
        var edited = post
        edited.content = lines.joined(separator: "\n")
        guard try fits({ _ = try device.store.saveEdit(edited, from: post.fields, by: device.editor, now: now) }) else { return }
        removed.formUnion(Self.tags(in: Post(id: "", zone: post.zone, title: line)))
    }

    /// Someone brings back an earlier version of a post from a history view they opened a while ago (on
    /// what their screen showed then): an edit, merged like any. The words the version lacks that they saw
    /// go on purpose; words that arrived or were typed since must stay.
    func restoreVersion(on device: Device, step: Int, now: Date) throws {
        let current = try writable(device)
        let ids = Set(current.map(\.recordID))
        let shown = (screens[device.index] ?? [:]).values.filter { step - $0.step <= Self.staleness && ids.contains($0.post.recordID) }
            .sorted { $0.post.id < $1.post.id }
        guard let seen = pick(shown)?.post ?? pick(current) else { return }
        let history = PostHistory(store: device.store, cloud: cloud, account: device.account)
        guard let versions = try? history.versions(of: seen), let version = pick(versions.filter { !$0.isCurrent }) else { return }
        _ = try history.restore(seen, to: version, by: device.editor, now: now)
        removed.formUnion(Self.tags(in: seen).subtracting(Self.tags(in: version.post)))
        log?.note("restored \(seen.recordID) on \(device.name) to a version without \(Self.tags(in: seen).subtracting(Self.tags(in: version.post)).sorted().joined())")
        counts["restoredVersion", default: 0] += 1
    }

    /// Someone brings a deleted post back from the trash, as the cloud last held it; from then on its words count again.
    func restoreDeleted(on device: Device) throws {
        let history = PostHistory(store: device.store, cloud: cloud, account: device.account)
        let provider = StoreSharingProvider(store: device.store, account: device.account) { $0 }
        guard let trash = try? history.trash(), let deleted = pick(trash.filter { provider.canEdit($0.post) }) else { return }
        let post: Post
        do {
            post = try history.restoreDeleted(deleted)
        } catch let error as CloudError {
            // The cloud's fault, or a "post" eve planted below one deleted: refused, and told.
            if case .unknownItem = error {} else if !error.isTransient { throw error }
            counts["restoreFailed", default: 0] += 1
            return
        }
        deletedPosts.remove(post.recordID)
        typed[post.recordID] = Self.tags(in: post)
        counts["restoredDeleted", default: 0] += 1
    }

    func share(from device: Device, notebook: Bool) throws {
        let db = cloud.database(.private, as: device.account)
        let others = accounts.filter { $0.id != device.account.id } + (intruder.map { [$0.account] } ?? [])
        var share: Share
        var root: Record?
        if notebook {
            guard let book = pick(try device.store.notebooks().filter { $0.scope == .private }) else { return }
            share = Share(zoneWide: book.zone, title: book.title)
        } else {
            guard let post = pick(try device.store.posts().filter { $0.scope == .private }),
                  let record = try? device.store.record(for: post.recordID, in: .private) else { return }
            share = Share(rootRecord: post.recordID, title: post.title)
            root = record
        }
        for other in others where random.below(2) == 0 {
            guard let participant = try? db.lookUpParticipant(accountName: other.name) else { continue }
            share.addParticipant(participant, permission: random.below(2) == 0 ? .readWrite : .readOnly)
        }
        guard let saved = try? db.saveShare(share, rootRecord: root), let url = saved.url else {
            counts["shareRefused", default: 0] += 1
            return
        }
        try? device.store.grantKeys(zone: saved.share.id.zone, root: saved.share.rootRecord,
                                     to: saved.share.participants.compactMap(\.userRecordID))
        urls.append((url, device.account))
    }

    func endSharing(_ action: String, on device: Device) throws {
        guard let link = pick(urls) else { return }
        guard let metadata = try? cloud.fetchShareMetadata(link.url, as: link.owner) else { return }
        if action == "remove" {
            let others = accounts.filter { $0.id != link.owner.id } + (intruder.map { [$0.account] } ?? [])
            guard let other = pick(others) else { return }
            _ = try? cloud.database(.private, as: link.owner).removeParticipant(other.id, from: metadata.share)
        } else if device.account.id != link.owner.id {
            _ = try? cloud.database(.shared, as: device.account).deleteShare(metadata.share)
        }
    }

    /// An owner finds eve out and removes her from every share of one of their notebooks she takes part in:
    /// what that notebook seals from then on must be closed to her (see `Intruder.checkRotation`).
    func evict(by device: Device) throws {
        guard let eve = intruder?.account else { return }
        let db = cloud.database(.private, as: device.account)
        var shares: [ZoneID: [Share]] = [:]
        for zone in (try? db.allZones()) ?? [] {
            let hers = ((try? db.everyRecord(in: zone)) ?? []).filter { $0.type == Share.recordType }.compactMap { try? Share(record: $0) }
                .filter { $0.currentParticipants.contains { $0.userRecordID == eve.id } }
            if !hers.isEmpty { shares[zone] = hers }
        }
        guard let zone = pick(shares.keys.sorted { $0.description < $1.description }) else { return }
        for share in shares[zone]! { _ = try? db.removeParticipant(eve.id, from: share.id) }
        counts["evicted", default: 0] += 1
    }
}
