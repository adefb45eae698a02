import Cloud
import Crypto
import Foundation
import Notes
import Sync
import Testing
import TestSupport

/// Zone keys recover: devices with keychains of their own (two data
/// directories of one account, a lost keychain, a participant's new device)
/// converge on keys they can all open, and no change waits forever.
@Suite struct ZoneKeyTests {
    let test: TestCloud
    let heather: Account
    let dir = TemporaryDirectory("keys")

    init() throws {
        test = try TestCloud()
        heather = try test.cloud.createAccount(name: "heather")
    }

    /// A device of `account` whose keys live in `keychain` (a folder of their own: another data directory).
    func device(_ name: String, keychain: String, account: Account? = nil, publish: Bool = true) throws -> NotesSync {
        let account = account ?? heather
        let store = try DeviceStore(directory: dir.path(name))
        store.keyring = try Keyring(directory: dir.path(keychain), account: account, cloud: test.cloud)
        if publish { try store.keyring?.publish() }
        _ = try store.ensureDefaultNotebook(owner: account.id)
        return try NotesSync(store: store, cloud: test.cloud, account: FixedAccount(account))
    }

    func post(_ id: String, at place: String, on device: NotesSync) throws {
        let notes = try #require(try device.store.notebooks().first { $0.scope == .private })
        try device.store.save(Post(id: id, zone: notes.zone, title: id, location: place), by: device.account.currentAccount()!.id, now: Date())
    }

    /// The owner's device, after heather posted p1 at Hanoi and shared it read-write with mary, who accepted.
    func ownerSharingWithMary() throws -> (owner: NotesSync, mary: Account) {
        let owner = try device("owner", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary")
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        let shared = try PostSharing(store: owner.store, cloud: test.cloud, account: heather)
            .share(try owner.store.post("p1"), inviting: ["mary"], permission: .readWrite)
        guard case .shared(let url) = shared else { throw ShareFailure(description: "not shared: \(shared)") }
        _ = try test.cloud.acceptShare(url, as: mary)
        return (owner, mary)
    }

    /// heather's two devices (one keychain) after she posted p1 at Hanoi and shared her notebook Notes as a
    /// whole with mary, read-write: mary may write the notebook's own key record.
    func notebookSharedWholeWithMary() throws -> (owner: NotesSync, laptop: NotesSync, mary: Account) {
        let owner = try device("owner", keychain: "keychain-owner")
        let laptop = try device("laptop", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary")
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        let url = try PostSharing(store: owner.store, cloud: test.cloud, account: heather)
            .share(notebook: "Notes", inviting: ["mary"], permission: .readWrite)
        _ = try test.cloud.acceptShare(url, as: mary)
        try settle([owner, laptop])
        return (owner, laptop, mary)
    }

    struct ShareFailure: Error, CustomStringConvertible { var description: String }

    /// Mary's phone, granted the notebook's key by the owner's device, holding the shared post with its location open.
    func marysPhone(sharedBy owner: NotesSync, mary: Account) throws -> NotesSync {
        let phone = try device("mary-phone", keychain: "keychain-mary", account: mary)
        try owner.syncNow()  // grants the phone's key
        try phone.syncNow()
        #expect(try phone.store.post("p1").location == "Hanoi")
        return phone
    }

    /// `account` types `place` as the location of post `id` on `device`, over the copy it holds.
    func typeLocation(_ place: String, into id: String, on device: NotesSync, as account: Account, device name: String) throws {
        var edited = try device.store.post(id)
        let base = edited.fields
        edited.location = place
        _ = try device.store.saveEdit(edited, from: base, by: Editor(account: account, device: name), now: Date())
    }

    func settle(_ devices: [NotesSync]) throws {
        for _ in 0..<3 { for device in devices { try device.syncNow() } }
    }

    /// A device key file that does not read is said, never replaced by a new key (which would lock out
    /// everything wrapped for the old one); one that is absent is made, and then read again the same.
    @Test func aDamagedDeviceKeyIsNeverReplaced() throws {
        let folder = dir.path("keychain-damaged")
        let first = try Keyring(directory: folder, account: heather, cloud: test.cloud)
        #expect(try Keyring(directory: folder, account: heather, cloud: test.cloud).keyID == first.keyID)
        let file = folder.appendingPathComponent("\(heather.id).key")
        let whole = try Data(contentsOf: file)
        try whole.prefix(7).write(to: file)  // a crash mid-copy, a bad sector
        #expect(throws: StoreError.self) { try Keyring(directory: folder, account: heather, cloud: self.test.cloud) }
        #expect(try Data(contentsOf: file) == whole.prefix(7))
        try whole.write(to: file)
        #expect(try Keyring(directory: folder, account: heather, cloud: test.cloud).keyID == first.keyID)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [file.lastPathComponent])
    }

    @Test func twoKeychainsPostingBeforeEitherSyncedConverge() throws {
        let a = try device("a", keychain: "keychain-a"), b = try device("b", keychain: "keychain-b")
        try post("pa", at: "Hanoi", on: a)
        try post("pb", at: "Hue", on: b)
        try settle([a, b])
        for device in [a, b] {
            #expect(try device.store.pendingCount() == 0)
            #expect(try device.store.syncStatus().lastError == nil)
            #expect(try device.store.post("pa").location == "Hanoi")
            #expect(try device.store.post("pb").location == "Hue")
        }
        let dump = String(decoding: try JSONEncoder().encode(try test.cloud.dump()), as: UTF8.self)
        #expect(!dump.contains("Hanoi") && !dump.contains("Hue"), "locations reach the cloud sealed only")
    }

    @Test func aDeviceThatLostItsKeychainIsGrantedTheKeyAndNeverWaitsToSeal() throws {
        let a = try device("a", keychain: "keychain-a")
        try post("old", at: "Hanoi", on: a)
        try a.syncNow()
        // A new keychain (the old one lost): it cannot open the zone's key, yet its own location goes out.
        let b = try device("b", keychain: "keychain-new")
        try b.syncNow()
        try post("new", at: "Da Lat", on: b)
        try b.syncNow()
        #expect(try b.store.pendingCount() == 0)
        try settle([a, b])  // a's next sync grants b what a holds, and b grants a its new generation
        for device in [a, b] {
            #expect(try device.store.post("old").location == "Hanoi")
            #expect(try device.store.post("new").location == "Da Lat")
        }
    }

    @Test func aParticipantsNewDeviceIsGrantedTheSharedKeyByTheOwnersNextSync() throws {
        let owner = try device("owner", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary")
        let first = try device("mary-1", keychain: "keychain-mary", account: mary)
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: heather)
        guard case .shared(let url) = try sharing.share(try owner.store.post("p1"), inviting: ["mary"], permission: .readWrite) else {
            Issue.record("not shared"); return
        }
        _ = try test.cloud.acceptShare(url, as: mary)
        try first.syncNow()
        #expect(try first.store.post("p1").location == "Hanoi")

        let second = try device("mary-2", keychain: "keychain-mary-new", account: mary)
        try second.syncNow()
        #expect(try second.store.post("p1").location == nil, "not granted yet")
        try owner.syncNow()
        try second.syncNow()
        #expect(try second.store.post("p1").location == "Hanoi")
    }

    /// Its key missing from the cloud (its publish failed; the cloud was emptied and rebuilt without it), a
    /// participant's device publishes it on its next sync, so the owner's devices can grant it the notebook's key.
    @Test func aParticipantsUnpublishedKeyIsPublishedBySyncAndThenGranted() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try device("mary-phone", keychain: "keychain-mary-phone", account: mary, publish: false)
        try phone.syncNow()
        #expect(try phone.store.post("p1").location == nil, "not granted yet")
        try owner.syncNow()
        try phone.syncNow()
        #expect(try phone.store.post("p1").location == "Hanoi")
    }

    /// A location a participant typed before the cloud was put back to an older copy survives the rebuild:
    /// while the device merges with what the cloud holds, it still opens what the keys it knew sealed.
    @Test func aParticipantsTypedLocationSurvivesTheCloudPutBack() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try marysPhone(sharedBy: owner, mary: mary)
        let tampering = CloudTampering(directory: test.directory.url)
        let backup = try tampering.snapshot()
        try post("p2", at: "Hue", on: owner)
        try owner.syncNow()  // the cloud moves on, then is put back
        try typeLocation("Saigon", into: "p1", on: phone, as: mary, device: "phone")
        try tampering.restore(backup)

        #expect(throws: SyncError.self) { try phone.syncNow() }
        try phone.reupload()
        let location = try phone.store.post("p1").location ?? "-"
        #expect(location.contains("Saigon") && location.contains("Hanoi"), "both kept: \(location)")
    }

    /// A location a participant wrote with raw requests, sealed with no key of the notebook's, never opens; the
    /// owner's device, which holds every key, takes what its person types over it instead of waiting for ever.
    @Test func aLocationSealedWithNoKeyOfTheNotebooksGivesWayToTheOwners() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try marysPhone(sharedBy: owner, mary: mary)
        let id = try owner.store.post("p1").recordID
        var planted = try test.cloud.database(.shared, as: mary).record(id)
        planted.setEncrypted("location", Data((0..<40).map { UInt8($0) }))
        _ = try test.cloud.database(.shared, as: mary).save(planted, policy: .allKeys)
        try owner.syncNow()

        try typeLocation("Fixed", into: "p1", on: owner, as: heather, device: "owner")
        try owner.syncNow()
        #expect(try owner.store.pendingCount() == 0)
        #expect(try owner.store.syncStatus().lastError == nil)
        try phone.syncNow()
        #expect(try phone.store.post("p1").location == "Fixed")
    }

    /// A read-write participant can write the share's key record (it sits inside the share); a key planted
    /// there is never used by the owner's devices to seal, and their next sync writes the record again.
    @Test func aKeyPlantedByAParticipantIsNeverUsedToSeal() throws {
        let (owner, mary) = try ownerSharingWithMary()
        try owner.syncNow()
        let user = try test.cloud.database(.public, as: mary).record(RecordID(name: heather.id, zone: ZoneID(name: ZoneID.defaultName)))
        guard case .bytes(let published)? = user["devices"] else { Issue.record("no published key"); return }
        let devices = try JSONDecoder().decode([String: Data].self, from: published)
        let evil = SymmetricKey(size: .bits256)
        var envelopes: [String: Data] = [:]
        for (keyID, raw) in devices {
            envelopes["\(heather.id)/\(keyID)"] = try Sealing.wrap(evil, for: try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw),
                                                                 zone: try owner.store.post("p1").zone)
        }
        let planted = try JSONSerialization.data(withJSONObject: [["id": "evil", "envelopes": envelopes.mapValues { $0.base64EncodedString() }]])
        let marysView = test.cloud.database(.shared, as: mary)
        let zone = try owner.store.post("p1").zone
        var keys = try marysView.record(RecordID(name: "keys-p1", zone: zone))
        keys["generations"] = .bytes(planted)
        try marysView.save(keys)

        try owner.syncNow()  // fetches the planted record, and writes it again
        try post("p2", at: "Secret", on: owner)
        try owner.syncNow()
        let sealed = try test.cloud.database(.private, as: heather).record(RecordID(name: "p2", zone: zone)).encrypted("location")
        #expect(sealed != nil && Sealing.open(sealed!, key: evil, record: RecordID(name: "p2", zone: zone)) == nil,
                "sealed with a key mary planted")
        let again = try test.cloud.database(.private, as: heather).record(RecordID(name: "keys-p1", zone: zone))
        #expect(again.system?.modifiedBy == heather.id)
        guard case .bytes(let generations)? = again["generations"] else { Issue.record("no generations"); return }
        #expect(!String(decoding: generations, as: UTF8.self).contains("evil"))
    }

    /// A read-write participant of a notebook shared as a whole can write over the zone's own key record.
    /// The owner's devices never seal with what they put there, and no generation is lost: a device that
    /// held the record keeps opening what it sealed, and puts back what a device that never held it wrote
    /// again without (as the oldest: the newest is what seals), so every device opens the old locations.
    @Test func aZoneKeyRecordWrittenOverByAParticipantLosesNoGeneration() throws {
        let (owner, laptop, mary) = try notebookSharedWholeWithMary()
        #expect(try laptop.store.post("p1").location == "Hanoi")
        let keysID = RecordID(name: "keys", zone: try owner.store.post("p1").zone)
        func generations() throws -> [String] {
            guard case .bytes(let data)? = try test.cloud.database(.private, as: heather).record(keysID)["generations"],
                  let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
            return list.compactMap { $0["id"] as? String }
        }
        let sealing = try #require(try generations().last)

        let marysView = test.cloud.database(.shared, as: mary)
        var keys = try marysView.record(keysID)
        keys["generations"] = .bytes(Data("[]".utf8))
        try marysView.save(keys)
        // A new device of the owner's syncs first: it holds no generation, and writes the record again with a new one.
        let tablet = try device("tablet", keychain: "keychain-owner")
        try tablet.syncNow()
        let rebuilt = try generations()
        #expect(!rebuilt.contains(sealing))

        try owner.syncNow()  // holds the generation that sealed p1: puts it back
        #expect(try generations() == [sealing] + rebuilt, "the old generation put back as the oldest")
        try laptop.syncNow()
        #expect(try laptop.store.post("p1").location == "Hanoi", "the laptop lost the generation that sealed it")
        try tablet.syncNow()
        #expect(try tablet.store.post("p1").location == "Hanoi", "the record written again lacks the old generation")
        let phone = try device("mary-phone", keychain: "keychain-mary", account: mary)
        try settle([phone, owner, phone])
        #expect(try phone.store.post("p1").location == "Hanoi", "the participant lost the old generation")
        try post("p2", at: "Hue", on: owner)
        try settle([owner, laptop, tablet, phone])
        for device in [laptop, tablet, phone] { #expect(try device.store.post("p2").location == "Hue") }
    }

    /// The same participant deletes the zone's key record instead: devices that held it keep opening what it
    /// sealed, and the owner writes it again with every generation, so a new device opens the old locations.
    @Test func aZoneKeyRecordDeletedByAParticipantLosesNoGeneration() throws {
        let (owner, laptop, mary) = try notebookSharedWholeWithMary()
        try test.cloud.database(.shared, as: mary).delete(RecordID(name: "keys", zone: try owner.store.post("p1").zone))

        try laptop.syncNow()
        #expect(try laptop.store.post("p1").location == "Hanoi", "the laptop forgot the generation with the record")
        try settle([owner, laptop])
        let tablet = try device("tablet", keychain: "keychain-owner")
        try tablet.syncNow()
        #expect(try tablet.store.post("p1").location == "Hanoi", "the record written again lacks the old generation")
    }

    /// A share ended while a device of the owner's was away long enough for the cloud to forget the deletion:
    /// the fetch from scratch that follows drops the share and its key record there too, so that device does
    /// not grant the ended share's participant each new key while another rotates it away from her.
    @Test func aShareEndedWhileADeviceWasAwayIsDroppedByItsFetchFromScratch() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let laptop = try device("laptop", keychain: "keychain-owner")
        _ = try marysPhone(sharedBy: owner, mary: mary)
        try settle([owner, laptop])
        #expect(try laptop.store.share(for: try laptop.store.post("p1")) != nil)
        try PostSharing(store: owner.store, cloud: test.cloud, account: heather).stopSharing(try owner.store.post("p1"))
        try owner.syncNow()
        test.clock.advance(by: 3600)
        _ = try test.cloud.purgeTombstones(olderThan: 60)

        try settle([laptop, owner])  // the laptop's token has expired: it fetches from scratch
        #expect(try laptop.store.share(for: try laptop.store.post("p1")) == nil, "the ended share stays on the laptop")
        let keys = RecordID(name: "keys", zone: try owner.store.post("p1").zone)
        let before = try generations(keys)
        try settle([owner, laptop, owner, laptop])
        #expect(try generations(keys) == before, "the key keeps rotating")
    }

    /// A share's key record whose newest generation is not the zone's (written so by an earlier version) is
    /// put back in the zone's order by the owner's next sync.
    @Test func aShareRecordOutOfTheZonesOrderIsPutInOrder() throws {
        let (owner, mary) = try ownerSharingWithMary()
        _ = try marysPhone(sharedBy: owner, mary: mary)
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: heather)
        _ = try device("zoe-phone", keychain: "keychain-zoe", account: try test.cloud.createAccount(name: "zoe"))  // her key published
        _ = try sharing.share(try owner.store.post("p1"), inviting: ["zoe"], permission: .readOnly)
        try sharing.removeParticipant(email: try test.cloud.account(named: "zoe").email, from: try owner.store.post("p1"))
        try settle([owner])  // zoe was invited and removed: the key rotates, two generations
        let zone = try owner.store.post("p1").zone
        let shareKeys = RecordID(name: "keys-p1", zone: zone)
        #expect(try generations(RecordID(name: "keys", zone: zone)).count == 2)
        let db = test.cloud.database(.private, as: heather)
        var record = try db.record(shareKeys)
        guard case .bytes(let data)? = record["generations"], let list = try JSONSerialization.jsonObject(with: data) as? [Any] else {
            Issue.record("no generations"); return
        }
        record["generations"] = .bytes(try JSONSerialization.data(withJSONObject: Array(list.reversed())))
        try db.save(record)
        #expect(try generations(shareKeys) != (try generations(RecordID(name: "keys", zone: zone))))

        try settle([owner])
        #expect(try generations(shareKeys) == (try generations(RecordID(name: "keys", zone: zone))))
    }

    /// The generation IDs of a key record of heather's, oldest first.
    func generations(_ id: RecordID) throws -> [String] {
        guard case .bytes(let data)? = try test.cloud.database(.private, as: heather).record(id)["generations"],
              let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list.compactMap { $0["id"] as? String }
    }

    /// A generation put back into the zone's key record goes into a share's record in the zone's order: the
    /// share's newest (the one its participants seal with) stays the zone's newest, not the old one put back.
    @Test func aGenerationPutBackIsTheOldestInAShareRecordToo() throws {
        let a = try device("a", keychain: "keychain-owner")
        try post("p1", at: "Hanoi", on: a)
        try a.syncNow()
        try CloudTampering(directory: test.directory.url).empty()
        // A new data directory of heather's rebuilds first: a key of its own, a post shared with mary.
        _ = try test.cloud.restoreAccount(heather)
        let mary = try test.cloud.createAccount(name: "mary")
        let b = try device("b", keychain: "keychain-owner")
        try post("p2", at: "Hue", on: b)
        try b.syncNow()
        guard case .shared(let url) = try PostSharing(store: b.store, cloud: test.cloud, account: heather)
            .share(try b.store.post("p2"), inviting: ["mary"], permission: .readWrite) else { Issue.record("not shared"); return }
        _ = try test.cloud.acceptShare(url, as: mary)
        // a holds the generation that sealed p1, and puts it back.
        #expect(throws: SyncError.self) { try a.syncNow() }
        try a.reupload()
        try settle([a, b])
        let zone = try a.store.post("p1").zone
        let own = try generations(RecordID(name: "keys", zone: zone)), shared = try generations(RecordID(name: "keys-p2", zone: zone))
        #expect(own.count >= 2 && Set(shared) == Set(own), "\(own) \(shared)")
        #expect(shared.last == own.last, "the share's newest is \(shared.last ?? "-"), the zone's \(own.last ?? "-")")
        for device in [a, b] { #expect(try device.store.post("p1").location == "Hanoi") }
    }

    /// Every key `account` (its device key in `keychain`) opens in the key record `id`, as it reads it now.
    func keysHeld(by account: Account, keychain: String, in id: RecordID) throws -> [SymmetricKey] {
        let key = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(contentsOf: dir.path(keychain).appendingPathComponent("\(account.id).key")))
        let record = try test.cloud.database(.shared, as: account).record(id)
        guard case .bytes(let data)? = record["generations"],
              let generations = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return generations.flatMap { ($0["envelopes"] as? [String: String] ?? [:]).filter { $0.key.hasPrefix(account.id) }.values }
            .compactMap { Data(base64Encoded: $0).flatMap { Sealing.unwrap($0, with: key, zone: id.zone) } }
    }

    /// The owner stops sharing: its participants kept the keys they held, so the notebook's key rotates as it
    /// does when one is removed, and a location sealed after it opens with none of them.
    @Test func aShareThatEndedRotatesTheKeyItsParticipantsHeld() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try marysPhone(sharedBy: owner, mary: mary)
        let zone = try owner.store.post("p1").zone
        let held = try keysHeld(by: mary, keychain: "keychain-mary", in: RecordID(name: "keys-p1", zone: zone))
        #expect(!held.isEmpty)

        try PostSharing(store: owner.store, cloud: test.cloud, account: heather).stopSharing(try owner.store.post("p1"))
        try settle([owner, phone])
        try post("p2", at: "Secret", on: owner)
        try owner.syncNow()
        let id = RecordID(name: "p2", zone: zone)
        let sealed = try #require(try test.cloud.database(.private, as: heather).record(id).encrypted("location"))
        #expect(held.allSatisfy { Sealing.open(sealed, key: $0, record: id) == nil }, "opens with a key mary held")
        #expect(try owner.store.post("p1").location == "Hanoi", "the owner still opens what the old key sealed")
    }

    /// A participant who held the newest key writes over the share's key record, and is removed before the
    /// owner's devices sync again: the record no longer shows what she was granted, yet the key still rotates
    /// (the version written over is kept, envelopes and all, even when another participant's overwrite had
    /// already kept one with the same generations).
    @Test func aParticipantWhoWroteOverHerEnvelopesBeforeBeingRemovedStillCausesARotation() throws {
        let owner = try device("owner", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary"), zoe = try test.cloud.createAccount(name: "zoe")
        let phone = try device("mary-phone", keychain: "keychain-mary", account: mary)
        _ = try device("zoe-phone", keychain: "keychain-zoe", account: zoe)
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: heather)
        guard case .shared(let url) = try sharing.share(try owner.store.post("p1"), inviting: ["zoe"], permission: .readWrite)
        else { Issue.record("not shared"); return }
        _ = try test.cloud.acceptShare(url, as: zoe)
        let zone = try owner.store.post("p1").zone, keysID = RecordID(name: "keys-p1", zone: zone)
        func writeOver(as account: Account) throws {
            var keys = try test.cloud.database(.shared, as: account).record(keysID)
            keys["generations"] = .bytes(Data("[]".utf8))
            try test.cloud.database(.shared, as: account).save(keys)
        }
        try owner.syncNow()
        try writeOver(as: zoe)  // the owner keeps the version zoe wrote over, and writes it again
        try owner.syncNow()
        _ = try sharing.share(try owner.store.post("p1"), inviting: ["mary"], permission: .readWrite)
        _ = try test.cloud.acceptShare(url, as: mary)
        try settle([owner, phone])
        let held = try keysHeld(by: mary, keychain: "keychain-mary", in: keysID)
        #expect(!held.isEmpty)

        try writeOver(as: mary)
        try sharing.removeParticipant(email: mary.email, from: try owner.store.post("p1"))
        try owner.syncNow()
        try post("p2", at: "Secret", on: owner)
        try owner.syncNow()
        let id = RecordID(name: "p2", zone: zone)
        let sealed = try #require(try test.cloud.database(.private, as: heather).record(id).encrypted("location"))
        #expect(held.allSatisfy { Sealing.open(sealed, key: $0, record: id) == nil }, "opens with a key mary held")
    }

    /// The cloud is put back to a copy from before mary's envelopes were written, and another client (the console, a
    /// raw request) removes her: no record shows what she held, yet the owner's next sync rotates the key, for she
    /// was removed and the newest generation was not made to shut her out.
    @Test func aRemovedParticipantWhoseEnvelopesAPutBackCopyLostStillCausesARotation() throws {
        // heather's laptop shares p1 with mary and grants her the key; her other device never sees that grant.
        let owner = try device("owner", keychain: "keychain-owner"), laptop = try device("laptop", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary")
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        try laptop.syncNow()
        let shared = try PostSharing(store: laptop.store, cloud: test.cloud, account: heather)
            .share(try laptop.store.post("p1"), inviting: ["mary"], permission: .readWrite)
        guard case .shared(let url) = shared else { throw ShareFailure(description: "not shared: \(shared)") }
        _ = try test.cloud.acceptShare(url, as: mary)
        _ = try marysPhone(sharedBy: laptop, mary: mary)
        let zone = try owner.store.post("p1").zone, db = test.cloud.database(.private, as: heather)
        let held = try keysHeld(by: mary, keychain: "keychain-mary", in: RecordID(name: "keys-p1", zone: zone))
        #expect(!held.isEmpty)
        // A copy put back from before her grants: the share's key record without her envelopes. Then another
        // client (the console, a raw request) removes her.
        var shareKeys = try db.record(RecordID(name: "keys-p1", zone: zone))
        shareKeys["generations"] = .bytes(Data("[]".utf8))
        _ = try db.save(shareKeys, policy: .allKeys)
        let share = try #require(try db.shares(in: zone).first)
        _ = try db.removeParticipant(mary.id, from: share.id)

        try settle([owner])
        try post("p2", at: "Secret", on: owner)
        try owner.syncNow()
        let id = RecordID(name: "p2", zone: zone)
        let sealed = try #require(try db.record(id).encrypted("location"))
        #expect(held.allSatisfy { Sealing.open(sealed, key: $0, record: id) == nil }, "opens with a key mary held")
    }

    /// The owner removes mary, then types a new location before the device syncs again: it is sealed with a
    /// key she never held (the removal rotates at once, not on the next sync, whose send comes before repairs).
    @Test func aLocationTypedRightAfterARemovalIsClosedToTheRemovedPerson() throws {
        let (owner, mary) = try ownerSharingWithMary()
        _ = try marysPhone(sharedBy: owner, mary: mary)
        let zone = try owner.store.post("p1").zone
        let held = try keysHeld(by: mary, keychain: "keychain-mary", in: RecordID(name: "keys-p1", zone: zone))
        #expect(!held.isEmpty)

        try PostSharing(store: owner.store, cloud: test.cloud, account: heather).removeParticipant(email: mary.email, from: try owner.store.post("p1"))
        try typeLocation("New office", into: "p1", on: owner, as: heather, device: "owner")
        try owner.syncNow()
        let id = RecordID(name: "p1", zone: zone)
        let sealed = try #require(try test.cloud.database(.private, as: heather).record(id).encrypted("location"))
        #expect(held.allSatisfy { Sealing.open(sealed, key: $0, record: id) == nil }, "opens with a key mary held")
    }

    /// Removing a participant rotates the notebook's key: a location sealed after it opens with no key the
    /// removed person ever held, and those who remain still read it.
    @Test func aRemovedParticipantCannotOpenLaterLocations() throws {
        let owner = try device("owner", keychain: "keychain-owner")
        let mary = try test.cloud.createAccount(name: "mary"), zoe = try test.cloud.createAccount(name: "zoe")
        let marysPhone = try device("mary-phone", keychain: "keychain-mary", account: mary)
        let zoesPhone = try device("zoe-phone", keychain: "keychain-zoe", account: zoe)
        try post("p1", at: "Hanoi", on: owner)
        try owner.syncNow()
        let sharing = PostSharing(store: owner.store, cloud: test.cloud, account: heather)
        guard case .shared(let url) = try sharing.share(try owner.store.post("p1"), inviting: ["mary", "zoe"], permission: .readWrite)
        else { Issue.record("not shared"); return }
        for account in [mary, zoe] { _ = try test.cloud.acceptShare(url, as: account) }
        for phone in [marysPhone, zoesPhone] { try phone.syncNow() }
        #expect(try marysPhone.store.post("p1").location == "Hanoi")
        let zone = try owner.store.post("p1").zone

        let held = try keysHeld(by: mary, keychain: "keychain-mary", in: RecordID(name: "keys-p1", zone: zone))
        #expect(!held.isEmpty)

        try sharing.removeParticipant(email: mary.email, from: try owner.store.post("p1"))
        try owner.syncNow()
        try typeLocation("New office", into: "p1", on: owner, as: heather, device: "owner")
        try owner.syncNow()

        let sealed = try #require(try test.cloud.database(.private, as: heather).record(RecordID(name: "p1", zone: zone)).encrypted("location"))
        #expect(held.allSatisfy { Sealing.open(sealed, key: $0, record: RecordID(name: "p1", zone: zone)) == nil },
                "opens with a key mary held")
        try zoesPhone.syncNow()
        #expect(try zoesPhone.store.post("p1").location == "New office")
    }

    /// mary's new phone, not granted the notebook's key yet, shows p1 without its location; she types one.
    func maryTypesOverALocationHerPhoneCannotOpen() throws -> (owner: NotesSync, phone: NotesSync, sealed: Data?) {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try device("mary-phone", keychain: "keychain-mary-phone", account: mary)  // published after the grant
        try phone.syncNow()
        var post = try phone.store.post("p1")
        #expect(post.location == nil && post.locationLocked)
        let base = post.fields
        post.location = "Saigon"
        _ = try phone.store.saveEdit(post, from: base, by: Editor(account: mary, device: "phone"), now: Date())
        return (owner, phone, try cloudLocation(of: "p1", as: heather))
    }

    func cloudLocation(of name: String, as account: Account) throws -> Data? {
        let zone = try #require(try test.cloud.database(.private, as: account).allZones().first { $0.name == "Notes" })
        return try test.cloud.database(.private, as: account).record(RecordID(name: name, zone: zone)).encrypted("location")
    }

    /// She never saw Hanoi, so typing Saigon removed nothing of it: hers waits (and says why) until the
    /// owner's devices grant her phone the key, and then the post keeps both.
    @Test func aLocationTypedOverOneThisDeviceCannotOpenWaitsAndThenKeepsBoth() throws {
        let (owner, phone, sealed) = try maryTypesOverALocationHerPhoneCannotOpen()
        try phone.syncNow()
        #expect(try cloudLocation(of: "p1", as: heather) == sealed, "the location the phone could not open was replaced")
        #expect(try phone.store.syncStatus().lastError?.contains("waits for the notebook's key") == true)
        #expect(try phone.store.lockedLocationCount() == 1)
        #expect(try phone.store.post("p1").location == "Saigon", "what she typed shows while it waits")
        try owner.syncNow()  // grants the phone's key
        try settle([phone, owner])
        #expect(try phone.store.pendingCount() == 0)
        #expect(try phone.store.lockedLocationCount() == 0)
        for device in [phone, owner] {
            let location = try #require(try device.store.post("p1").location)
            #expect(location.contains("Hanoi") && location.contains("Saigon"), "\(location)")
            #expect(try device.store.post("p1").conflicted)
        }
    }

    /// The owner moves the location on while mary's typed one waits: hers waits beside the newest, and the
    /// post keeps the owner's newest and hers (the owner saw Hanoi, and replaced it on purpose).
    @Test func aLocationTypedOverAnUnopenedOneWaitsBesideTheCloudsNewest() throws {
        let (owner, phone, _) = try maryTypesOverALocationHerPhoneCannotOpen()
        try phone.syncNow()
        var post = try owner.store.post("p1")
        let base = post.fields
        post.location = "Hue"
        _ = try owner.store.saveEdit(post, from: base, by: Editor(account: heather, device: "owner"), now: Date())
        try owner.syncNow()  // sends Hue, and grants the phone's key
        try phone.syncNow()
        try settle([phone, owner])
        for device in [phone, owner] {
            let location = try #require(try device.store.post("p1").location)
            #expect(location.contains("Hue") && location.contains("Saigon"), "\(location)")
        }
    }

    /// A device holding an older key of the notebook could seal with it, but cannot open what a newer one
    /// sealed: a location typed over that one never replaces it.
    @Test func aLocationThisDeviceCannotOpenIsNeverReplacedByOneTypedOverIt() throws {
        let (owner, mary) = try ownerSharingWithMary()
        let phone = try marysPhone(sharedBy: owner, mary: mary)
        // Another client writes a location sealed with a key no device here holds.
        let db = test.cloud.database(.private, as: heather)
        var record = try db.record(RecordID(name: "p1", zone: try owner.store.post("p1").zone))
        let unreadable = Data((0..<60).map { UInt8($0) })
        record.setEncrypted("location", unreadable)
        try db.save(record)
        try phone.syncNow()
        var post = try phone.store.post("p1")
        #expect(post.locationLocked)
        let base = post.fields
        post.location = "Saigon"
        _ = try phone.store.saveEdit(post, from: base, by: Editor(account: mary, device: "phone"), now: Date())
        try settle([phone, owner])
        #expect(try db.record(record.id).encrypted("location") == unreadable, "the location it could not open was replaced")
        #expect(try phone.store.post("p1").location == "Saigon", "what she typed is kept while it waits")
        #expect(try phone.store.syncStatus().lastError?.contains("waits for the notebook's key") == true)
    }

    /// An editor opened before a location this device cannot open arrived (sealed with a key it lacks) saves
    /// a change of the text only: the location, left alone, stays as the cloud has it.
    @Test func anEditorOpenedBeforeAnUnreadableLocationArrivedLeavesIt() throws {
        let a = try device("a", keychain: "keychain-a")
        try post("p1", at: "Hanoi", on: a)
        try a.syncNow()
        var post = try a.store.post("p1")
        post.location = nil
        _ = try a.store.saveEdit(post, from: try a.store.post("p1").fields, by: Editor(account: heather, device: "a"), now: Date())
        try a.syncNow()
        let editing = try a.store.post("p1")  // the editor opens here, on a post with no location
        // Another client seals a location with a key this device does not hold.
        let db = test.cloud.database(.private, as: heather)
        var record = try db.record(editing.recordID)
        let unreadable = Data((0..<60).map { UInt8($0) })
        record.setEncrypted("location", unreadable)
        try db.save(record)
        try a.syncNow()
        #expect(try a.store.post("p1").locationLocked)

        var edited = editing
        edited.content = "typed in the editor"
        _ = try a.store.saveEdit(edited, from: editing.fields, by: Editor(account: heather, device: "a"), now: Date())
        try a.syncNow()
        let saved = try db.record(editing.recordID)
        #expect(saved["content"] == .string("typed in the editor"))
        #expect(saved.encrypted("location") == unreadable, "the location this device could not read was dropped")
    }

    /// The cloud is emptied; on one device the person types a location; another device, with a keychain of
    /// its own, rebuilds the cloud first, sealing with a new key the first cannot open yet. The first device's
    /// rebuild has no base to merge against: its typed location waits beside the cloud's, and once granted
    /// the key, both are kept.
    @Test func aLocationTypedWhileTheCloudWasEmptyIsKeptBesideOneThisDeviceCannotOpenYet() throws {
        let a = try device("a", keychain: "keychain-a"), b = try device("b", keychain: "keychain-b")
        try post("p1", at: "Hanoi", on: a)
        try settle([a, b])
        #expect(try b.store.post("p1").location == "Hanoi")
        try CloudTampering(directory: test.directory.url).empty()
        try typeLocation("Hue", into: "p1", on: b, as: heather, device: "b")

        try a.reupload()  // a new key, wrapped for a's device key: b's went with the cloud
        try b.reupload()  // b's p1 meets a's, sealed with a key b cannot open yet
        #expect(try b.store.post("p1").location == "Hue", "the typed location was dropped for one this device cannot read")
        try settle([a, b, a, b])
        for device in [a, b] {
            let location = try device.store.post("p1").location ?? "-"
            #expect(location.contains("Hue") && location.contains("Hanoi"), "both kept: \(location)")
        }
    }

    @Test func aLocationSealedWithAKeyThisDeviceLacksIsNeverErasedByItsMerge() throws {
        let a = try device("a", keychain: "keychain-a")
        try post("p1", at: "Hanoi", on: a)
        try a.syncNow()
        // The cloud is put back to a copy of this moment (after more was written), so this device must rebuild it.
        let tampering = CloudTampering(directory: test.directory.url)
        let copy = try tampering.snapshot()
        try post("p2", at: "Hue", on: a)
        try a.syncNow()
        try tampering.restore(copy)
        // Meanwhile another client seals a new location with a key no device here holds, and changes the text.
        let db = test.cloud.database(.private, as: heather)
        var record = try db.record(RecordID(name: "p1", zone: try a.store.post("p1").zone))
        let unreadable = Data((0..<60).map { UInt8($0) })
        record.setEncrypted("location", unreadable)
        record["content"] = .string("from elsewhere")
        try db.save(record)
        // This device rebuilds the cloud from what it holds (no base left to merge against): it still holds
        // the old location, readable, and meets the newer one it cannot read.
        try a.reupload()
        let saved = try db.record(record.id)
        #expect(saved.encrypted("location") == unreadable, "the location it could not read was replaced")
        #expect(saved["content"] == .string("from elsewhere"))
        // Without a base, the location held here may be one the cloud never had: it waits beside the one
        // this device cannot read, and says so.
        #expect(try a.store.post("p1").location == "Hanoi")
        #expect(try a.store.pendingCount() == 1)
        let said = try a.store.syncStatus().lastError ?? "nothing"
        #expect(said.contains("waits for the notebook's key"), "status says \(said)")
    }
}
