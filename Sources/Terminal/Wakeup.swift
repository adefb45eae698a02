import Glibc

/// A pipe the event loop polls beside the keyboard: any thread writes a
/// byte to wake it (a sync round ended, a cloud call came back, a signal).
public final class Wakeup: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "cannot make a pipe")
        readEnd = fds[0]
        writeEnd = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // a full pipe already means "awake"
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
