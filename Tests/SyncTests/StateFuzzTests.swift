import Cloud
import Foundation
@testable import Sync
import Testing
import TestSupport

/// Saved sync state from a damaged disk: refused whole, never half-read, never a crash.
@Suite struct StateFuzzTests {
    @Test func damagedSerializationsAreRefusedWholeOrReadBackExactly() throws {
        let state = SyncState()
        let zone = ZoneID(name: "Notes", owner: "_h")
        state.add(pendingDatabaseChanges: [.saveZone(zone)])
        state.add(pendingRecordZoneChanges: (0..<5).map { .saveRecord(RecordID(name: "p\($0)", zone: zone)) } + [.deleteRecord(RecordID(name: "gone", zone: zone))])
        state.accountID = "_h"
        state.databaseToken = try ChangeToken(parsing: "ct1-5")
        state.zoneTokens[zone] = try ChangeToken(parsing: "ct1-9")
        let seed = Array(state.serialization.data)
        let mutator = Mutator(seed: 4)
        var refused = 0
        for _ in 0..<Mutator.iterations {
            let damaged = SyncState.Serialization(data: Data(mutator.input(from: [seed])))
            switch Result(catching: { () throws(SyncError) in try SyncState(damaged) }) {
            case .success(let read):
                // What reads is whole: written again, it reads back to the same state.
                let again = try SyncState(read.serialization)
                #expect(again.pendingRecordZoneChanges == read.pendingRecordZoneChanges)
                #expect(again.serialization == read.serialization)
            case .failure(let error):
                refused += 1
                #expect(error == .malformedState)
            }
        }
        #expect(refused > 0)
    }
}
