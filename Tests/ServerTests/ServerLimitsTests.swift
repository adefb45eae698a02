import AsyncHTTPClient
import Cloud
import CloudWire
import Crypto
import Foundation
import Glibc
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TestSupport

/// Nothing one caller sends holds the server for others: a query past its bounds is refused before any work, a
/// connection that never finishes its request is closed, an account past its requests in flight is told to wait,
/// and one account flooding the server leaves another's requests less than twice as slow.
@Suite(.serialized) struct ServerLimitsTests {
    static func query(sortKeys: Int, type: String = "Item") -> Data {
        let sorts = (0..<sortKeys).map { "{\"fieldName\":\"f\($0)\"}" }.joined(separator: ",")
        return Data("{\"zoneID\":{\"zoneName\":\"Notes\"},\"query\":{\"recordType\":\"\(type)\",\"sortBy\":[\(sorts)]}}".utf8)
    }

    @Test func aQueryPastItsBoundsIsRefusedBeforeAnyWork() throws {
        let f = try ServerFixture()
        let path = f.path(.private, "records/query")
        for keys in [150, 2_000] {
            let started = Date(), body = Self.query(sortKeys: keys)
            let answer = try f.post(path, body: body, headers: try f.signed(body, path: path))
            #expect(answer.status == 413 && answer.code == "LIMIT_EXCEEDED", "\(keys) sort keys: \(answer)")
            #expect(Date().timeIntervalSince(started) < 2)
        }
        let filters = (0..<40).map { _ in "{\"comparator\":\"EQUALS\",\"fieldName\":\"v\",\"fieldValue\":{\"value\":1}}" }.joined(separator: ",")
        let body = Data("{\"query\":{\"recordType\":\"Item\",\"filterBy\":[\(filters)]}}".utf8)
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)).status == 413)
        let bad = Data("{\"query\":{\"recordType\":\"Item\",\"sortBy\":[{\"fieldName\":\"\(String(repeating: "k", count: 300))\"}]}}".utf8)
        #expect(try f.post(path, body: bad, headers: try f.signed(bad, path: path)).status == 400)
    }

    /// 200 connections that send half a request (slowloris), and one that sends a head and a trickle of its body,
    /// are closed by the server within its timeouts; a well-formed request is answered meanwhile.
    @Test func connectionsThatNeverFinishARequestAreClosed() throws {
        let f = try ServerFixture(environment: ["CLOUDNOTES_TIMEOUTS": "1,1,5,20"])
        let port = try #require(f.server.url.port)
        let halfHeads = try (0..<200).map { _ in try RawConnection(port: port, sending: "POST /database/1/x HTTP/1.1\r\nHost: a\r\nX-Slow: ") }
        let trickle = try RawConnection(port: port, sending: "POST /database/1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n0123456789")
        #expect(try f.post("/healthz", body: Data()).status == 200)
        let deadline = Date() + 6
        for connection in halfHeads + [trickle] {
            #expect(connection.waitClosed(until: deadline), "a connection still open \(Date().timeIntervalSince(deadline) + 6) s on")
        }
    }

    /// A client that hangs up mid-query frees the server: the query stops at its next batch, long before it would
    /// have ended (the server's log says how long it worked), and the thread is free for others.
    @Test func aQueryWhoseClientHangsUpStops() throws {
        let f = try ServerFixture(environment: ["CLOUDNOTES_RATE_LIMIT": "1000000,1000000"])
        try Self.fill(f, records: 16_000)
        let path = f.path(.private, "records/query"), body = Self.query(sortKeys: 8)
        let started = Date()
        #expect(try f.post(path, body: body, headers: try f.signed(body, path: path)).status == 200)
        let whole = Date().timeIntervalSince(started)
        Thread.sleep(forTimeInterval: 1.1)  // (its work charged to heather's rate: a second's wait at this rate)
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in try f.signed(body, path: path) { head += "\(name): \(value)\r\n" }
        let connection = try RawConnection(port: try #require(f.server.url.port), sending: head + "\r\n" + String(decoding: body, as: UTF8.self))
        Thread.sleep(forTimeInterval: whole / 5)
        connection.hangUp()
        let log = f.directory.url.appendingPathComponent("server.log")
        func abandoned() -> Double? {
            let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n")
                .filter { $0.contains("records/query") && $0.contains("\"message\":\"request\"") } ?? []
            guard lines.count >= 2, let json = try? JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any],
                  json["status"] as? String == "503" else { return nil }
            return (json["ms"] as? String).flatMap(Double.init)
        }
        #expect(eventually(timeout: whole * 2 + 2) { abandoned() != nil })
        let charged = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").first { $0.contains("\"message\":\"charged\"") }
        #expect(charged?.contains("records/query") == true, "the log says what the costly query was charged: \(charged ?? "nothing")")
        let worked = try #require(abandoned()) / 1000
        print("a query took \(String(format: "%.2f", whole)) s whole; hung up on, it worked \(String(format: "%.2f", worked)) s")
        #expect(worked < whole * 0.6, "worked \(worked) s of \(whole)")
    }

    /// Past an account's queries in flight, the next is THROTTLED at once with a time to wait, never queued.
    @Test func anAccountPastItsRequestsInFlightIsToldToWait() throws {
        let f = try ServerFixture(environment: ["CLOUDNOTES_IN_FLIGHT": "8,8,1", "CLOUDNOTES_RATE_LIMIT": "1000000,1000000"])
        try Self.fill(f, records: 4_000)
        let path = f.path(.private, "records/query"), body = Self.query(sortKeys: 8)
        let answers = Mutex<[(status: Int, code: String?)]>([])
        let group = DispatchGroup()
        for _ in 0..<6 {
            group.enter()
            Thread {
                if let answer = try? f.post(path, body: body, headers: try f.signed(body, path: path)) { answers.withLock { $0.append(answer) } }
                group.leave()
            }.start()
        }
        group.wait()
        let all = answers.withLock { $0 }
        #expect(all.count == 6)
        #expect(all.contains { $0.status == 200 } && all.contains { $0.status == 429 && $0.code == "THROTTLED" }, "\(all)")
    }

    /// Account A floods the server with the costliest queries it may send, on 12 connections at once, ignoring
    /// THROTTLED; account B's reads (a device's fetch) stay under twice as slow as without the flood, at the 95th
    /// percentile, measured side by side in one run.
    @Test func oneAccountsFloodLeavesAnothersReadsLessThanTwiceAsSlow() throws {
        let f = try ServerFixture()
        try Self.fill(f, records: 4_000)
        let mary = try f.cloud.createAccount(name: "mary")
        let maryKey = P256.Signing.PrivateKey()
        let maryKeyID = try f.cloud.enrol(code: try f.cloud.makeEnrolmentCode(for: mary), publicKey: maryKey.publicKey.derRepresentation,
                                          deviceName: "mary/laptop").key.keyID
        let maryZone = try f.cloud.database(.private, as: mary).save(zone: ZoneID(name: "Notes"))
        for i in 0..<50 { _ = try f.cloud.database(.private, as: mary).save(.make("m\(i)", in: maryZone, ["title": "post \(i)"])) }
        let read = f.path(.private, "records/changes")
        let readBody = Data("{\"zoneID\":{\"zoneName\":\"Notes\"}}".utf8)
        // Mary's client is a machine apart from heather's: its own connections and event loop.
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = HTTPClient(eventLoopGroupProvider: .shared(loops))
        defer {
            try? client.syncShutdown()
            try? loops.syncShutdownGracefully()
        }
        func maryReads(_ n: Int) throws -> [Double] {
            var times: [Double] = []
            for _ in 0..<n {
                var request = try HTTPClient.Request(url: f.server.url.absoluteString + read, method: .POST, body: .bytes(readBody))
                let signed = try RequestSignature.headers(keyID: maryKeyID, key: maryKey, date: Date(), body: readBody, path: read)
                for (name, value) in signed { request.headers.add(name: name, value: value) }
                let started = DispatchTime.now().uptimeNanoseconds
                let answer = try client.execute(request: request, deadline: NIODeadline.now() + TimeAmount.seconds(10)).wait()
                #expect(answer.status.code == 200)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
            }
            return times
        }
        func p95(_ times: [Double]) -> Double { times.sorted()[Int(Double(times.count) * 0.95)] }
        _ = try maryReads(20)  // warm
        // Other suites run beside this one and this machine is shared, so one pair of figures can be blown by noise
        // that is not the flood's doing: up to three rounds of quiet-then-flooded are measured, each pair side by side,
        // and one round within the bound passes. A server that lets the flood through (no limit on requests in flight,
        // queries not abandoned) is many times slower in every round.
        var rounds: [(quiet: Double, flooded: Double)] = []
        for _ in 0..<3 {
            let quiet = p95(try maryReads(150))
            let flooding = Atomic<Bool>(true), floodAnswers = Atomic<Int>(0)
            let path = f.path(.private, "records/query"), body = Self.query(sortKeys: 8)
            let flood = DispatchGroup()
            for _ in 0..<12 {
                flood.enter()
                Thread {
                    while flooding.load(ordering: .relaxed) {
                        // Heather's answers (THROTTLED or not) are not what is measured; only their count is printed.
                        if (try? f.post(path, body: body, headers: try f.signed(body, path: path))) != nil { floodAnswers.add(1, ordering: .relaxed) }
                    }
                    flood.leave()
                }.start()
            }
            Thread.sleep(forTimeInterval: 0.5)
            let cpu0 = ProcessorTimes.now()
            let flooded = p95(try maryReads(150))
            let cpu = ProcessorTimes.now().minus(cpu0).map { "\($0.key) \(String(format: "%.2f", $0.value)) s" }.sorted()
            flooding.store(false, ordering: .relaxed)
            flood.wait()
            print("mary's reads, p95: \(String(format: "%.1f", quiet)) ms quiet, \(String(format: "%.1f", flooded)) ms while heather floods "
                  + "(\(floodAnswers.load(ordering: .relaxed)) answers to her; processor meanwhile: \(cpu.joined(separator: ", ")))")
            rounds.append((quiet, flooded))
            if flooded <= 2 * max(quiet, 2) { break }
        }
        #expect(rounds.contains { $0.flooded <= 2 * max($0.quiet, 2) },
                "p95 flooded against quiet, each round: \(rounds.map { String(format: "%.1f/%.1f ms", $0.flooded, $0.quiet) })")
    }

    /// Heather's Notes zone with `records` records of the queried type, saved through the library.
    static func fill(_ f: ServerFixture, records: Int) throws {
        let db = f.cloud.database(.private, as: f.heather)
        let zone = try db.save(zone: ZoneID(name: "Notes"))
        for start in stride(from: 0, to: records, by: 400) {
            let batch = (start..<min(records, start + 400)).map { i in
                var record = Record(type: "Item", id: RecordID(name: "r\(i)", zone: zone))
                for k in 0..<8 { record["f\(k)"] = .string("value \((i * 7919 + k) % 1000) of a sort key") }
                return record
            }
            _ = try db.modifyRecords(saving: batch, policy: .allKeys)
        }
    }
}

/// A TCP connection to the server on loopback that sends some bytes and then nothing.
final class RawConnection {
    private let socket: Int32

    init(port: Int, sending text: String) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = text.withCString { send(socket, $0, strlen($0), 0) }
    }

    deinit { close(socket) }

    /// Closes the connection at once, without waiting for an answer.
    func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Whether the server closed the connection (a read returns its end) before `deadline`.
    func waitClosed(until deadline: Date) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let read = recv(socket, &buffer, buffer.count, 0)
            if read <= 0 { return true }  // closed (an answer, if any, came before)
        }
        return false
    }
}

enum ProcessorTimes {
    /// Seconds of processor this process and each `cloudnotes` process have used (from /proc), by name and pid.
    static func now() -> [String: Double] {
        var out: [String: Double] = [:]
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: stat.firstIndex(of: "(")!)..<close])
            guard name.hasPrefix("cloudnotes") || name.hasPrefix("CloudNotes") || Int32(pid) == getpid() else { continue }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            out["\(name)/\(pid)"] = (Double(fields[11])! + Double(fields[12])!) / tick
        }
        return out
    }
}
extension [String: Double] {
    func minus(_ other: [String: Double]) -> [String: Double] { merging(other.mapValues { -$0 }) { $0 + $1 } }
}
