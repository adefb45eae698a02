import Foundation

/// Reads the fault plan in force: the environment's, if set, else the
/// cloud directory's `faults.json`, re-read only when the file changes.
final class FaultSwitch: @unchecked Sendable {
    static let fileName = "faults.json"
    static let environmentKey = "CLOUDNOTES_FAULTS"

    private let path: String
    private let override: FaultPlan?
    private let lock = NSLock()
    private var cached: (stamp: timespec, plan: FaultPlan)?

    init(directory: URL, override: FaultPlan?) {
        self.path = directory.appendingPathComponent(Self.fileName).path
        self.override = override
    }

    var current: FaultPlan {
        if let override { return override }
        var info = stat()
        guard stat(path, &info) == 0 else { return .off }
        return lock.withLock {
            if let cached, cached.stamp.tv_sec == info.st_mtim.tv_sec, cached.stamp.tv_nsec == info.st_mtim.tv_nsec {
                return cached.plan
            }
            // An unreadable or half-written file means no faults, never a crash; `problem` says why.
            let plan = (try? Data(contentsOf: URL(fileURLWithPath: path)))
                .flatMap { try? JSONDecoder().decode(FaultPlan.self, from: $0) } ?? .off
            cached = (info.st_mtim, plan)
            return plan
        }
    }

    /// Why the file in force cannot be read as a plan (nil when there is none, or it reads): a plan written
    /// by hand that does not parse must not pass for "no faults" in silence.
    var problem: String? {
        guard override == nil, FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return "\(path) cannot be read; no faults are injected" }
        guard (try? JSONDecoder().decode(FaultPlan.self, from: data)) == nil else { return nil }
        return "\(path) is not a fault plan; no faults are injected: fix it, or run cloudnotes cloud faults --off"
    }

    /// Writes the plan atomically, so readers see the old one or the new one.
    static func write(_ plan: FaultPlan, to directory: URL) throws(CloudError) {
        let url = directory.appendingPathComponent(fileName)
        do {
            if plan.isOff {
                if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
                return
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(plan).write(to: url, options: .atomic)
        } catch {
            throw .storage("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
