import Cloud
import Crypto
import Foundation
import Notes
import Testing

@Suite struct SealingTests {
    let zone = ZoneID(name: "Notes", owner: "_h")
    var id: RecordID { RecordID(name: "p1", zone: zone) }

    @Test func aSealedValueOpensOnlyWithItsKeyAndOnlyInItsRecord() throws {
        let key = SymmetricKey(size: .bits256)
        let sealed = try Sealing.seal("Secret Cafe", key: key, record: id)
        #expect(sealed.range(of: Data("Secret".utf8)) == nil)
        #expect(Sealing.open(sealed, key: key, record: id) == "Secret Cafe")
        #expect(Sealing.open(sealed, key: SymmetricKey(size: .bits256), record: id) == nil)
        #expect(Sealing.open(sealed, key: key, record: RecordID(name: "p2", zone: zone)) == nil, "bound to its record")
    }

    @Test func aZoneKeyWrappedForAnAccountOpensOnlyWithItsPrivateKey() throws {
        let key = SymmetricKey(size: .bits256)
        let mary = Curve25519.KeyAgreement.PrivateKey(), eve = Curve25519.KeyAgreement.PrivateKey()
        let envelope = try Sealing.wrap(key, for: mary.publicKey, zone: zone)
        #expect(Sealing.unwrap(envelope, with: mary, zone: zone) == key)
        #expect(Sealing.unwrap(envelope, with: eve, zone: zone) == nil)
        #expect(Sealing.unwrap(envelope, with: mary, zone: ZoneID(name: "Other", owner: "_h")) == nil)
        #expect(Sealing.unwrap(Data(envelope.dropLast()), with: mary, zone: zone) == nil)
    }
}
