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

    @Test(arguments: [Data(), Data("{}".utf8), Data("not json".utf8), Data(#"{"version":2}"#.utf8)])
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
}
