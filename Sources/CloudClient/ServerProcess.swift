import Foundation

/// `cloudnotes cloud serve` as a process of its own on this machine, for what runs a server beside it (the
/// benchmarks, the soak, the tests): started on a port (0 picks a free one), known by the address it prints.
public final class ServerProcess: @unchecked Sendable {
    public let url: URL
    private let process: Process

    /// - Parameters:
    ///   - executable: the `cloudnotes` binary.
    ///   - environment: added to this process's (`CLOUDNOTES_FAULTS` only if given here).
    ///   - log: where its access log goes (nowhere by default).
    ///   - tls: a PEM certificate and key: serve HTTPS.
    ///   - arguments: more of `serve`'s (`--init`).
    ///
    /// A port just freed by a killed server can take a moment to bind again, so it tries for a few seconds.
    public init(executable: URL, cloud directory: URL, listen: String = "127.0.0.1:0", environment: [String: String] = [:],
                log: URL? = nil, tls: (certificate: String, key: String)? = nil, arguments: [String] = []) throws {
        var said = ""
        for _ in 0..<50 {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["cloud", "serve", "--cloud", directory.path, "--listen", listen]
                + (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []) + arguments
            var env = ProcessInfo.processInfo.environment
            env["CLOUDNOTES_CLOUD"] = nil
            env["CLOUDNOTES_FAULTS"] = nil  // only those given
            for (key, value) in environment { env[key] = value }
            process.environment = env
            let out = Pipe()
            process.standardOutput = out
            if let log {
                if !FileManager.default.fileExists(atPath: log.path) { FileManager.default.createFile(atPath: log.path, contents: nil) }
                let handle = try FileHandle(forWritingTo: log)
                handle.seekToEndOfFile()
                process.standardError = handle
            } else {
                process.standardError = FileHandle.nullDevice
            }
            process.standardInput = FileHandle.nullDevice
            try process.run()
            said = Self.firstLine(out.fileHandleForReading)
            if let range = said.range(of: "listening on ") {
                self.process = process
                url = URL(string: "\(tls == nil ? "http" : "https")://" + said[range.upperBound...].prefix { !$0.isNewline })!
                return
            }
            process.waitUntilExit()
            Thread.sleep(forTimeInterval: 0.1)
        }
        // (The log only adds words to the error thrown here.)
        throw DidNotStart(said: said + (log.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""))
    }

    public struct DidNotStart: Error, CustomStringConvertible {
        public let said: String
        public var description: String { "the server did not start: \(said)" }
    }

    public var port: Int { url.port ?? 0 }
    public var processIdentifier: Int32 { process.processIdentifier }
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

    private static func firstLine(_ reader: FileHandle) -> String {
        var text = ""
        while !text.contains("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }
}
