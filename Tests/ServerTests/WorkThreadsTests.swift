import Cloud
import CloudClient
import Foundation
import Synchronization
import Testing
import TestSupport

/// Saves waiting for the cloud's writers' lock hold threads of their own: a fetch is answered meanwhile. On
/// PostgreSQL only: the file's store runs a process's reads and writes on one connection, so there a fetch waits
/// behind the saves whatever thread it has.
@Suite(.enabled(if: TestStore.isPostgres, "the PostgreSQL run's (CLOUDNOTES_TEST_STORE=postgresql)"))
struct WorkThreadsTests {
    // The saves honour THROTTLED as a client must: the server charges an account for its requests' processor time,
    // which a busy machine inflates (in CI on 2026-11-28 one save in thirty cost enough to make the others wait).
    @Test
    func aFetchIsAnsweredWhileManySavesWaitForTheWritersLock() throws {
        // (Thirty writes of one account under way at once: past the default limit of requests in flight per account.)
        let f = try ServerFixture(environment: ["CLOUDNOTES_IN_FLIGHT": "64,64,2"])
        // Another process's writer holding the cloud's writers' lock (the sequence row).
        let holder = WritersLockHolder(try TestStore.open(directory: f.directory.url, faults: nil))
        defer { holder.release() }

        // More saves than a server has threads in all (16 for reads, 8 for writes), each waiting for the lock;
        // through several clients, as each keeps at most 8 connections to a server.
        let clients = (0..<5).map { _ in f.remote().database(.private, as: f.heather) }
        let saves = DispatchGroup()
        let saved = Mutex<[Bool]>([])
        for i in 0..<30 {
            saves.enter()
            Thread {
                let database = clients[i % clients.count]
                let ok = (try? honouringThrottle { () throws(CloudError) in try database.save(zone: ZoneID(name: "Waiting\(i)")) }) != nil
                saved.withLock { $0.append(ok) }
                saves.leave()
            }.start()
        }
        Thread.sleep(forTimeInterval: 1)  // the saves reach the server and wait

        // A client of its own, apart from the saves' clients.
        let started = Date()
        let zones = try f.remote().database(.private, as: f.heather).allZones()
        #expect(zones.isEmpty, "none of the waiting saves went through")
        #expect(Date().timeIntervalSince(started) < 5, "answered while the saves wait")
        #expect(saved.withLock { $0.isEmpty }, "the saves were still waiting")

        holder.release()
        saves.wait()
        #expect(saved.withLock { $0.filter { $0 }.count } == 30, "every save went through once the lock was let go")
    }
}
