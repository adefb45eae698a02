import Foundation

extension JSON {
    /// The value `data` holds (RFC 8259: UTF-8, one value, whitespace around it). Nesting deeper than
    /// `JSONReader.maxDepth` is refused rather than followed, so a hostile body cannot exhaust the stack.
    public init(parsing data: Data) throws(WireFormatError) {
        let parsed: Result<JSON, WireFormatError> = data.withUnsafeBytes { raw in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            return Result { () throws(WireFormatError) in try reader.document() }
        }
        self = try parsed.get()
    }
}

/// Reads one JSON document from bytes, straight into `JSON` values.
struct JSONReader {
    static let maxDepth = 128

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() throws(WireFormatError) -> JSON {
        let value = try self.value()
        skipSpace()
        guard at == bytes.count else { throw failure("more after the JSON value") }
        return value
    }

    private mutating func value() throws(WireFormatError) -> JSON {
        skipSpace()
        guard at < bytes.count else { throw failure("the body ends before its value") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func object() throws(WireFormatError) -> JSON {
        try descend()
        at += 1
        var object = JSONObject()
        skipSpace()
        if peek(UInt8(ascii: "}")) { at += 1; depth -= 1; return .object(object) }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("an object's keys are strings") }
            let key = try string()
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw failure("a key is followed by a colon") }
            at += 1
            object.append(key, try value())
            skipSpace()
            guard at < bytes.count else { throw failure("an object is not closed") }
            let next = bytes[at]
            at += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw failure("an object's members are separated by commas") }
        }
        depth -= 1
        return .object(object)
    }

    private mutating func array() throws(WireFormatError) -> JSON {
        try descend()
        at += 1
        var items: [JSON] = []
        skipSpace()
        if peek(UInt8(ascii: "]")) { at += 1; depth -= 1; return .array(items) }
        while true {
            items.append(try value())
            skipSpace()
            guard at < bytes.count else { throw failure("an array is not closed") }
            let next = bytes[at]
            at += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { throw failure("an array's items are separated by commas") }
        }
        depth -= 1
        return .array(items)
    }

    private mutating func string() throws(WireFormatError) -> String {
        at += 1
        let start = at
        // Most strings have no escapes: one validating copy of their bytes.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") {
            guard bytes[at] >= 0x20 else { throw failure("a string holds a control character unescaped") }
            at += 1
        }
        guard at < bytes.count else { throw failure("a string is not closed") }
        if bytes[at] == UInt8(ascii: "\"") {
            at += 1
            return try text(UnsafeBufferPointer(rebasing: bytes[start..<at - 1]))
        }
        var unescaped = Array(bytes[start..<at])
        while true {
            guard at < bytes.count else { throw failure("a string is not closed") }
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try unescaped.withUnsafeBufferPointer { buffer throws(WireFormatError) in try text(buffer) }
            case UInt8(ascii: "\\"):
                try escape(into: &unescaped)
            case ..<0x20:
                throw failure("a string holds a control character unescaped")
            default:
                unescaped.append(byte)
            }
        }
    }

    private mutating func escape(into unescaped: inout [UInt8]) throws(WireFormatError) {
        guard at < bytes.count else { throw failure("a string ends in a backslash") }
        let byte = bytes[at]
        at += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(byte)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A surrogate pair: the low half must follow at once.
                guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw failure("a string holds half a surrogate pair")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a string holds half a surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let character = Unicode.Scalar(scalar) else { throw failure("a string holds half a surrogate pair") }
            unescaped.append(contentsOf: String(Character(character)).utf8)
        default:
            throw failure("a string holds an unknown escape")
        }
    }

    private mutating func hex4() throws(WireFormatError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw failure("a \\u escape has four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            at += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape has four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The bytes as a string, refused unless they are UTF-8. (Decoding repairs bad bytes; a repaired string differs
    /// from its bytes. `String(validating:)` takes a generic path that cost more than the rest of the parse.)
    private func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(WireFormatError) -> String {
        var text = String(decoding: utf8, as: UTF8.self)
        guard text.utf8.count == utf8.count, utf8.isEmpty || text.withUTF8({ memcmp($0.baseAddress!, utf8.baseAddress!, utf8.count) == 0 }) else {
            throw failure("a string is not UTF-8")
        }
        return text
    }

    /// A number as RFC 8259 writes one; a whole number that fits is an `int`, any other a `double`.
    private mutating func number() throws(WireFormatError) -> JSON {
        let start = at
        if peek(UInt8(ascii: "-")) { at += 1 }
        let integerStart = at
        skipDigits()
        guard at > integerStart else { throw failure("a value is a string, number, object, array, true, false or null") }
        guard bytes[integerStart] != UInt8(ascii: "0") || at == integerStart + 1 else { throw failure("a number has no leading zeros") }
        var whole = true
        if peek(UInt8(ascii: ".")) {
            whole = false
            at += 1
            let fraction = at
            skipDigits()
            guard at > fraction else { throw failure("a number's point is followed by digits") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            whole = false
            at += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { at += 1 }
            let exponent = at
            skipDigits()
            guard at > exponent else { throw failure("a number's exponent has digits") }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        if whole, let int = Int64(literal) { return .int(int) }
        guard let double = Double(literal), double.isFinite else { throw failure("a number is out of range") }
        return .double(double)
    }

    private mutating func literal(_ word: StaticString) throws(WireFormatError) {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count, memcmp(bytes.baseAddress! + at, word.utf8Start, count) == 0 else {
            throw failure("a value is a string, number, object, array, true, false or null")
        }
        at += count
    }

    private mutating func descend() throws(WireFormatError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("the body nests deeper than \(Self.maxDepth) levels") }
    }

    private func peek(_ byte: UInt8) -> Bool { at < bytes.count && bytes[at] == byte }

    private mutating func skipDigits() {
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
    }

    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x0A, 0x0D, 0x09: at += 1
            default: return
            }
        }
    }

    private func failure(_ why: String) -> WireFormatError { WireFormatError("the body is not JSON: \(why) (at byte \(at))") }
}
