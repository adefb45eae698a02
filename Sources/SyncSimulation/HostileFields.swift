import Cloud
import Foundation

/// Field values a hostile participant saves into someone else's notebook: every type at its extremes, lists nested
/// to the limit, keys of 255 bytes, long strings and bytes, and (`outOfBounds`) the ones just past each limit,
/// which the cloud must refuse. Whatever the cloud takes must read back, on every path, for every reader.
public enum HostileFields {
    /// One to four fields within every limit the cloud sets.
    public static func within(_ random: any RandomSource) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for _ in 0...random.below(4) { fields[key(random)] = value(random, depth: 0) }
        return fields
    }

    /// A field just past one limit: the cloud refuses the record it is in. Returns the field and the limit it breaks.
    public static func outOfBounds(_ random: any RandomSource) -> (key: String, value: FieldValue, breaks: String) {
        switch random.below(5) {
        case 0: return ("deep", nested(FieldValue.maxListDepth + 1 + random.below(100)), "lists nested past \(FieldValue.maxListDepth)")
        case 1: return ("k" + String(repeating: "y", count: 255), .int(1), "a key over 255 bytes")
        case 2: return (["a.b", "1st", "_x", "ключ", "a b", ""][random.below(6)], .int(1), "a key that is no field name")
        case 3: return ("when", .date(Date(timeIntervalSince1970: FieldValue.maxDateSeconds * (1 + random.unit()) * (random.below(2) == 0 ? 1 : -1))),
                        "a date past 100 million days")
        default: return ("x", .list([.double(.nan)]), "a number that is not finite")
        }
    }

    static func key(_ random: any RandomSource) -> String {
        switch random.below(4) {
        case 0: "k" + String(repeating: "z", count: 254)  // 255 bytes: the most a key may hold
        case 1: "v"
        default: "f\(random.below(1000))_X"
        }
    }

    static func value(_ random: any RandomSource, depth: Int) -> FieldValue {
        switch random.below(9) {
        case 0: return .string(strings[random.below(strings.count)] + (random.below(4) == 0 ? String(repeating: "長", count: random.below(50_000)) : ""))
        case 1: return .int([Int64.min, Int64.max, 0, -1, 1 << 53 + 1][random.below(5)])
        case 2: return .double([Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, -0.0, 0.1,
                                1e-300, 9_007_199_254_740_993][random.below(7)])
        case 3: return .bool(random.below(2) == 0)
        case 4: return .date(Date(timeIntervalSince1970: [FieldValue.maxDateSeconds, -FieldValue.maxDateSeconds, 0, -0.000_001,
                                                          1_795_000_000.123_456][random.below(5)]))
        case 5: return .bytes(Data((0..<[0, 1, 70_000][random.below(3)]).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        case 6: return .reference(Reference(recordName: ["r1", String(repeating: "n", count: 255), "é\u{301}"][random.below(3)],
                                            action: random.below(2) == 0 ? .none : .deleteSelf))
        case 7 where depth < FieldValue.maxListDepth:
            return random.below(3) == 0 ? nested(FieldValue.maxListDepth - depth) : .list((0..<random.below(4)).map { _ in value(random, depth: depth + 1) })
        default: return .list([])
        }
    }

    /// Lists inside lists, `depth` of them, around one string.
    static func nested(_ depth: Int) -> FieldValue {
        (0..<depth).reduce(FieldValue.string("core")) { inner, _ in .list([inner]) }
    }

    /// Text that is data, never terminal control or markup: controls, escapes, NUL, bidirectional overrides, emoji.
    static let strings = ["", "\u{0}", "\u{1B}]52;c;ZXZl\u{7}", "\u{202E}txt.exe", "line\nbreak\r\n", "👨‍👩‍👧‍👦🇻🇳", "नमस्ते", "'; DROP TABLE records; --",
                          "<script>", "\\u0000", "\u{FEFF}"]
}
