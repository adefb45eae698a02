import Cloud

/// A record the app changed and wants sent (CKSyncEngine.PendingRecordZoneChange).
public enum PendingRecordZoneChange: Hashable, Codable, Sendable {
    case saveRecord(RecordID)
    case deleteRecord(RecordID)

    public var recordID: RecordID {
        switch self {
        case .saveRecord(let id), .deleteRecord(let id): id
        }
    }
}

/// A zone the app wants created or deleted (CKSyncEngine.PendingDatabaseChange).
public enum PendingDatabaseChange: Hashable, Codable, Sendable {
    case saveZone(ZoneID)
    case deleteZone(ZoneID)

    public var zoneID: ZoneID {
        switch self {
        case .saveZone(let id), .deleteZone(let id): id
        }
    }
}

/// Which zones a send or fetch is about; everything by default.
public enum ZoneScope: Hashable, Sendable {
    case all
    case zones(Set<ZoneID>)

    public func contains(_ zone: ZoneID) -> Bool {
        switch self {
        case .all: true
        case .zones(let zones): zones.contains(zone)
        }
    }
}

/// An ordered list of pending changes in which one item has at most one
/// intent: adding a save after a delete of the same ID (or the reverse)
/// replaces it in place, and adding it twice keeps one. Each item carries a
/// version, so a send removes only what it sent, not an intent re-added
/// meanwhile; an item removed and added again goes to the back. Adding and
/// removing cost one hash each, and reading in order none, so tens of
/// thousands of changes stay cheap.
struct PendingList<Item: Hashable & Sendable, Key: Hashable & Sendable>: Sendable {
    /// The items in order, nil where one was removed.
    private var slots: [Item?] = []
    /// Where `slots` starts to hold live items: a send removes from the front,
    /// and each batch must not walk again over what the last ones removed.
    private var start = 0
    private var entries: [Key: (version: Int, slot: Int)] = [:]
    private var counter = 0
    private let key: @Sendable (Item) -> Key

    init(key: @escaping @Sendable (Item) -> Key) { self.key = key }

    var items: [Item] { slots[start...].compactMap { $0 } }

    /// The first `limit` items that `isIncluded` accepts, in order, without building the whole list
    /// (a send asks for each batch; the whole list each time made a large send quadratic).
    func prefix(_ limit: Int, where isIncluded: (Item) -> Bool) -> [Item] {
        var found: [Item] = []
        guard limit > 0 else { return found }
        for case let item? in slots[start...] where isIncluded(item) {
            found.append(item)
            if found.count == limit { break }  // not a `where`: that would walk on over every item left
        }
        return found
    }

    var isEmpty: Bool { entries.isEmpty }

    var count: Int { entries.count }

    mutating func add(_ new: [Item]) {
        for item in new {
            counter += 1
            let k = key(item)
            if let i = entries.index(forKey: k) {
                let slot = entries.values[i].slot
                entries.values[i] = (counter, slot)
                slots[slot] = item
            } else {
                entries[k] = (counter, slots.count)
                slots.append(item)
            }
        }
    }

    mutating func remove(_ old: [Item]) {
        for item in old {
            if let i = entries.index(forKey: key(item)), slots[entries.values[i].slot] == item { remove(at: i) }
        }
        compact()
    }

    func version(of item: Item) -> Int? {
        guard let entry = entries[key(item)], slots[entry.slot] == item else { return nil }
        return entry.version
    }

    /// Removes `item` only if it was not added again since `version` (a version is never reused, so it names the item too).
    mutating func remove(_ item: Item, ifStillAt version: Int?) {
        guard let version, let i = entries.index(forKey: key(item)), entries.values[i].version == version else { return }
        remove(at: i)
        compact()
    }

    private mutating func remove(at index: Dictionary<Key, (version: Int, slot: Int)>.Index) {
        slots[entries.values[index].slot] = nil
        entries.remove(at: index)
    }

    /// Skips removed slots at the front, and drops removed slots once they are most of the list.
    private mutating func compact() {
        while start < slots.count, slots[start] == nil { start += 1 }
        guard slots.count > 2 * entries.count + 64 else { return }
        slots = slots[start...].filter { $0 != nil }
        start = 0
        for (slot, item) in slots.enumerated() { entries[key(item!)]?.slot = slot }
    }
}
