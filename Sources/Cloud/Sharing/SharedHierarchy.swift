import Foundation

/// Keeps hierarchical shares apart: a record belongs to at most one share.
enum SharedHierarchy {
    /// Refuses a parent change that would make a cycle, a hierarchy deeper
    /// than `RecordTable.maxDepth`, or put one shared hierarchy inside another.
    static func checkMove(_ db: any SQLTransaction, zone: Int64, zoneID: ZoneID, name: String, newParent: String?) throws {
        guard let newParent else { return }
        let above = try RecordTable.chain(db, zone: zone, from: newParent)
        if above.contains(name) {
            throw CloudError.invalidArguments("record \(name) cannot be its own ancestor")
        }
        if above.count + (try RecordTable.height(db, zone: zone, of: name)) > RecordTable.maxDepth {
            throw CloudError.invalidArguments("record \(name) would sit more than \(RecordTable.maxDepth) levels deep")
        }
        let roots = Set(try ShareTable.live(db, zone: zone).compactMap(\.root))
        guard let outer = above.first(where: roots.contains) else { return }
        let below = try RecordTable.descendants(db, zone: zone, of: [name])
        if let inner = below.first(where: roots.contains), inner != outer {
            throw CloudError.alreadyShared(RecordID(name: inner, zone: zoneID))
        }
    }

    /// Refuses a new share rooted at `root` when the root already belongs to
    /// a share, or the zone is shared as a whole.
    static func checkNewRoot(_ db: any SQLTransaction, zone: Int64, root: String, parent: String?, rootID: RecordID) throws {
        let shares = try ShareTable.live(db, zone: zone)
        if shares.contains(where: { $0.root == nil }) { throw CloudError.alreadyShared(rootID) }
        let roots = Set(shares.compactMap(\.root))
        guard !roots.isEmpty else { return }
        let above = [root] + (try parent.map { try RecordTable.chain(db, zone: zone, from: $0) } ?? [])
        let below = try RecordTable.descendants(db, zone: zone, of: [root])
        if above.contains(where: roots.contains) || below.contains(where: roots.contains) {
            throw CloudError.alreadyShared(rootID)
        }
    }
}
