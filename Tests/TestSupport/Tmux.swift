import CloudClient
import Foundation

/// Real terminals for end-to-end tests: each session runs one program in a
/// tmux pane of a fixed size with a UTF-8 locale and a pinned TERM and TZ
/// (tig's harness pins the same); keys go in with `send-keys`, the screen
/// comes out with `capture-pane -p`. A private socket keeps tests apart.
public final class Tmux: @unchecked Sendable {
    private let socket = "cloudnotes-test-\(getpid())-\(UUID().uuidString.prefix(8))"
    public let width: Int
    public let height: Int

    public init(width: Int = 160, height: Int = 40) {
        self.width = width
        self.height = height
    }

    deinit { end() }

    /// Ends every session and the programs in them.
    public func end() { _ = try? tmux(["kill-server"]) }

    /// Starts `arguments` (a built executable and its arguments) in a new session.
    public func open(_ session: String, _ arguments: [String], environment: [String: String]) throws {
        var env = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "screen-256color", "TZ": "UTC"].merging(environment) { $1 }
        if env["CLOUDNOTES_STORE"] == nil, let directory = RunningProcess.cloudDirectory(arguments, env) {
            env.merge(try TestStore.environment(for: directory)) { $1 }
        }
        let command = ["env"] + env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + arguments
        try tmux(["new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)",
                  command.map(Self.quote).joined(separator: " ") + "; echo '[exited]'; sleep 600"])
    }

    /// Key names as tmux knows them (`Enter`, `Tab`, `C-s`, `Escape`).
    public func press(_ session: String, _ keys: String...) throws {
        for key in keys {
            try tmux(["send-keys", "-t", session, key])
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Text typed literally.
    public func type(_ session: String, _ text: String) throws {
        try tmux(["send-keys", "-t", session, "-l", text])
        Thread.sleep(forTimeInterval: 0.05)
    }

    /// Text pasted as a terminal pastes it: marked as a paste (`ESC [200~` … `ESC [201~`) when the program asked.
    public func paste(_ session: String, _ text: String) throws {
        try tmux(["set-buffer", "-b", "pasted", text])
        try tmux(["paste-buffer", "-p", "-d", "-b", "pasted", "-t", session])
        Thread.sleep(forTimeInterval: 0.05)
    }

    public func screen(_ session: String) throws -> String {
        try tmux(["capture-pane", "-p", "-t", session])
    }

    /// Waits for the screen to satisfy `condition`; returns the last screen either way.
    @discardableResult
    public func waitFor(_ session: String, timeout: TimeInterval = 10, _ condition: (String) -> Bool) throws -> (ok: Bool, screen: String) {
        let deadline = Date() + timeout
        var last = ""
        repeat {
            last = try screen(session)
            if condition(last) { return (true, last) }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return (false, last)
    }

    /// Runs tmux (see `Spawn`). Only capture-pane's output is read: a server that tmux starts inherits the
    /// descriptors of the command that started it, so a pipe there would never close.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env["TMUX"] = nil
        return try Spawn.run(["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments, environment: env,
                             capture: arguments.first == "capture-pane").output
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
