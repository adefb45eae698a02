/// What a simulation run does; the same options give the same run.
public struct SimulationOptions: Sendable, Equatable {
    public var seed: UInt64 = 1
    public var devices = 4
    public var accounts = 2
    public var steps = 2_000
    /// The share of cloud requests that fail with a transient error, and the
    /// weight of the harsher faults (zones deleted behind the engines' backs,
    /// crashes) among the steps.
    public var faultRate = 0.2
    /// Whether the app simulation has its intruder (eve, who goes for the keys).
    public var intruder = true
    /// Whether the app simulation's people also rename and delete notebooks. (Off, a seed replays as it did before
    /// this was added: the steps' draw is unchanged.)
    public var notebookChurn = false

    public init(seed: UInt64 = 1, devices: Int = 4, accounts: Int = 2, steps: Int = 2_000, faultRate: Double = 0.2, intruder: Bool = true,
                notebookChurn: Bool = false) {
        self.seed = seed
        self.devices = devices
        self.accounts = accounts
        self.steps = steps
        self.faultRate = faultRate
        self.intruder = intruder
        self.notebookChurn = notebookChurn
    }
}

/// What a run found.
public struct SimulationReport: Sendable {
    public var seed: UInt64
    public var steps: Int
    public var counts: [String: Int]
    public var violations: [String]

    public init(seed: UInt64, steps: Int, counts: [String: Int], violations: [String]) {
        self.seed = seed
        self.steps = steps
        self.counts = counts
        self.violations = violations
    }

    public var passed: Bool { violations.isEmpty }

    /// One line: the seed, what happened, and the verdict.
    public var summary: String {
        let tally = counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "seed \(seed): \(steps) steps, \(tally): "
            + (passed ? "ok" : "\(violations.count) violations, first: \(violations[0])")
    }
}
