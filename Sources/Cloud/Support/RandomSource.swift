import Foundation

/// A source of randomness that can be replaced by a seeded one, so that a
/// failing run (a simulation, a fault pattern) can be replayed from its seed.
public protocol RandomSource: Sendable {
    func next() -> UInt64
}

extension RandomSource {
    /// A uniform double in [0, 1).
    public func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform integer in 0..<bound.
    public func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// `count` random bytes as lowercase hex.
    public func hex(bytes count: Int) -> String {
        var out = ""
        out.reserveCapacity(count * 2)
        var word = next()
        for i in 0..<count {
            if i > 0 && i % 8 == 0 { word = next() }
            let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(i % 8)))
            out += String(format: "%02x", byte)
        }
        return out
    }
}

/// The operating system's cryptographic generator.
public struct SystemRandom: RandomSource {
    public init() {}
    public func next() -> UInt64 {
        var g = SystemRandomNumberGenerator()
        return g.next()
    }
}

/// SplitMix64: small, fast, and the same sequence for the same seed everywhere.
public final class SeededRandom: RandomSource, RandomNumberGenerator, @unchecked Sendable {
    private let lock = NSLock()
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public func next() -> UInt64 {
        lock.withLock {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
