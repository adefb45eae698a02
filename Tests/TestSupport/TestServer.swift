import CloudClient
import Foundation

/// `cloudnotes cloud serve` on a free loopback port, as its own OS process, serving a cloud directory; its access
/// log goes to a file beside it. Stopped (SIGTERM) when released, or killed at will.
public typealias TestServer = ServerProcess

extension ServerProcess {
    public convenience init(cloud directory: URL, environment: [String: String] = [:], listen: String = "127.0.0.1:0",
                            tls: (certificate: String, key: String)? = nil, arguments: [String] = []) throws {
        try self.init(executable: CloudNotesBinary.url, cloud: directory, listen: listen,
                      environment: TestStore.environment(for: directory).merging(environment) { $1 },
                      log: directory.appendingPathComponent("server.log"), tls: tls, arguments: arguments)
    }
}
