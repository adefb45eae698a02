import Foundation

/// What a finished process left behind.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs the built `cloudnotes` executable as a separate OS process.
public enum CloudNotesBinary {
    public static var url: URL { built("cloudnotes") }

    /// A built executable: it sits beside the test bundle in the build directory.
    public static func built(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = bundle.deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        fatalError("cannot find the \(name) executable near \(bundle.path)")
    }

    /// Starts the process; call `finish` on the result to wait for it.
    public static func start(_ arguments: [String], environment: [String: String] = [:], executable: String = "cloudnotes") throws -> RunningProcess {
        try RunningProcess(url: built(executable), arguments: arguments, environment: environment)
    }

    /// Runs to the end and returns status and output.
    public static func run(_ arguments: [String], environment: [String: String] = [:], executable: String = "cloudnotes") throws -> ProcessResult {
        try start(arguments, environment: environment, executable: executable).finish()
    }
}

public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    public init(url: URL, arguments: [String], environment: [String: String]) throws {
        process.executableURL = url
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["CLOUDNOTES_FAULTS"] = nil
        env["CLOUDNOTES_CLOUD"] = nil
        for (key, value) in environment { env[key] = value }
        if env["CLOUDNOTES_STORE"] == nil, let directory = Self.cloudDirectory(arguments, env) {
            for (key, value) in try TestStore.environment(for: directory) { env[key] = value }
        }
        if environment["XDG_STATE_HOME"] == nil, let directory = Self.cloudDirectory(arguments, env) {
            // Each test's cloud keeps the copies of its high-water marks beside it, not in the runner's home.
            env["XDG_STATE_HOME"] = directory.deletingLastPathComponent().appendingPathComponent("state").path
        }
        process.environment = env
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The cloud directory a command names (`--cloud DIR`, else `CLOUDNOTES_CLOUD`): on the PostgreSQL run its
    /// database is passed on, so that every process of a test reaches the same cloud.
    static func cloudDirectory(_ arguments: [String], _ environment: [String: String]) -> URL? {
        let named = arguments.firstIndex(of: "--cloud").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            ?? environment["CLOUDNOTES_CLOUD"]
        guard let named, !named.isEmpty, !named.hasPrefix("http://"), !named.hasPrefix("https://") else { return nil }
        return URL(fileURLWithPath: named)
    }

    public var isRunning: Bool { process.isRunning }

    /// Ends the program (SIGTERM), as a test that waited long enough for it to end by itself does.
    public func terminate() { if process.isRunning { process.terminate() } }

    public func finish() -> ProcessResult {
        // Read before waiting, so a full pipe cannot stall the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: stdout, as: UTF8.self),
                             stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Waits until `condition` holds or `timeout` passes; true if it held.
public func eventually(timeout: TimeInterval = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date() + timeout
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}
