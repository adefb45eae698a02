import Foundation

/// `cloudnotes cloud serve` on a free loopback port, as its own OS process, serving a cloud directory; its access
/// log goes to a file beside it. Stopped (SIGTERM) when released, or killed at will.
public final class TestServer: @unchecked Sendable {
    private let process = Process()
    public let url: URL
    public let log: URL

    /// - Parameter tls: a PEM certificate and key: serve HTTPS.
    public init(cloud directory: URL, environment: [String: String] = [:], listen: String = "127.0.0.1:0",
                tls: (certificate: String, key: String)? = nil) throws {
        process.executableURL = CloudNotesBinary.url
        process.arguments = ["cloud", "serve", "--cloud", directory.path, "--listen", listen]
            + (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? [])
        var env = ProcessInfo.processInfo.environment
        env["CLOUDNOTES_FAULTS"] = nil
        env["CLOUDNOTES_CLOUD"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        log = directory.appendingPathComponent("server-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line says where it listens.
        var line = Data()
        let reader = out.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on ") else {
            throw ServerDidNotStart(output: text + (try String(contentsOf: log, encoding: .utf8)))
        }
        let address = text[range.upperBound...].prefix { !$0.isNewline }
        url = URL(string: "\(tls == nil ? "http" : "https")://\(address)")!
    }

    public struct ServerDidNotStart: Error, CustomStringConvertible {
        public let output: String
        public var description: String { "the server did not start: \(output)" }
    }

    public var port: Int { url.port ?? 0 }
    public var isRunning: Bool { process.isRunning }

    /// SIGKILL: the server dies mid-request, as a crash would.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the graceful shutdown; the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    deinit { stop() }
}
