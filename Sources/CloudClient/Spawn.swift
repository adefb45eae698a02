import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to its end with posix_spawn and waitpid. Foundation's Process was seen to miss the exit of a
/// child that starts a server (tmux's client, pg_ctl) and wait forever. The child starts with no signal blocked
/// and every one at its default: the test runner's threads block some, and a server that inherited that mask
/// would never see SIGCHLD, SIGTERM or SIGQUIT. It inherits no file descriptor but 0, 1 and 2.
public enum Spawn {
    /// `capture`: what the program writes (stdout and stderr) is read and returned. Only for a program that
    /// starts no server: a server inherits the pipe, and it never closes.
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which Swift's Glibc module does not show.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self) }
    }()

    public static func run(_ argv: [String], environment: [String: String], capture: Bool) throws -> (status: Int32, output: String) {
        var fds: [Int32] = [-1, -1]
        if capture { guard pipe(&fds) == 0 else { throw SpawnError("pipe failed") } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Nothing else the parent has open: a server started from here (PostgreSQL) would otherwise keep a pipe
        // another thread made for another child, and whoever reads that pipe would never see its end.
        guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, 3) == 0 else { throw SpawnError("cannot close inherited files") }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
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
        guard posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv) == 0 else { throw SpawnError("cannot run \(argv[0])") }
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
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, String(decoding: output, as: UTF8.self))
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
