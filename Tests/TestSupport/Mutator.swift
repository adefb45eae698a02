import Cloud
import Foundation

/// Inputs for fuzzing, drawn from a seed so a failure replays: mostly valid
/// examples with a few bytes flipped, inserted, deleted, duplicated or cut,
/// sometimes bytes from nowhere.
public struct Mutator {
    public let random: SeededRandom

    public init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// How many inputs each fuzzer tries: small in CI, `CLOUDNOTES_FUZZ_ITERATIONS` for long runs.
    public static var iterations: Int {
        ProcessInfo.processInfo.environment["CLOUDNOTES_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 2000
    }

    /// Bytes that tend to break parsers.
    static let interesting: [UInt8] = Array("\"\\{}[]:,/%=?#@ \n\t\0-.0123456789eE+".utf8) + [0x80, 0xC3, 0xE2, 0xF0, 0xFF]

    public func input(from seeds: [[UInt8]]) -> [UInt8] {
        if random.below(8) == 0 { return (0..<random.below(64)).map { _ in byte() } }
        var bytes = seeds[random.below(seeds.count)]
        for _ in 0...random.below(4) { bytes = mutate(bytes) }
        return bytes
    }

    public func text(from seeds: [String]) -> String {
        String(decoding: input(from: seeds.map { Array($0.utf8) }), as: UTF8.self)
    }

    func byte() -> UInt8 {
        random.below(2) == 0 ? Self.interesting[random.below(Self.interesting.count)] : UInt8(truncatingIfNeeded: random.next())
    }

    func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let at = bytes.isEmpty ? 0 : random.below(bytes.count)
        switch random.below(6) {
        case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1 << random.below(8))
        case 1: bytes.insert(byte(), at: at)
        case 2 where !bytes.isEmpty: bytes.remove(at: at)
        case 3 where !bytes.isEmpty:
            let end = min(bytes.count, at + 1 + random.below(16))
            bytes.insert(contentsOf: bytes[at..<end], at: random.below(bytes.count))
        case 4: bytes = Array(bytes.prefix(at))
        default: if !bytes.isEmpty { bytes[at] = byte() }
        }
        return bytes
    }
}
