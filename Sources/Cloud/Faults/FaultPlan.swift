import Foundation

/// The transient failures the fault switch can inject.
public enum TransientFault: String, Codable, Sendable, CaseIterable {
    case networkUnavailable, networkFailure, serviceUnavailable, requestRateLimited, zoneBusy

    func error(retryAfter: TimeInterval) -> CloudError {
        switch self {
        case .networkUnavailable: .networkUnavailable
        case .networkFailure: .networkFailure
        case .serviceUnavailable: .serviceUnavailable(retryAfter: retryAfter)
        case .requestRateLimited: .requestRateLimited(retryAfter: retryAfter)
        case .zoneBusy: .zoneBusy(retryAfter: retryAfter)
        }
    }
}

/// What the fault switch does to requests: nothing (the default), refuse
/// them all as unreachable, or fail a share of them with transient errors.
///
/// The same plan comes from `faults.json` in the cloud directory or from the
/// `CLOUDNOTES_FAULTS` variable, written `unreachable`, `off`, or
/// `rate=0.1;errors=networkFailure,zoneBusy;retryAfter=0.2`.
public struct FaultPlan: Codable, Equatable, Sendable {
    public var unreachable: Bool
    /// The share of requests, 0...1, that fail with one of `errors`.
    public var rate: Double
    public var errors: [TransientFault]
    /// The retry-after interval carried by the errors that have one.
    public var retryAfter: TimeInterval

    public init(unreachable: Bool = false, rate: Double = 0, errors: [TransientFault] = [], retryAfter: TimeInterval = 0.2) {
        self.unreachable = unreachable
        self.rate = rate
        self.errors = errors
        self.retryAfter = retryAfter
    }

    public static let off = FaultPlan()
    public static let unreachable = FaultPlan(unreachable: true)

    public var isOff: Bool { !unreachable && (rate <= 0 || errors.isEmpty) }

    public init(parsing text: String) throws(CloudError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "", "off": self = .off; return
        case "unreachable": self = .unreachable; return
        default: self = .off
        }
        for part in trimmed.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .invalidArguments("fault setting '\(part)' is not KEY=VALUE") }
            switch pair[0] {
            case "rate": rate = try Self.parseRate(pair[1])
            case "errors": errors = try Self.parseErrors(pair[1])
            case "retryAfter":
                guard let t = TimeInterval(pair[1]), t >= 0 else { throw .invalidArguments("retryAfter '\(pair[1])' is not a number of seconds") }
                retryAfter = t
            default: throw .invalidArguments("unknown fault setting '\(pair[0])' (use rate, errors, retryAfter)")
            }
        }
        if rate > 0 && errors.isEmpty { errors = TransientFault.allCases }
    }

    public static func parseRate(_ text: String) throws(CloudError) -> Double {
        guard let rate = Double(text), (0...1).contains(rate) else {
            throw .invalidArguments("fault rate '\(text)' must be a number from 0 to 1")
        }
        return rate
    }

    public static func parseErrors(_ text: String) throws(CloudError) -> [TransientFault] {
        var out: [TransientFault] = []
        for name in text.split(separator: ",") {
            guard let fault = TransientFault(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                let known = TransientFault.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidArguments("unknown fault '\(name)' (known: \(known))")
            }
            out.append(fault)
        }
        return out
    }

    /// Decides the fate of one request; `random` makes the pattern replayable.
    func draw(_ random: any RandomSource) -> CloudError? {
        if unreachable { return .networkUnavailable }
        guard rate > 0, !errors.isEmpty, random.unit() < rate else { return nil }
        return errors[random.below(errors.count)].error(retryAfter: retryAfter)
    }
}
