import Cloud
import Crypto
import Foundation

/// A record holding a zone's keys: generations, each one random key wrapped
/// (an envelope) for every device key allowed to open it. A zone gets a new
/// generation when a device that must seal finds none it can open (two
/// devices made the first key at once, a keychain was lost): nothing waits
/// for a key. Every generation stays, so what an older one sealed still
/// opens; devices of the owner wrap each generation they hold for every
/// device key that lacks it (`Keyring.repair`), so all of them converge.
struct ZoneKeys: Equatable {
    struct Generation: Codable, Equatable {
        var id: String
        /// Envelopes by "USER/KEYID" (a device key of an account), or "USER" as written before device keys.
        var envelopes: [String: Data]
        /// The accounts removed from the zone's shares when this generation was made, which it was made to shut out:
        /// a removed participant this list lacks may hold it (an older copy of the record put back lost the envelopes
        /// that would say so), and the owner's devices make a new one (`DeviceStore.repairKeyGrants`).
        var excludes: [String]? = nil
    }

    var generations: [Generation]

    static let recordType = "ZoneKeys"
    private static let field = "generations", legacyField = "envelopes"

    /// The key record of a zone (owner only) or of one share (inside its hierarchy, so its participants see it).
    static func recordID(zone: ZoneID, root: String?) -> RecordID {
        RecordID(name: root.map { "keys-" + $0 } ?? "keys", zone: zone)
    }

    init(generations: [Generation] = []) { self.generations = generations }

    /// The generations a record holds; a record from before generations holds one. One whose field does not read
    /// holds none, like a record someone else wrote over: the writers (`Keyring.grant`, `addGeneration`) then put
    /// back every generation their device holds, so what was sealed keeps opening, and readers open nothing of it.
    init(record: Record) {
        if case .bytes(let data)? = record[Self.field], let generations = try? JSONDecoder().decode([Generation].self, from: data) {
            self.generations = generations
        } else if case .bytes(let data)? = record[Self.legacyField], let envelopes = try? JSONDecoder().decode([String: Data].self, from: data) {
            generations = [Generation(id: "first", envelopes: envelopes)]
        } else {
            generations = []
        }
    }

    func write(into record: inout Record) throws {
        record[Self.field] = .bytes(try JSONEncoder().encode(generations))
        if record[Self.legacyField] != nil { record[Self.legacyField] = nil }
    }

    static func envelopeName(user: String, key: String) -> String { "\(user)/\(key)" }

    /// Puts the generations in the order `ids` names them (oldest first), those it does not name first.
    mutating func order(like ids: [String]) {
        let rank = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        generations = generations.filter { rank[$0.id] == nil } + generations.filter { rank[$0.id] != nil }.sorted { rank[$0.id]! < rank[$1.id]! }
    }
}
