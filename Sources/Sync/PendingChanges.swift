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
/// replaces it, and adding it twice keeps one. Each item carries a version,
/// so a send removes only what it sent, not an intent re-added meanwhile.
/// Adding and removing cost O(1), so tens of thousands of changes stay cheap.
struct PendingList<Item: Hashable & Sendable, Key: Hashable & Sendable>: Sendable {
    private var order: [Key] = []
    /// Where `order` starts to hold live keys: a send removes from the front,
    /// and each batch must not walk again over what the last ones removed.
    private var start = 0
    private var ordered: Set<Key> = []
    private var entries: [Key: (item: Item, version: Int)] = [:]
    private var counter = 0
    private let key: @Sendable (Item) -> Key

    init(key: @escaping @Sendable (Item) -> Key) { self.key = key }

    var items: [Item] { order[start...].compactMap { entries[$0]?.item } }

    /// The first `limit` items that `isIncluded` accepts, in order, without building the whole list
    /// (a send asks for each batch; the whole list each time made a large send quadratic).
    func prefix(_ limit: Int, where isIncluded: (Item) -> Bool) -> [Item] {
        var found: [Item] = []
        for k in order[start...] where found.count < limit {
            if let item = entries[k]?.item, isIncluded(item) { found.append(item) }
        }
        return found
    }

    var isEmpty: Bool { entries.isEmpty }

    var count: Int { entries.count }

    mutating func add(_ new: [Item]) {
        for item in new {
            let k = key(item)
            counter += 1
            entries[k] = (item, counter)
            if ordered.insert(k).inserted { order.append(k) }
        }
    }

    mutating func remove(_ old: [Item]) {
        for item in old where entries[key(item)]?.item == item { entries[key(item)] = nil }
        compact()
    }

    func version(of item: Item) -> Int? {
        entries[key(item)].flatMap { $0.item == item ? $0.version : nil }
    }

    /// Removes `item` only if it was not added again since `version`.
    mutating func remove(_ item: Item, ifStillAt version: Int?) {
        guard let version, self.version(of: item) == version else { return }
        entries[key(item)] = nil
        compact()
    }

    /// Skips removed keys at the front, and drops removed keys from the order once they are most of it.
    private mutating func compact() {
        while start < order.count, entries[order[start]] == nil {
            ordered.remove(order[start])  // added again, it goes to the back
            start += 1
        }
        guard order.count > 2 * entries.count + 64 else { return }
        order = order[start...].filter { entries[$0] != nil }
        ordered = Set(order)
        start = 0
    }
}
