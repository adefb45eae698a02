import Foundation

/// Timings of one operation, in milliseconds.
struct Timings {
    var samples: [Double] = []

    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        return result
    }

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    var median: Double { percentile(0.5) }
    var p95: Double { percentile(0.95) }
    var p99: Double { percentile(0.99) }
    var total: Double { samples.reduce(0, +) }

    /// Times one run of `body`, in milliseconds.
    static func once(_ body: () throws -> Void) rethrows -> Double {
        var timings = Timings()
        try timings.time(body)
        return timings.samples[0]
    }
}

/// The most memory this process has held (VmHWM), in MiB.
func peakResidentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return .nan }
    return kib / 1024
}

/// A figure as the table and the JSON print it.
struct Figure: Codable {
    var name: String
    var median: Double?
    var p95: Double?
    var p99: Double?
    var value: Double?
    var unit: String
    var target: String

    init(name: String, median: Double? = nil, p95: Double? = nil, p99: Double? = nil, value: Double? = nil, unit: String, target: String) {
        self.name = name
        self.median = median
        self.p95 = p95
        self.p99 = p99
        self.value = value
        self.unit = unit
        self.target = target
    }

    func row() -> [String] {
        let format = { (x: Double?) in x.map { String(format: "%.2f", $0) } ?? "" }
        return [name, format(median), format(p95), format(p99), format(value), unit, target]
    }
}

func printTable(_ figures: [Figure]) {
    let rows = [["FIGURE", "MEDIAN", "P95", "P99", "VALUE", "UNIT", "TARGET"]] + figures.map { $0.row() }
    let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
        print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
    }
}

/// Runs this executable again with `arguments` (work whose memory or state must
/// not mix with the caller's) and returns what it printed; throws if it failed.
func runSelf(_ arguments: [String]) throws -> Data {
    try runProcess(URL(fileURLWithPath: CommandLine.arguments[0]), arguments)
}

/// An executable built beside this one (`cloudnotes`, say).
func beside(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs an executable and returns what it printed, or, when the output is not kept, throws it away unread;
/// throws with what it said on stderr if it failed. (Both pipes are read to their end before waiting: the
/// wait alone returns only at the next tick of a ~50 ms poll, which a timing would count.)
@discardableResult
func runProcess(_ executable: URL, _ arguments: [String], keepingOutput: Bool = true) throws -> Data {
    let child = Process()
    child.executableURL = executable
    child.arguments = arguments
    let out = Pipe(), errors = Pipe()
    child.standardOutput = keepingOutput ? out : FileHandle.nullDevice
    child.standardError = errors
    try child.run()
    let data = keepingOutput ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    let said = errors.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    guard child.terminationStatus == 0 else {
        throw BenchError("\(executable.lastPathComponent) \(arguments.prefix(2).joined(separator: " ")) failed "
                         + "(status \(child.terminationStatus)): \(String(decoding: said, as: UTF8.self))")
    }
    return data
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
