import Cloud
@testable import CloudClient
import Crypto
import Foundation
import Glibc
import Synchronization
import Testing

/// A server that accepts connections and reads requests but never answers (hung, or a port someone else holds):
/// a device asks it one small question, gives up after the question's few seconds, and sends nothing else to it
/// for a while, so a command or a sync round ends in seconds saying it is offline, not in minutes.
@Suite(.serialized) struct SilentServerTests {
    @Test func aServerThatNeverAnswersIsNotWaitedOnForEveryRequest() throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let heather = Account(id: "_heather", name: "heather", email: "heather@example.com", createdAt: Date())
        let credentials = RemoteCloud.Credentials(keyID: "key", key: P256.Signing.PrivateKey(), account: heather)
        let cloud = RemoteCloud(server: silent.url, credentials: credentials, timeout: 30)

        #expect(throws: CloudError.networkFailure) { try cloud.identity() }  // its deadline: seconds, not the 30 of a request
        // Not sent at all while the server reads as not answering: each would wait its whole deadline.
        #expect(throws: CloudError.networkFailure) { try cloud.database(.private, as: heather).allZones() }
        #expect(throws: CloudError.networkFailure) { try cloud.accounts() }
        #expect(silent.requests == 1, "requests the silent server received: \(silent.requests)")
    }
}

/// Listens on 127.0.0.1, accepts every connection, counts the requests it reads, and answers none.
final class SilentServer: Sendable {
    let url: URL
    private let socket: Int32
    private let counter = Counter()

    var requests: Int { counter.count.withLock { $0 } }

    private final class Counter: Sendable {
        let count = Mutex(0)
    }

    init() throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socket = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        let counter = counter
        Thread.detachNewThread {
            while case let connection = accept(listener, nil, nil), connection >= 0 {
                Thread.detachNewThread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while case let read = Glibc.read(connection, &buffer, buffer.count), read > 0 {
                        let text = String(decoding: buffer[..<read], as: UTF8.self)
                        if text.hasPrefix("POST ") || text.hasPrefix("GET ") { counter.count.withLock { $0 += 1 } }
                    }
                    close(connection)
                }
            }
        }
    }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
