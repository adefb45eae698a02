import Cloud
import Crypto
import Foundation
import Notes

/// eve in the app's simulation: an account with a published device key,
/// invited to shares like anyone, that runs no app and goes for the keys
/// with raw requests. She files key records of her own making in the shares
/// she may write (her own key as the newest generation, wrapped for every
/// device of the owner and the participants, so that a device trusting it
/// would seal with it), and tries to publish her device key as another
/// account's, so that owners would wrap notebook keys for her under that
/// account's name.
///
/// She also sends records of shapes the app never writes (`plantFields`).
///
/// What must hold: every envelope her key opens, in any key record she can
/// read, was filed for her own device key by the zone's owner (or is one she
/// planted); no location anyone sealed opens with a key she planted; no
/// other account's user record takes her key; and every zone still reads
/// whole, whatever she sent into it.
struct Intruder {
    let account: Account
    let keyring: Keyring
    /// The same cloud with faults off, to see what is there.
    let observer: any Cloud
    /// Keys she made and filed somewhere, to try on every sealed location.
    private(set) var planted: [SymmetricKey] = []
    /// The generations of each zone's key she opened at some step, from envelopes the owner filed for her.
    private(set) var held: [ZoneID: Set<String>] = [:]
    /// Posts whose fields she wrote over (`plantFields`), for the simulation to count their words as removed.
    var overwritten: [RecordID] = []

    init(account: Account, keyring: Keyring, observer: any Cloud) {
        self.account = account
        self.keyring = keyring
        self.observer = observer
    }

    /// Joins every share she can, then one raw request drawn from `random`; returns a note for the log and what it found.
    mutating func attack(_ cloud: any Cloud, accounts: [Account], links: [ShareURL], random: SeededRandom) throws -> (note: String, violations: [String]) {
        // Her account and device key, as her app would keep them after the cloud was emptied or put back.
        _ = try? cloud.restoreAccount(account)
        try? keyring.publish()
        for link in links { _ = try? cloud.acceptShare(link, as: account) }
        let victims = accounts.filter { $0.id != account.id }
        if random.below(4) == 0, !victims.isEmpty {
            return try forgeDeviceKeys(of: victims[random.below(victims.count)], cloud)
        }
        if random.below(2) == 0 { return try plantFields(cloud, random: random) }
        return try plantKeys(cloud, accounts: accounts, random: random)
    }

    /// What must hold after any step: every envelope she opens was filed for her by the owner, or by her.
    func checkEnvelopes() throws -> [String] {
        var violations: [String] = []
        let shared = observer.database(.shared, as: account)
        for zone in try shared.allZones() {
            for record in Self.everyRecord(in: zone, of: shared) where record.type == Keyring.keyRecordType {
                let filer = record.system?.modifiedBy
                guard filer != account.id else { continue }  // her own plant
                for opened in keyring.envelopesOpened(in: record, zone: zone) where opened.name != keyring.envelopeName {
                    violations.append("\(account.name)'s key opens the envelope filed for \(opened.name) in \(record.id) (filed by \(filer ?? "?"))")
                }
            }
        }
        return violations
    }

    /// What must hold at any step: no sealed location of any owner opens with a key she planted. Also counts
    /// the locations she reads with keys filed for her, which shows the opening here works, and notes the
    /// generations she holds (see `checkRotation`).
    mutating func checkLocations(owners: [Account]) throws -> (violations: [String], readable: Int) {
        var violations: [String] = []
        var readable = 0
        for owner in owners where owner.id != account.id {
            let mine = observer.database(.private, as: owner)
            for zone in try mine.allZones() {
                let records = Self.everyRecord(in: zone, of: mine)
                let opened = records.filter { $0.type == Keyring.keyRecordType && $0.system?.modifiedBy != account.id }
                    .flatMap { keyring.envelopesOpened(in: $0, zone: zone) }.filter { $0.name == keyring.envelopeName }
                held[zone, default: []].formUnion(opened.map(\.generation))
                let granted = opened.map(\.key)
                for record in records {
                    guard let sealed = record.encrypted(Self.locationField) else { continue }
                    if granted.contains(where: { Sealing.open(sealed, key: $0, record: record.id) != nil }) { readable += 1 }
                    if planted.contains(where: { Sealing.open(sealed, key: $0, record: record.id) != nil }) {
                        violations.append("the location of \(record.id) (by \(record.system?.modifiedBy ?? "?")) is sealed with a key \(account.name) planted")
                    }
                }
            }
        }
        return (violations, readable)
    }

    /// What must hold once every device settled: in a zone where the owner removed her from a share and she
    /// takes part in none, the zone's key was rotated: she kept the generations she held, but the newest,
    /// which seals from now on, is not one of them.
    func checkRotation(owners: [Account]) throws -> [String] {
        var violations: [String] = []
        for owner in owners where owner.id != account.id {
            let mine = observer.database(.private, as: owner)
            for zone in try mine.allZones() {
                guard let held = held[zone], !held.isEmpty else { continue }
                let records = Self.everyRecord(in: zone, of: mine)
                let her = records.filter { $0.type == Share.recordType }.compactMap { try? Share(record: $0) }
                    .flatMap(\.participants).filter { $0.userRecordID == account.id }
                guard her.contains(where: { $0.status == .removed }), her.allSatisfy({ $0.status == .removed }),
                      let own = records.first(where: { $0.id.name == "keys" && $0.type == Keyring.keyRecordType }),
                      let newest = Self.generations(in: own).last, held.contains(newest.id) else { continue }
                violations.append("\(owner.name) removed \(account.name) from \(zone), and its newest key \(newest.id) is one she held")
            }
        }
        return violations
    }

    /// The field a post's sealed location travels in, as the app writes it.
    private static let locationField = "location"

    // MARK: Attacks

    /// Her device key published as another account's: the cloud must refuse it.
    private func forgeDeviceKeys(of victim: Account, _ cloud: any Cloud) throws -> (note: String, violations: [String]) {
        var record = Record(type: Keyring.publicKeyType, id: RecordID(name: victim.id, zone: ZoneID(name: ZoneID.defaultName)))
        record["devices"] = .bytes(try JSONEncoder().encode([keyring.keyID: keyring.publicKey.rawRepresentation]))
        let note = " publish her device key as \(victim.name)'s"
        guard (try? cloud.database(.public, as: account).save(record, policy: .allKeys)) != nil else { return (note, []) }
        return (note, ["\(account.name) published her device key as \(victim.name)'s"])
    }

    /// A key of her own, filed as the newest generation of a key record (or a new one beside a post) in a
    /// zone she sees, wrapped for every device key of the owner and of everyone in the zone's shares.
    private mutating func plantKeys(_ cloud: any Cloud, accounts: [Account], random: SeededRandom) throws -> (note: String, violations: [String]) {
        let shared = observer.database(.shared, as: account)
        let zones = try shared.allZones().sorted { $0.description < $1.description }
        guard !zones.isEmpty else { return ("", []) }
        let zone = zones[random.below(zones.count)]
        let records = Self.everyRecord(in: zone, of: shared)
        // The key records she sees (those devices seal with), now and then a new one beside a post.
        let existing = records.filter { $0.type == Keyring.keyRecordType }.map(\.id.name)
        let posts = records.filter { $0.type == Post.recordType }.map { "keys-" + $0.id.name }
        let targets = existing.isEmpty || random.below(4) == 0 ? existing + posts + ["keys"] : existing
        let name = targets[random.below(targets.count)]
        var recipients: [String: Curve25519.KeyAgreement.PublicKey] = [:]
        for other in accounts where other.id != account.id {
            for (keyID, key) in deviceKeys(of: other) { recipients["\(other.id)/\(keyID)"] = key }
        }
        recipients[keyring.envelopeName] = keyring.publicKey
        let key = SymmetricKey(size: .bits256)
        let id = RecordID(name: name, zone: zone)
        var record = records.first { $0.id == id } ?? Record(type: Keyring.keyRecordType, id: id)
        var generations = Self.generations(in: record)
        generations.append(KeyGeneration(id: "eve-\(random.below(1_000_000))",
                                         envelopes: try recipients.mapValues { try Sealing.wrap(key, for: $0, zone: zone) }))
        record["generations"] = .bytes(try JSONEncoder().encode(generations))
        guard keyring.envelopesOpened(in: record, zone: zone).contains(where: { $0.key == key }) else {
            throw SimulationFailure("eve's planted key record does not read as a key record: the app's format changed")
        }
        planted.append(key)
        let saved = (try? cloud.database(.shared, as: account).save(record, policy: .allKeys)) != nil
        return (" plant a key in \(id) for \(recipients.count)\(saved ? "" : " (refused)")", [])
    }

    /// A generation of a key record, as the app files them (field `generations`, JSON).
    private struct KeyGeneration: Codable {
        var id: String
        var envelopes: [String: Data]
    }

    private static func generations(in record: Record) -> [KeyGeneration] {
        guard case .bytes(let data)? = record["generations"] else { return [] }
        return (try? JSONDecoder().decode([KeyGeneration].self, from: data)) ?? []
    }

    /// Every record of the zone the database shows, or none once access has ended.
    static func everyRecord(in zone: ZoneID, of db: CloudDatabase) -> [Record] { (try? db.everyRecord(in: zone)) ?? [] }

    private func deviceKeys(of other: Account) -> [String: Curve25519.KeyAgreement.PublicKey] {
        let id = RecordID(name: other.id, zone: ZoneID(name: ZoneID.defaultName))
        guard let record = try? observer.database(.public, as: account).record(id), case .bytes(let data)? = record["devices"],
              let raw = try? JSONDecoder().decode([String: Data].self, from: data) else { return [:] }
        return raw.compactMapValues { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
    }
}

/// The simulation could not do what it meant to (not a finding about the app).
struct SimulationFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
