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
        let env = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "screen-256color", "TZ": "UTC"].merging(environment) { $1 }
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

    /// Runs tmux with posix_spawn and waitpid (Foundation's Process was seen to
    /// miss the exit of tmux's client here and wait forever).
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env["TMUX"] = nil
        // Only capture-pane's output is read: a server that tmux starts inherits the
        // descriptors of the command that started it, so a pipe there would never close.
        let capture = arguments.first == "capture-pane"
        var fds: [Int32] = [-1, -1]
        if capture { guard pipe(&fds) == 0 else { throw TmuxError("pipe failed") } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        // The test runner's threads block signals; a tmux server that inherited that
        // mask would never see SIGCHLD or SIGTERM, so the child starts with none blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv) == 0 else { throw TmuxError("cannot run tmux") }
        var output = Data()
        if capture {
            close(fds[1])
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fds[0], &buffer, buffer.count)
                if count <= 0 { break }
                output.append(contentsOf: buffer[0..<count])
            }
            close(fds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
