import Cloud
import Foundation
import GRDB
import Notes
import Sync

/// Faults around the people: a second process of a device writing in the
/// middle of a sync, and a store that cannot write while a fetch is applied.
extension AppSimulation {
    /// Syncs a device while another process of it (a store of its own over the same files, as the front end
    /// and a command are) saves an edit at a moment of the sync drawn from the seed.
    func syncWithSecondProcess(_ device: Device, step: Int, now: Date) throws {
        let other = try openStore(device.index, account: device.account)
        let moment = random.below(12)
        let pick = random.below(1_000)
        var seen = 0
        device.hook.onLine = { [self] line in
            guard line.contains(" event "), seen == moment else { seen += line.contains(" event ") ? 1 : 0; return }
            seen += 1
            // As the other process: the copy it shows now, a word typed, saved (it wakes the syncing one).
            let provider = StoreSharingProvider(store: other, account: device.account) { $0 }
            guard let posts = try? other.posts().filter({ provider.canEdit($0) }), !posts.isEmpty else { return }
            let base = posts[pick % posts.count]
            var edited = base
            let tag = "[t\(step)-p]"
            edited.content += "\n" + tag
            if (try? other.saveEdit(edited, from: base.fields, by: device.editor, now: now)) != nil {
                log?.note("step \(step) a second process of \(device.name) typed \(tag) into \(base.id) at: \(line)")
                typed[base.recordID, default: []].insert(tag)
                counts["secondProcessWrote", default: 0] += 1
            }
        }
        defer { device.hook.onLine = nil }
        sync(device)
    }

    /// Syncs a device whose store cannot write a post row meanwhile (a full disk, a damaged page): what it
    /// fetched or sent must come again, nothing of it half applied.
    func syncWithBrokenStore(_ device: Device) throws {
        let files = try ["private.sqlite", "shared.sqlite"].map {
            try DatabaseQueue(path: directory.appendingPathComponent("devices/\(device.index)/\($0)").path)
        }
        for file in files {
            try file.write { try $0.execute(sql: "CREATE TRIGGER broken BEFORE INSERT ON posts BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END") }
        }
        defer {
            for file in files { try? file.write { try $0.execute(sql: "DROP TRIGGER IF EXISTS broken") } }
        }
        sync(device)
    }
}
