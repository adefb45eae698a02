import Cloud
import Foundation

/// A hostile participant: an account with no app, invited to shares with
/// every permission, that sends raw requests the app never sends (saves
/// with parents and delete-self references anywhere, deletions of anything,
/// key records, other accounts' user records, tokens the cloud never
/// issued, names no one may use, hierarchies deeper than an ancestor walk
/// closed into cycles, fields at every type's extremes and just past the
/// cloud's limits). After each request it checks, past the faults, that
/// the cloud held: nothing it may not write changed, no share root was
/// deleted or moved, every live share's root exists, no record is its own
/// ancestor, no other account's user record was written, a forged token and
/// a bad name were refused, and it holds no more through a public link than
/// the share's public permission, and that whatever it saved reads back,
/// to the owner and to itself (a record the cloud took and cannot read would
/// make the owner's notebook unreadable for everyone).
struct Adversary {
    let account: Account
    /// The same cloud with faults off, to see what a request did.
    let observer: any Cloud

    /// What one attack did, for the log and the model.
    struct Outcome {
        var note = ""
        var violations: [String] = []
        var deleted: [RecordID] = []
        var wrote: ZoneID?
        /// Records it saved in this attack (one may be gone again by its end).
        var saved: Set<String> = []
    }

    /// A zone's records as its owner sees them: name → (change tag, parent, names it references).
    private typealias Snapshot = [String: (tag: String?, parent: String?, references: Set<String>)]

    func attack(_ cloud: any Cloud, accounts: [Account], random: SeededRandom) throws -> Outcome {
        var outcome = Outcome()
        var cycles: [String] = []
        let mine = cloud.database(.shared, as: account)
        let zones = try observer.database(.shared, as: account).allZones().sorted { $0.description < $1.description }
        let kind = random.below(10)
        if kind == 6 || zones.isEmpty {
            try forgeUserRecord(cloud, accounts: accounts, random: random, &outcome)
            return outcome
        }
        let zone = zones[random.below(zones.count)]
        guard let owner = accounts.first(where: { $0.id == zone.owner }) else { return outcome }
        let before = try snapshot(zone, of: owner)
        let seenBefore = try visible(zone)
        let roots = try observer.database(.private, as: owner).shares(in: zone).compactMap(\.rootRecord)
        let names = before.keys.sorted() + ["ghost", "e\(random.below(4))", "keys", "keys-r\(random.below(8))"]
        func anyName() -> String { names[random.below(names.count)] }
        /// A share's root half the time: what an attacker goes for.
        func aim() -> String { !roots.isEmpty && random.below(2) == 0 ? roots[random.below(roots.count)] : anyName() }
        /// The record as it is, or a new one, for a save.
        func editable(_ name: String) -> Record {
            let id = RecordID(name: name, zone: zone)
            var record = (try? observer.database(.private, as: owner).record(id)) ?? Record(type: "Item", id: id)
            record["v"] = .string("eve")
            return record
        }
        func save(_ record: Record) -> Bool {
            guard (try? mine.save(record, policy: .allKeys)) != nil else { return false }
            outcome.wrote = zone
            outcome.saved.insert(record.id.name)
            return true
        }
        switch kind {
        case 0:
            // A save: a parent anywhere (none, another record, a missing name, itself), a reference anywhere.
            var record = editable(aim())
            if random.below(2) == 0 { record.setParent(random.below(4) == 0 ? nil : anyName()) }
            if random.below(2) == 0 {
                record["link"] = .reference(Reference(recordName: anyName(), action: random.below(2) == 0 ? .deleteSelf : .none))
            }
            outcome.note = " save \(record.id.name) parent \(record.parent ?? "-")"
            _ = save(record)
        case 1:
            // A cascade: a record (a root, say) made to go with a record of the attacker's own beside it, which is
            // then deleted.
            var record = editable(aim())
            var bait = editable("e\(random.below(4))")
            bait.setParent(random.below(2) == 0 ? record.id.name : record.parent)
            record["link"] = .reference(Reference(recordName: bait.id.name, action: .deleteSelf))
            outcome.note = " link \(record.id.name) to go with \(bait.id.name), then delete \(bait.id.name)"
            _ = save(bait)
            _ = save(record)
            _ = try? mine.delete(bait.id)
        case 2, 3:
            let target = RecordID(name: aim(), zone: zone)
            outcome.note = " delete \(target.name)"
            _ = try? mine.delete(target)
        case 4:
            // A move: a root or any record under another parent, a missing one, or itself.
            var record = editable(aim())
            let parent = [anyName(), "ghost", record.id.name][random.below(3)]
            record.setParent(parent)
            outcome.note = " move \(record.id.name) under \(parent)"
            _ = save(record)
        case 7:
            // A name or type no one may use: empty, blank, control characters, longer than 255.
            let bad = ["", "   ", "a\nb", "t\u{1b}]52;c;eA==\u{7}", String(repeating: "n", count: 256), "x\u{7f}", "tab\there"]
            let badName = random.below(3) != 0
            let text = bad[random.below(bad.count)]
            var record = badName ? Record(type: "Item", id: RecordID(name: text, zone: zone)) : Record(type: text, id: RecordID(name: aim(), zone: zone))
            record["v"] = .string("eve")
            outcome.note = " save a record with the \(badName ? "name" : "type") \(text.debugDescription.prefix(40))"
            if save(record) { outcome.violations.append("\(account.name) saved a record with the \(badName ? "name" : "type") \(text.debugDescription.prefix(40))") }
        case 8:
            // A chain deeper than an ancestor walk that gives up early, closed into a cycle, then taken away.
            // Names of its own each time: a tombstone of an earlier chain keeps its place in a hierarchy.
            let length = 258 + random.below(60), top = aim(), prefix = "chain\(random.below(1_000_000))-"
            let chain = (0..<length).map { i in
                var record = Record(type: "Item", id: RecordID(name: "\(prefix)\(i)", zone: zone))
                record.setParent(i == 0 ? top : "\(prefix)\(i - 1)")
                return record
            }
            outcome.note = " a chain of \(length) under \(top) closed into a cycle"
            // A request that failed may have saved them all (its response lost): counted as saved, as seen by it.
            let result = try? mine.modifyRecords(saving: chain, policy: .allKeys)
            let saved = result.map { $0.saveResults.compactMap { id, saved in (try? saved.get()).map { _ in id.name } } } ?? chain.map(\.id.name)
            if !saved.isEmpty { outcome.wrote = zone }
            outcome.saved.formUnion(saved)
            var head = editable("\(prefix)0")
            head.setParent("\(prefix)\(length - 1)")
            _ = save(head)
            cycles = try ancestorCycles(try snapshot(zone, of: owner))
            _ = try? mine.modifyRecords(saving: [], deleting: chain.map(\.id))
        case 9:
            // Fields at every type's extremes, and sometimes one just past a limit, which must be refused.
            var record = editable(aim())
            for (key, value) in HostileFields.within(random) { record[key] = value }
            let breaking = random.below(3) == 0 ? HostileFields.outOfBounds(random) : nil
            if let breaking { record[breaking.key] = breaking.value }
            outcome.note = " save \(record.id.name) with extreme fields" + (breaking.map { " and \($0.breaks)" } ?? "")
            if save(record) {
                if let breaking { outcome.violations.append("\(account.name) saved \(record.id.name) with \(breaking.breaks)") }
                let readers = [(owner.name, observer.database(.private, as: owner), true), (account.name, observer.database(.shared, as: account), false)]
                for (who, database, owns) in readers {
                    do {
                        let back = try database.record(record.id)
                        _ = try database.zoneChanges(in: zone, since: nil)
                        if back.fields != record.fields { outcome.violations.append("\(record.id.name) as \(who) reads it is not what \(account.name) saved") }
                    } catch {
                        // (A participant may write a record it then cannot see: one outside its hierarchy, say.)
                        if owns || error.code != "unknownItem" {
                            outcome.violations.append("after \(account.name) saved \(record.id.name) with extreme fields, \(who) cannot read it: \(error)")
                        }
                    }
                }
            }
        default:
            // A token the cloud never issued reads as nothing at all, never as "no changes".
            outcome.note = " forged token"
            if let changes = try? mine.zoneChanges(in: zone, since: try ChangeToken(parsing: "ct1-zzzzzzzzzz")) {
                outcome.violations.append("a forged token was answered with \(changes.modified.count) changes")
            }
        }
        let after = try snapshot(zone, of: owner)
        outcome.violations += (cycles + (try ancestorCycles(after))).map { "\(account.name)'s request\(outcome.note) left \($0)" }
        // What it saw before, and what it created and sees now (a new record below a tombstone inside its share).
        let seen = seenBefore.union(try visible(zone).intersection(outcome.saved).subtracting(before.keys))
        try check(zone, of: owner, before: before, after: after, roots: Set(roots), seen: seen, &outcome)
        return outcome
    }

    /// Writing another account's user record (where its device keys are published) must fail.
    private func forgeUserRecord(_ cloud: any Cloud, accounts: [Account], random: SeededRandom, _ outcome: inout Outcome) throws {
        let others = accounts.filter { $0.id != account.id }
        guard !others.isEmpty else { return }
        let victim = others[random.below(others.count)]
        outcome.note = " forge the user record of \(victim.name)"
        var record = Record(type: "PublicKey", id: RecordID(name: victim.id, zone: ZoneID(name: ZoneID.defaultName)))
        record["devices"] = .bytes(Data("{}".utf8))
        if (try? cloud.database(.public, as: account).save(record, policy: .allKeys)) != nil {
            outcome.violations.append("\(account.name) wrote the user record of \(victim.name)")
        }
    }

    private func snapshot(_ zone: ZoneID, of owner: Account) throws -> Snapshot {
        var out: Snapshot = [:]
        for record in try observer.database(.private, as: owner).everyRecord(in: zone) where record.type != Share.recordType {
            out[record.id.name] = (record.changeTag, record.parent, record.referencedNames)
        }
        return out
    }

    /// The names the adversary sees in the zone, as the cloud shows them to it.
    private func visible(_ zone: ZoneID) throws -> Set<String> {
        let records = (try? observer.database(.shared, as: account).everyRecord(in: zone)) ?? []  // none once access ended
        return Set(records.filter { $0.type != Share.recordType }.map(\.id.name))
    }

    /// The names the adversary may write in the zone, as `snapshot` has it: everything under a zone-wide
    /// share it writes, or below the roots of hierarchical shares it writes. A record hanging below a
    /// deleted one is still in its hierarchy (a tombstone keeps its parent), which live records cannot show:
    /// when every share it holds in the zone lets it write, what it sees (`seen`) counts too.
    private func writable(_ snapshot: Snapshot, shares: [Share], seen: Set<String>) -> Set<String> {
        let held = shares.filter { share in share.participants.contains { $0.userRecordID == account.id && $0.status == .accepted } }
        let mine = held.filter { share in permission(in: share) == .readWrite }
        if mine.contains(where: { $0.rootRecord == nil }) { return Set(snapshot.keys) }
        if !mine.isEmpty && mine.count == held.count { return seen.union(walk(snapshot, from: Set(mine.compactMap(\.rootRecord)))) }
        return walk(snapshot, from: Set(mine.compactMap(\.rootRecord)))
    }

    /// What the adversary holds in a share: what it was given, and through a public link never more than the
    /// share's public permission (lowering that lowers those who came in by it).
    private func permission(in share: Share) -> SharePermission {
        guard let me = share.participant(account.id) else { return .none }
        return me.role == .publicUser ? min(me.permission, share.publicPermission) : me.permission
    }

    /// Records that are their own ancestors (a cycle of parents), one line for each cycle found.
    private func ancestorCycles(_ snapshot: Snapshot) throws -> [String] {
        var cycles: [String] = [], clear = Set<String>()
        for name in snapshot.keys.sorted() where !clear.contains(name) {
            var path: [String] = [], current: String? = name
            while let here = current, !clear.contains(here) {
                if let start = path.firstIndex(of: here) {
                    cycles.append("a cycle of \(path.count - start) records through \(here)")
                    break
                }
                path.append(here)
                current = snapshot[here]?.parent
            }
            clear.formUnion(path)
        }
        return cycles
    }

    private func walk(_ snapshot: Snapshot, from roots: Set<String>) -> Set<String> {
        Set(snapshot.keys.filter { name in
            var current: String? = name
            for _ in 0..<1_001 {
                guard let here = current else { return false }
                if roots.contains(here) { return true }
                current = snapshot[here]?.parent
            }
            return false
        })
    }

    /// `roots`: the share roots of the zone before the request (a cascade that deletes one ends its share).
    private func check(_ zone: ZoneID, of owner: Account, before: Snapshot, after: Snapshot, roots: Set<String>, seen: Set<String>,
                       _ outcome: inout Outcome) throws {
        let shares = try observer.database(.private, as: owner).shares(in: zone)
        let grants = shares.map { share in
            let me = share.participant(account.id)
            return "\(share.rootRecord ?? "zone"):\(me.map { "\($0.role)/\($0.permission)/\($0.status)" } ?? "-")"
        }
        outcome.note += " in \(zone.name) of \(owner.name) (\(grants.joined(separator: " ")))"
        for share in shares {
            guard let me = share.participant(account.id), me.role == .publicUser, me.status == .accepted,
                  permission(in: share) != me.permission else { continue }
            outcome.violations.append("\(account.name) holds \(me.permission) through the public link of \(share.rootRecord ?? "zone \(zone.name)") "
                                      + "of \(owner.name), whose public permission is \(share.publicPermission)")
        }
        let allowed = writable(before, shares: shares, seen: seen).union(writable(after, shares: shares, seen: seen))
        for name in Set(before.keys).union(after.keys).sorted() {
            let was = before[name], now = after[name]
            guard was?.tag != now?.tag || was?.parent != now?.parent else { continue }
            if now == nil { outcome.deleted.append(RecordID(name: name, zone: zone)) }
            if roots.contains(name) && (now == nil || was?.parent != now?.parent) {
                outcome.violations.append("\(account.name)'s request\(outcome.note) deleted or moved the share root \(name) of \(owner.name)")
            } else if now == nil ? !writable(before, shares: shares, seen: seen).contains(name) : !allowed.contains(name) {
                outcome.violations.append("\(account.name)'s request\(outcome.note) changed \(name) of \(owner.name), outside what it may write")
            }
            // A reference it added to a record of the zone points inside what it may write (else an owner's private
            // deletion reaches the share, and references tell which names exist).
            for target in (now?.references ?? []).subtracting(was?.references ?? []).sorted()
            where (before[target] != nil || after[target] != nil) && !allowed.contains(target) && !outcome.saved.contains(target) {
                outcome.violations.append("\(account.name)'s request\(outcome.note) made \(name) reference \(target), outside what it may write")
            }
        }
        for root in roots where after[root] == nil && before[root] != nil {
            outcome.violations.append("the share root \(root) of \(owner.name) is gone")
        }
    }
}
