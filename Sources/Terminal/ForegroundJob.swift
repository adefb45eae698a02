import Foundation
import Glibc

/// Runs a program on the terminal as a shell runs a job in the foreground: in a process group of its own, given the
/// terminal (`tcsetpgrp`), with every signal at its default and none blocked, then the terminal taken back. An
/// interactive editor started any other way is in the background: it cannot read the terminal (vi exits, "Error
/// reading input").
enum ForegroundJob {
    enum Outcome: Equatable {
        case exited(Int32)
        case killed(Int32)
        case notStarted(String)
    }

    static func run(_ argv: [String], environment: [String: String]) -> Outcome {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], nil, &attributes, cArgs, cEnv)
        guard spawned == 0 else { return .notStarted(String(cString: strerror(spawned))) }
        // The terminal is the job's while it runs (ENOTTY when there is none: nothing to hand over).
        let ours = getpgrp()
        _ = tcsetpgrp(STDIN_FILENO, pid)
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WUNTRACED)
            if waited < 0 && errno == EINTR { continue }
            // Stopped (Ctrl-Z in the editor): there is no shell here to resume it, so it goes on.
            if waited == pid, status & 0xff == 0x7f {
                kill(-pid, SIGCONT)
                continue
            }
            break
        }
        // Taken back: a process group asking for the terminal from the background is sent SIGTTOU, set aside here.
        let previous = signal(SIGTTOU, SIG_IGN)
        _ = tcsetpgrp(STDIN_FILENO, ours)
        signal(SIGTTOU, previous)
        return status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .killed(status & 0x7f)
    }
}
