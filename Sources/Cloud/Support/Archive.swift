import Foundation

/// Bytes that are not an archive of the expected form (truncated, damaged, or from elsewhere).
public struct ArchiveDamaged: Error, CustomStringConvertible {
    public let description: String
}

/// Writes the compact binary forms the project keeps on disk (records, sync
/// states): a form byte, then values in a fixed order. Counts and lengths are
/// LEB128, numbers fixed little-endian, strings UTF-8 with their length.
public struct ArchiveWriter {
    public private(set) var bytes: [UInt8] = []

    public init(form: UInt8, capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(form)
    }

    public var data: Data { Data(bytes) }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Unsigned LEB128: small counts and lengths take one byte.
    public mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    public mutating func fixed(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func data(_ value: Data) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    public mutating func date(_ value: Date) { fixed(value.timeIntervalSinceReferenceDate.bitPattern) }

    public mutating func optional<T>(_ value: T?, _ write: (inout ArchiveWriter, T) -> Void) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        write(&self, value)
    }
}

/// Reads what `ArchiveWriter` wrote, refusing anything else with
/// `ArchiveDamaged`: never a crash, never a value half-read.
public struct ArchiveReader {
    private let bytes: [UInt8]
    private var at = 1
    /// What is being read, for messages ("record", "sync state").
    private let what: String

    public init(_ data: Data, form: UInt8, what: String) throws(ArchiveDamaged) {
        bytes = [UInt8](data)
        self.what = what
        guard bytes.first == form else { throw ArchiveDamaged(description: "not a \(what) archive of form \(form)") }
    }

    public func end() throws(ArchiveDamaged) {
        guard at == bytes.count else { throw damaged("\(bytes.count - at) bytes after the \(what)") }
    }

    public mutating func byte() throws(ArchiveDamaged) -> UInt8 {
        guard at < bytes.count else { throw damaged("the \(what) ends early") }
        defer { at += 1 }
        return bytes[at]
    }

    public mutating func count() throws(ArchiveDamaged) -> Int {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            let next = try byte()
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 {
                // No count can exceed what is left to read; this also keeps loops over counts short.
                guard value <= UInt64(bytes.count - at) else { throw damaged("a count of \(value) runs past the end") }
                return Int(value)
            }
        }
        throw damaged("a count is too long")
    }

    public mutating func fixed() throws(ArchiveDamaged) -> UInt64 {
        guard bytes.count - at >= 8 else { throw damaged("the \(what) ends early") }
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[at + i]) }
        at += 8
        return value
    }

    private mutating func slice() throws(ArchiveDamaged) -> ArraySlice<UInt8> {
        let length = try count()
        defer { at += length }
        return bytes[at..<at + length]
    }

    public mutating func string() throws(ArchiveDamaged) -> String {
        guard let text = String(validating: try slice(), as: UTF8.self) else { throw damaged("a string is not UTF-8") }
        return text
    }

    public mutating func data() throws(ArchiveDamaged) -> Data { Data(try slice()) }

    public mutating func date() throws(ArchiveDamaged) -> Date {
        Date(timeIntervalSinceReferenceDate: try finite())
    }

    /// A double; NaN and infinities are never written, so one read means damage.
    public mutating func finite() throws(ArchiveDamaged) -> Double {
        let value = Double(bitPattern: try fixed())
        guard value.isFinite else { throw damaged("a number is not finite") }
        return value
    }

    public mutating func optional<T>(_ read: (inout ArchiveReader) throws(ArchiveDamaged) -> T) throws(ArchiveDamaged) -> T? {
        switch try byte() {
        case 0: return nil
        case 1: return try read(&self)
        case let other: throw damaged("optional marker \(other)")
        }
    }

    public func damaged(_ problem: String) -> ArchiveDamaged {
        ArchiveDamaged(description: "damaged \(what): \(problem) (at byte \(at))")
    }
}

// A zone ID is its name, then its owner, wherever an archive holds one.
extension ArchiveWriter {
    public mutating func zone(_ zone: ZoneID) {
        string(zone.name)
        string(zone.owner)
    }
}

extension ArchiveReader {
    public mutating func zone() throws(ArchiveDamaged) -> ZoneID { ZoneID(name: try string(), owner: try string()) }
}
