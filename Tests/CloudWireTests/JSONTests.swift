import Cloud
@testable import CloudWire
import Foundation
import Testing

/// The hand-written JSON reader and writer the protocol's bulk bodies go through: what it writes any other reader
/// takes, and what it reads is RFC 8259 and nothing else, whatever a hostile client sends.
@Suite struct JSONTests {
    private func parse(_ text: String) throws -> JSON { try JSON(parsing: Data(text.utf8)) }

    @Test func stringsComeBackAsTheyWentAndOtherReadersAgree() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let strings = ["", "plain", "quote \" and backslash \\ and slash /", controls, "Hà Nội", "日本語 🎉👩‍👩‍👧", "e\u{301}", "\u{2028}\u{2029}",
                       "\u{1b}[31mred\u{1b}[0m", "\u{7f}\u{ffff}"]
        for string in strings {
            let written = try JSON.object(["key \(string)": .string(string)]).encoded()
            #expect(try JSON(parsing: written) == .object(["key \(string)": .string(string)]))
            let theirs = try JSONSerialization.jsonObject(with: written) as? [String: String]
            #expect(theirs == ["key \(string)": string])
        }
    }

    @Test func escapesAreReadAsRFC8259WritesThem() throws {
        #expect(try parse(#""\u00e9\ud83c\udf89\n\t\r\b\f\/\\\"""#) == .string("é🎉\n\t\r\u{8}\u{c}/\\\""))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func numbersKeepTheirKindAndValue() throws {
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("-9223372036854775808") == .int(.min))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("1.5e3") == .double(1500))
        #expect(try parse("1790000000000.125") == .double(1_790_000_000_000.125))
        for value in [0.1, 1e300, -2.5e-300, 1_790_000_000_000.125, 4_503_599_627_370_497] {
            #expect(try JSON(parsing: JSON.double(value).encoded()).double == value)
        }
        #expect(String(decoding: try JSON.double(1_790_000_000_000).encoded(), as: UTF8.self) == "1790000000000")
        // Whole doubles at the edges: −2⁶³ once trapped the writer (abs(Int64.min)); −0 keeps its sign.
        for edge in [-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0, -0.0, 0x1p53, -0x1p53] {
            let back = try #require(try JSON(parsing: JSON.double(edge).encoded()).double)
            #expect(back == edge && back.sign == edge.sign, "\(edge)")
        }
        #expect(throws: WireFormatError.self) { try JSON.double(.nan).encoded() }
        #expect(throws: WireFormatError.self) { try JSON.array([.double(.infinity)]).encoded() }
    }

    @Test func membersKeepTheirOrderAndAKeyWrittenTwiceCountsLast() throws {
        let object = try parse(#"{"b": 1, "a": 2, "b": 3}"#)
        #expect(object["b"] == .int(3))
        #expect(String(decoding: try object.encoded(), as: UTF8.self) == #"{"b":1,"a":2,"b":3}"#)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a" 1}"#, "{a:1}", "{'a':1}", "01", "-", "1.", ".5", "1e", "+1", "0x10",
        "1e999", "NaN", "Infinity", "tru", "nul", "falsey", "{} x", "[1] [2]", "\"abc", "\"\\q\"", "\"\\u12\"", "\"\\ud800\"",
        "\"\\ud800\\u0041\"", "\"\\udc00\"", "\"tab\there\"", "\"new\nline\"", "[\"a\" \"b\"]",
    ])
    func malformedBodiesAreRefused(_ text: String) {
        #expect(throws: WireFormatError.self) { try parse(text) }
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF0, 0x90, 0x80, 0x22],
                               [0x22, 0xE0, 0x80, 0x80, 0x22]] {
            #expect(throws: WireFormatError.self) { try JSON(parsing: Data(bytes)) }
        }
    }

    @Test func nestingIsFollowedToItsLimitAndRefusedPastIt() throws {
        let limit = JSONReader.maxDepth
        _ = try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        #expect(throws: WireFormatError.self) { try parse(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)) }
        // A body that is only openers (a hostile client's): refused, not a crashed server.
        #expect(throws: WireFormatError.self) { try parse(String(repeating: #"{"a":["#, count: 200_000)) }
    }

    @Test func aConvertibleBodyReadsTheSameThroughCodable() throws {
        struct Outer: Codable { var zone: WireZoneID; var n: Int }
        let outer = Outer(zone: WireZoneID(ZoneID(name: "Notes", owner: "_b")), n: 3)
        let written = try JSONEncoder().encode(outer)
        #expect(try WireZoneID(json: #require(JSON(parsing: written)["zone"])) == outer.zone)
        #expect(try JSONDecoder().decode(Outer.self, from: written).zone == outer.zone)
    }
}
