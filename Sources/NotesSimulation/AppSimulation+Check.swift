import Cloud
import Foundation
import Notes
import Sync

extension AppSimulation {
    /// With faults off, every device syncs until nothing waits anywhere, then once more.
    func settle() throws {
        for _ in 0..<20 {
            for device in devices { sync(device) }
            if try devices.allSatisfy({ try $0.store.pendingCount() == 0 }) { break }
        }
        for device in devices { sync(device) }
        for device in devices { refusedPosts.formUnion(device.sync.refusals.map(\.id)) }
    }

    /// What must hold after any step eve takes, and at the end: her key opens only what was filed for her, and
    /// no one sealed a location with a key she planted. Notes what she holds now (see `Intruder.checkRotation`)
    /// and the most locations she could read at once.
    func checkIntruder() throws -> [String] {
        guard var eve = intruder else { return [] }
        let locations = try eve.checkLocations(owners: accounts)
        intruder = eve
        counts["eveReads", default: 0] = max(counts["eveReads", default: 0], locations.readable)
        return try eve.checkEnvelopes() + locations.violations + eve.checkZonesRead(owners: accounts)
    }

    func check() throws {
        // Post → device → its copy there. A post is its record (a zone and a name): each account keeps a shared post
        // it lost under the same name ("r" and the post's), in a notebook of its own, and these are different posts.
        var views: [RecordID: [String: Post]] = [:]
        // A change the cloud refused (a merge grown past the record limit, say) stays on its device, said there as
        // not sent: that device's copy may differ from the others', and nothing else's may.
        var notSent = Set<RecordID>()
        for device in devices {
            if try device.store.pendingCount() != 0 { violations.append("\(device.name): changes still pending") }
            if let error = try device.store.syncStatus().lastError { violations.append("\(device.name): last sync failed: \(error)") }
            for post in try device.store.posts() { views[post.recordID, default: [:]][device.name] = post }
            notSent.formUnion(try device.store.refusedChanges().map(\.id))
        }
        let sameNamed = Dictionary(grouping: views.keys, by: SameName.init)
        for (id, seen) in views.sorted(by: { $0.key.description < $1.key.description }) {
            func describe(_ post: Post) -> String { "\(post.title)|\(post.content)|\(post.tags)|\(post.location ?? "-")" }
            if Set(seen.values.map(describe)).count > 1, !notSent.contains(id) {
                violations.append("post \(id) differs between devices: \(seen.map { "\($0.key): \(describe($0.value).debugDescription)" }.sorted())")
            }
            // Words in a post someone deleted went with it (an edit may bring it back); an edit the cloud refused, said so.
            guard !refusedPosts.contains(id), !deletedPosts.contains(id) else { continue }
            let wanted = typed[id, default: []].subtracting(removed)
            for (device, post) in seen.sorted(by: { $0.key < $1.key }) {
                // A post moved away and brought back where it was (a cloud put back from before the move) may hold
                // its words in the moved one: a copy under its name in another of its owner's notebooks (a move keeps
                // the name). Moved by this person, or carried by the cloud with a post it was planted below.
                var held = Self.tags(in: post)
                for other in sameNamed[SameName(id), default: []] where other != id {
                    if let copy = views[other]?[device] { held.formUnion(Self.tags(in: copy)) }
                }
                for tag in wanted.subtracting(held).sorted() {
                    violations.append("\(device): post \(id) lost the typed word \(tag)")
                }
            }
        }
        // Words typed into a copy of a post moved meanwhile (by its person, or carried by the cloud with the post it
        // was planted below) follow it to where it is now: its copies under its name in its owner's other notebooks.
        for (id, words) in typed.sorted(by: { $0.key.description < $1.key.description }) where views[id] == nil {
            let targets = sameNamed[SameName(id), default: []].sorted { $0.description < $1.description }
            // (An edit the cloud refused there, and said so, was kept as the editor's own post.)
            guard !targets.isEmpty, !refusedPosts.contains(id), !deletedPosts.contains(id),
                  !targets.contains(where: { refusedPosts.contains($0) || deletedPosts.contains($0) }) else { continue }
            var held: [String: Set<String>] = [:]
            for target in targets {
                for (device, post) in views[target] ?? [:] { held[device, default: []].formUnion(Self.tags(in: post)) }
            }
            for (device, tags) in held.sorted(by: { $0.key < $1.key }) {
                for tag in words.subtracting(removed).subtracting(tags).sorted() {
                    violations.append("\(device): post \(targets[0]) lost the typed word \(tag), typed where it was (\(id.zone.name))")
                }
            }
        }
        // A device's files are its person's alone, whatever the umask.
        for device in devices {
            let folder = directory.appendingPathComponent("devices/\(device.index)")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.posixPermissions] as? Int ?? 0
                if mode & 0o077 != 0 { violations.append("\(device.name): \(name) is readable by others (mode \(String(mode, radix: 8)))") }
            }
        }
        // A notebook eve was removed from no longer seals with a key she held.
        violations += try checkIntruder() + (intruder?.checkRotation(owners: accounts) ?? [])
        // Devices of one account hold the same posts.
        for account in accounts {
            let mine = devices.filter { $0.account.id == account.id }
            let sets = try mine.map { Set(try $0.store.posts().map(\.id)) }
            if Set(sets).count > 1 {
                let all = sets.reduce(Set<String>()) { $0.union($1) }
                let odd = zip(mine, sets).map { "\($0.name) lacks \(all.subtracting($1).sorted())" }
                violations.append("\(account.name)'s devices show different posts: \(odd.joined(separator: "; "))")
            }
        }
    }
}

/// A post's name and owner: its copies in the owner's notebooks are one post moved (a move keeps the name).
private struct SameName: Hashable {
    let name: String, owner: String

    init(_ id: RecordID) {
        name = id.name
        owner = id.zone.owner
    }
}
