import Cloud
import Foundation
@testable import Sync
import Testing

@Suite struct SyncStateTests {
    let zone = ZoneID(name: "Notes", owner: "_h")
    func id(_ name: String) -> RecordID { RecordID(name: name, zone: zone) }

    @Test func duplicatesCollapseAndTheLatestIntentWins() {
        let state = SyncState()
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .saveRecord(id("b")), .saveRecord(id("a"))])
        state.add(pendingRecordZoneChanges: [.deleteRecord(id("b"))])
        state.add(pendingDatabaseChanges: [.saveZone(zone), .saveZone(zone)])

        #expect(state.pendingRecordZoneChanges == [.saveRecord(id("a")), .deleteRecord(id("b"))])
        #expect(state.pendingDatabaseChanges == [.saveZone(zone)])

        state.remove(pendingRecordZoneChanges: [.saveRecord(id("b"))])  // not what is pending for b: nothing happens
        #expect(state.pendingRecordZoneChanges.count == 2)
        state.remove(pendingRecordZoneChanges: [.deleteRecord(id("b"))])
        #expect(state.pendingRecordZoneChanges == [.saveRecord(id("a"))])
    }

    @Test func aChangeAddedAgainDuringASendIsNotRemovedByIt() {
        let state = SyncState()
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])
        let sentAt = state.recordVersion(.saveRecord(id("a")))
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])  // edited again while in flight

        state.removeSent([(.saveRecord(id("a")), sentAt)])

        #expect(state.pendingRecordZoneChanges == [.saveRecord(id("a"))])
    }

    @Test func theStateSurvivesSerialization() throws {
        let state = SyncState()
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .deleteRecord(id("b"))])
        state.add(pendingDatabaseChanges: [.deleteZone(zone)])
        state.withLock {
            $0.accountID = "_h"
            $0.databaseToken = try! ChangeToken(parsing: "ct1-5")
            $0.zoneTokens[zone] = try! ChangeToken(parsing: "ct1-9")
        }

        let restored = try SyncState(state.serialization)

        #expect(restored.pendingRecordZoneChanges == state.pendingRecordZoneChanges)
        #expect(restored.pendingDatabaseChanges == state.pendingDatabaseChanges)
        #expect(restored.accountID == "_h")
        #expect(restored.zoneTokens[zone]?.description == "ct1-9" && restored.databaseToken?.description == "ct1-5")
        #expect(restored.serialization == state.serialization)
    }

    /// States saved before the binary form were JSON of this shape; a device updated since must still read its own.
    @Test func aStateSavedAsJSONByVersionOneStillReads() throws {
        struct Version1: Encodable {
            struct Entry: Encodable { var zone: ZoneID; var token: ChangeToken }
            var version = 1
            var accountID: String? = "_h"
            var databaseToken: ChangeToken? = try! ChangeToken(parsing: "ct1-5")
            var zoneTokens: [Entry]
            var zonesToFetch: [ZoneID]
            var pendingRecordZoneChanges: [PendingRecordZoneChange]
            var pendingDatabaseChanges: [PendingDatabaseChange]
        }
        let old = Version1(zoneTokens: [.init(zone: zone, token: try ChangeToken(parsing: "ct1-9"))], zonesToFetch: [zone],
                           pendingRecordZoneChanges: [.saveRecord(id("a")), .deleteRecord(id("b"))],
                           pendingDatabaseChanges: [.saveZone(zone)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys

        let restored = try SyncState(SyncState.Serialization(data: try encoder.encode(old)))

        #expect(restored.pendingRecordZoneChanges == [.saveRecord(id("a")), .deleteRecord(id("b"))])
        #expect(restored.pendingDatabaseChanges == [.saveZone(zone)])
        #expect(restored.accountID == "_h" && restored.zonesToFetch == [zone])
        #expect(restored.zoneTokens[zone]?.description == "ct1-9" && restored.databaseToken?.description == "ct1-5")
        #expect(restored.serialization.data.first != UInt8(ascii: "{"))  // written again in the binary form
    }

    @Test(arguments: [Data(), Data("{}".utf8), Data("not json".utf8), Data(#"{"version":2}"#.utf8), Data([2]), Data([2, 0, 0, 0, 0, 5])])
    func damagedStateIsRefusedWhole(data: Data) {
        #expect(throws: SyncError.malformedState) { try SyncState(SyncState.Serialization(data: data)) }
    }

    @Test func tenThousandChangesAreCheapToAddAndRemove() {
        let state = SyncState()
        let changes = (0..<10_000).map { PendingRecordZoneChange.saveRecord(id("r\($0)")) }
        for change in changes { state.add(pendingRecordZoneChanges: [change]) }
        state.remove(pendingRecordZoneChanges: Array(changes.prefix(9_999)))
        #expect(state.pendingRecordZoneChanges == [changes.last!])
    }

    /// A send removes from the front of the list; what is added again afterwards queues at the back, once.
    @Test func changesRemovedFromTheFrontAndAddedAgainQueueAtTheBack() {
        let state = SyncState()
        let changes = (0..<100).map { PendingRecordZoneChange.saveRecord(id("r\($0)")) }
        state.add(pendingRecordZoneChanges: changes)
        for change in changes.prefix(60) { state.removeSent([(change, state.recordVersion(change))]) }
        state.add(pendingRecordZoneChanges: [changes[3], changes[70]])

        #expect(state.pendingRecordZoneChanges == Array(changes[60...]) + [changes[3]])
        #expect(state.pendingRecordZoneChanges(in: .all, limit: 2) == [changes[60], changes[61]])
        state.remove(pendingRecordZoneChanges: Array(changes[60...]))  // enough removed to compact the list
        #expect(state.pendingRecordZoneChanges == [changes[3]])
        state.add(pendingRecordZoneChanges: [changes[0]])
        #expect(state.pendingRecordZoneChanges == [changes[3], changes[0]])
    }
}
