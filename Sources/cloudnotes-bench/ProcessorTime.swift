import Foundation

/// Processor time (user and system) taken since it was made by this process (the devices), the servers, and
/// PostgreSQL's processes, as a share of one core over the wall time: what a load run had to share two cores
/// between. From `/proc`, so a process that exits meanwhile is left out.
struct ProcessorTime {
    let servers: [Int32]
    let database: Bool
    private let started = Date()
    private let before: (devices: Double, servers: Double, database: Double)

    init(servers: [Int32], database: Bool) {
        self.servers = servers
        self.database = database
        before = (Self.seconds(getpid()), servers.map(Self.seconds).reduce(0, +), database ? Self.seconds(named: "postgres") : 0)
    }

    func sinceStart() -> (devices: Double, servers: Double, database: Double?) {
        let wall = Date().timeIntervalSince(started)
        func share(_ now: Double, _ then: Double) -> Double { wall > 0 ? (now - then) / wall * 100 : 0 }
        return (share(Self.seconds(getpid()), before.devices), share(servers.map(Self.seconds).reduce(0, +), before.servers),
                database ? share(Self.seconds(named: "postgres"), before.database) : nil)
    }

    /// utime + stime of `/proc/PID/stat` (fields 14 and 15, counted after the command's closing parenthesis).
    static func seconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Every process whose command is `name`.
    static func seconds(named name: String) -> Double {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.filter { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) == name
        }.map(seconds).reduce(0, +)
    }
}

/// A directory in memory (`/dev/shm`) where this machine has one, else in the temporary directory.
enum MemoryDirectory {
    static let root = "/dev/shm"

    static func make() -> URL {
        let base = FileManager.default.isWritableFile(atPath: root) ? URL(fileURLWithPath: root) : FileManager.default.temporaryDirectory
        return base.appendingPathComponent("cloudnotes-bench-devices-\(getpid())-\(UUID().uuidString.prefix(6))")
    }
}
