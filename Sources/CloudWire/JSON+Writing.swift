import Foundation

extension JSON {
    /// The value as compact JSON text, objects' members in their order. A number JSON cannot hold (NaN, ±∞) is
    /// refused rather than written as something else.
    public func encoded() throws(WireFormatError) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try write(into: &out)
        return Data(out)
    }

    func write(into out: inout [UInt8]) throws(WireFormatError) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            guard d.isFinite else { throw WireFormatError("\(d) cannot be written in JSON") }
            // A whole number as one (a timestamp in ms, say): what other writers do, and shorter.
            // (Not −0, whose sign would go; not past 2⁵³, where `magnitude` keeps Int64.min from trapping.)
            if d.magnitude < 0x1p53, let whole = Int64(exactly: d), !(d == 0 && d.sign == .minus) {
                out.append(contentsOf: String(whole).utf8)
            } else {
                out.append(contentsOf: d.description.utf8)
            }
        case .string(let s): Self.write(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string with the escapes JSON requires (quote, backslash, control characters); the rest as UTF-8.
    private static func write(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.makeContiguousUTF8()
        // Most strings need no escape: one copy of their bytes.
        let plain = string.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
