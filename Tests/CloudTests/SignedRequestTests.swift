@testable import Cloud
import Foundation
import Synchronization
import Testing
import TestSupport

/// A signed request's writes are answered once by the whole cloud (`ServedRequest`): its signature is recorded
/// with its first write, and kept well past its time, since another server's clock may run behind this one's.
@Suite struct SignedRequestTests {
    @Test func aSignatureIsRecordedOnceAndKeptPastItsTimeForSlowerClocks() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let signature = ServedRequest.Signature(id: "key:r1", until: test.clock.now().addingTimeInterval(301))
        let first = ServedRequest(signature: signature)
        try first.answering {
            _ = try db.save(zone: ZoneID(name: "Notes"))
            _ = try db.save(zone: ZoneID(name: "Drafts"))  // a request that writes twice records itself once
        }

        // Past the signature's time by this clock; a server whose clock is five minutes behind still takes it.
        test.clock.advance(by: 301 + 300)
        try ServedRequest(signature: .init(id: "key:r2", until: test.clock.now().addingTimeInterval(301))).answering {
            _ = try db.save(zone: ZoneID(name: "Other"))  // another request's write, which drops what is past its time
        }
        #expect(throws: CloudError.notAuthenticated("this signed request was already answered by a server of this cloud (a replay)")) {
            try ServedRequest(signature: signature).answering { _ = try db.save(zone: ZoneID(name: "Replayed")) }
        }
        #expect(try !db.allZones().map(\.name).contains("Replayed"))

        // Ten minutes past its time the record goes, at a write a minute or more after the last that dropped
        // some: the table does not grow for ever. (A server refuses a request that old by its date first.)
        test.clock.advance(by: 301)
        try ServedRequest(signature: .init(id: "key:r3", until: test.clock.now().addingTimeInterval(301))).answering {
            _ = try db.save(zone: ZoneID(name: "Later"))
        }
        try ServedRequest(signature: signature).answering { _ = try db.save(zone: ZoneID(name: "Replayed")) }
        #expect(try db.allZones().map(\.name).contains("Replayed"))
    }

    /// Each server drops them at most once a minute, not in every write: within the minute after a write that
    /// dropped some, one past its time is still there.
    @Test func signaturesPastTheirTimeAreDroppedAtMostOnceAMinute() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        func write(_ zone: String, as signature: ServedRequest.Signature? = nil) throws {
            let signature = signature ?? .init(id: "key:\(zone)", until: test.clock.now().addingTimeInterval(301))
            try ServedRequest(signature: signature).answering { _ = try db.save(zone: ZoneID(name: zone)) }
        }
        let replay = CloudError.notAuthenticated("this signed request was already answered by a server of this cloud (a replay)")
        try write("First")  // drops what is past its time (nothing yet)
        let old = ServedRequest.Signature(id: "key:old", until: test.clock.now().addingTimeInterval(-601))  // past it, and the ten minutes kept
        try write("Old", as: old)

        test.clock.advance(by: 59)
        try write("WithinTheMinute")
        #expect(throws: replay) { try write("Replayed", as: old) }

        test.clock.advance(by: 1)
        try write("AMinuteOn")  // drops `old`, long past its time
        try write("ReplayedLater", as: old)  // (a server refuses a request that old by its date first)
        #expect(try db.allZones().map(\.name).contains("ReplayedLater"))
    }

    /// On PostgreSQL a write records its signature before it takes the writers' lock, which it then holds over
    /// a round trip less: a write waiting for the lock already holds its signature's row (a replay of it would
    /// wait on that row, then be refused). The file's store is locked from its `BEGIN`, so there is no before.
    @Test(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's (CLOUDNOTES_TEST_STORE=postgresql)"))
    func aWriteRecordsItsSignatureBeforeItWaitsForTheWritersLock() throws {
        let test = try TestCloud()
        let db = try test.privateDatabase("heather")
        let other = try test.reopen()
        let holder = WritersLockHolder(other)
        defer { holder.release() }
        let done = DispatchSemaphore(value: 0)
        let saved = Mutex(false)
        Thread {
            let signature = ServedRequest.Signature(id: "key:waiting", until: test.clock.now().addingTimeInterval(301))
            let ok = (try? ServedRequest(signature: signature).answering { _ = try db.save(zone: ZoneID(name: "Waited")) }) != nil
            saved.withLock { $0 = ok }
            done.signal()
        }.start()

        // A backend that has written to signed_requests and waits for a lock (the sequence row's).
        func waitingWithItsSignature() throws -> Int64 {
            try other.storage.lookUp { db in
                try db.int64("""
                    SELECT count(*) FROM pg_locks s JOIN pg_locks w ON w.pid = s.pid
                    WHERE s.relation = 'signed_requests'::regclass AND s.mode = 'RowExclusiveLock' AND s.granted AND NOT w.granted
                    """) ?? 0
            }
        }
        var seen: Int64 = 0
        for _ in 0..<100 where seen == 0 {
            seen = try waitingWithItsSignature()
            if seen == 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        holder.release()
        done.wait()
        #expect(seen == 1, "the waiting write had recorded its signature")
        #expect(saved.withLock { $0 }, "and went through once the lock was let go")
        #expect(try db.allZones().map(\.name).contains("Waited"))
    }
}
