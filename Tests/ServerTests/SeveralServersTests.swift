import Cloud
import CloudWire
@testable import CloudClient
import Crypto
import Foundation
import Synchronization
import Testing
import TestSupport

/// Several `cloudnotes cloud serve` processes of one cloud (one PostgreSQL database on that run, one directory on
/// the SQLite run): a change through one wakes a device waiting on another, devices move on when theirs stops,
/// and the cloud's compare-and-swap holds whichever server each save goes through.
@Suite struct SeveralServersTests {
    /// heather's new device, enrolled through the fixture's cloud, reaching the cloud through `servers`.
    private func device(_ f: ServerFixture, servers: [URL]) throws -> RemoteCloud {
        let key = P256.Signing.PrivateKey()
        let credentials = try RemoteCloud.enrol(server: servers[0], code: try f.cloud.makeEnrolmentCode(for: f.heather), key: key,
                                                deviceName: "heather/device")
        return RemoteCloud(servers: servers, credentials: credentials, timeout: 5)
    }

    @Test func aChangeThroughOneServerWakesADeviceWaitingOnAnother() throws {
        let f = try ServerFixture()
        let second = try TestServer(cloud: f.directory.url)
        let waiting = try device(f, servers: [second.url])
        let writing = try device(f, servers: [f.server.url])
        let heard = Mutex<[Int64]>([])
        let watch = waiting.subscribe(to: [.database(.private, of: f.heather.id)]) { push in heard.withLock { $0.append(push.sequence) } }
        defer { watch.cancel() }
        Thread.sleep(forTimeInterval: 0.3)  // the long poll is waiting on the second server

        let began = Date()
        _ = try writing.database(.private, as: f.heather).save(zone: ZoneID(name: "Notes"))
        #expect(eventually(timeout: 5) { !heard.withLock { $0 }.isEmpty })
        #expect(Date().timeIntervalSince(began) < 2, "live: well within the poll's timeout")
    }

    @Test func aDeviceMovesToTheNextServerWhenItsOwnStops() throws {
        let f = try ServerFixture()
        let second = try TestServer(cloud: f.directory.url)
        let cloud = try device(f, servers: [f.server.url, second.url])
        let db = cloud.database(.private, as: f.heather)
        _ = try db.save(zone: ZoneID(name: "Notes"))
        #expect(cloud.server == f.server.url)

        f.server.kill()
        let zone = ZoneID(name: "Notes", owner: f.heather.id)
        let record = Record.make("p1", in: zone, ["title": "after the first server stopped"])
        // A pooled connection to the stopped server may fail mid-send, which counts as "may have reached it": the
        // client moves on but throws, and its caller retries, as the sync engine does after any lost answer.
        let saved = try retryingOnce(ifNetwork: { try db.save(record) })
        #expect(cloud.server == second.url)
        #expect(try f.cloud.database(.private, as: f.heather).record(saved.id).string("title") == "after the first server stopped")
    }

    /// A write captured on its way to one server and sent to another of the same cloud is refused there, and
    /// brings back nothing: the zone the owner deleted since stays deleted.
    @Test func aWriteReplayedToAnotherServerIsRefused() throws {
        let f = try ServerFixture()
        let second = try TestServer(cloud: f.directory.url)
        let path = f.path(.private, "zones/modify")
        let create = try f.createZone("Notes")
        let headers = try f.signed(create, path: path)
        #expect(try f.post(path, body: create, headers: headers).status == 200)
        try f.cloud.database(.private, as: f.heather).delete(zone: ZoneID(name: "Notes"))

        #expect(try f.post(path, body: create, headers: headers, to: second.url) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.zones().isEmpty)
        // A request signed anew goes through either server.
        #expect(try f.post(path, body: create, headers: try f.signed(create, path: path), to: second.url).status == 200)
    }

    /// A notification token hears the account's changes: a replayed `tokens/create` must not hand out another.
    @Test func aTokenRequestReplayedToAnotherServerIsRefused() throws {
        let f = try ServerFixture()
        let second = try TestServer(cloud: f.directory.url)
        let path = WirePath(container: LocalCloud.defaultContainer, scope: nil, operation: "tokens/create").path
        let body = Data(#"{"apnsEnvironment":"production"}"#.utf8)
        let headers = try f.signed(body, path: path)
        #expect(try f.post(path, body: body, headers: headers).status == 200)

        #expect(try f.post(path, body: body, headers: headers, to: second.url) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path), to: second.url).status == 200)
    }

    /// `users/restore` writes (an account a lost cloud forgot): answered once, by one server, as every write.
    @Test func aRestoreReplayedToAnotherServerIsRefused() throws {
        let f = try ServerFixture()
        let second = try TestServer(cloud: f.directory.url)
        let path = f.path(.private, "users/restore")
        let body = Data("{}".utf8)
        let headers = try f.signed(body, path: path)
        #expect(try f.post(path, body: body, headers: headers).status == 200)

        #expect(try f.post(path, body: body, headers: headers, to: second.url) == (401, "AUTHENTICATION_FAILED"))
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path), to: second.url).status == 200)
    }

    private func retryingOnce<T>(ifNetwork body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CloudError where error == .networkUnavailable || error == .networkFailure {
            return try body()
        }
    }

    /// Eight processes, two servers, fifty rounds of one contested save each (`cloudnotes-soak race`).
    @Test func eightProcessesThroughTwoServersOneWinnerEachRound() throws {
        let directory = TemporaryDirectory("race")
        let cloud = directory.path("run/cloud")
        let store = try TestStore.database(for: cloud)
        let result = try CloudNotesBinary.run(
            ["race", "--processes", "8", "--servers", "2", "--rounds", "50", "--directory", directory.path("run").path]
                + (store.map { ["--store", $0] } ?? []),
            executable: "cloudnotes-soak")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("one winner every round"))
    }
}

/// The soak through two servers on PostgreSQL, the servers killed and restarted at random and the database
/// crashed and restarted once, halfway: no acknowledged write lost, all converge, the store's check clean.
@Suite struct PostgresSoakTests {
    @Test(.enabled(if: TestStore.isPostgres, "the PostgreSQL run (scripts/test) soaks")) func twoServersOnPostgreSQLSurviveKillsAndTheDatabaseRestarting() throws {
        let cluster = try PostgresCluster()
        try cluster.psql("CREATE DATABASE soak")
        // Spawn, not Foundation's Process, which misses the exit of a program whose child restarts a server.
        let (status, output) = try Spawn.run(
            [CloudNotesBinary.built("cloudnotes-soak").path, "run", "--server", "--servers", "2", "--processes", "6", "--seconds", "12",
             "--kill-every", "2", "--seed", "7", "--store", "postgresql://postgres@127.0.0.1:\(cluster.port)/soak",
             "--restart-store", cluster.restartCommand],
            environment: ProcessInfo.processInfo.environment, capture: true)
        #expect(status == 0, "\(output)")
        #expect(output.contains("restarted 1 time") && output.contains(": ok: "), "\(output)")
    }
}

/// A server started while its database is down (both booted together, the database slower) waits for it,
/// saying so once, and serves once it answers.
@Suite struct PostgresStartupTests {
    @Test(.enabled(if: PostgresCluster.runs, "needs PostgreSQL")) func aServerStartedBeforeItsDatabaseWaitsForIt() throws {
        let cluster = try PostgresCluster()
        cluster.stop()
        let directory = TemporaryDirectory("waiting")
        let cloud = directory.path("cloud")
        try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
        let started = Mutex<Result<TestServer, any Error>?>(nil)
        let thread = Thread {
            let server = Result { try TestServer(cloud: cloud, environment: ["CLOUDNOTES_STORE": cluster.url], arguments: ["--init"]) }
            started.withLock { $0 = server }
        }
        thread.start()
        let log = cloud.appendingPathComponent("server.log")
        #expect(eventually(timeout: 10) { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("is not answering") })
        Thread.sleep(forTimeInterval: 1)
        #expect(started.withLock { $0 } == nil, "still waiting, not given up")

        try cluster.start()
        #expect(eventually(timeout: 20) { started.withLock { $0 } != nil })
        let server = try #require(try started.withLock { $0 }?.get())
        #expect(server.isRunning && server.port > 0)
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(said.components(separatedBy: "is not answering").count == 2, "said once, by one process: \(said)")
    }
}

/// A server told to listen where another already does says so in one line, and ends.
@Suite struct ListenTests {
    @Test func aPortInUseIsSaidInOneLine() throws {
        let f = try ServerFixture()
        let second = try CloudNotesBinary.run(["cloud", "serve", "--cloud", f.directory.url.path, "--listen", "127.0.0.1:\(f.server.port)"])
        #expect(second.status == 1 && second.stderr.hasSuffix("cannot listen on 127.0.0.1:\(f.server.port): the address is in use (another server on that port?)\n"),
                "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").last?.hasPrefix("cloudnotes: ") == true)
    }

    /// A server whose log's reader went away (a supervisor's pipe closed) serves on, its log lines dropped.
    @Test func aServerWhoseLogsReaderLeftServesOn() throws {
        let f = try ServerFixture()
        let output = Pipe(), log = Pipe()
        try log.fileHandleForReading.close()
        let process = Process()
        process.executableURL = CloudNotesBinary.url
        process.arguments = ["cloud", "serve", "--cloud", f.directory.url.path, "--listen", "127.0.0.1:0"]
        process.environment = ProcessInfo.processInfo.environment.merging(try TestStore.environment(for: f.directory.url)) { $1 }
        process.standardOutput = output
        process.standardError = log
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var said = ""
        #expect(eventually(timeout: 20) {
            said += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            return said.contains("listening on ")
        })
        let address = try #require(said.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let server = try #require(URL(string: "http://\(address)"))
        for _ in 0..<3 {  // each refused, and logged
            #expect(try f.post(f.path(.private, "zones/list"), body: Data("{}".utf8), to: server).status == 401)
        }
        #expect(process.isRunning)
    }
}
