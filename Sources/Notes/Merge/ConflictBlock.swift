import Foundation
import Glibc

/// Who wrote one side of a conflict: an account name, the device it was
/// typed on, and when. Written into the block so everyone who sees the post
/// (every participant, every device) reads whose text is whose.
public struct Author: Equatable, Sendable {
    public var name: String
    public var device: String?
    public var at: Date?

    public init(name: String, device: String? = nil, at: Date? = nil) {
        self.name = name
        self.device = device
        self.at = at
    }

    /// "heather on laptop, 2026-11-23 14:02 UTC": times in UTC, since the
    /// text travels to people in every time zone.
    public var label: String {
        var text = name
        if let device, !device.isEmpty { text += " on \(device)" }
        if let at { text += ", " + Self.format(at) }
        return text
    }

    /// Reads a label back; a label it cannot split is all name.
    init(label: String) {
        var rest = Substring(label)
        if let comma = rest.range(of: ", ", options: .backwards), rest[comma.upperBound...].hasSuffix(" UTC") {
            at = Self.parse(rest[comma.upperBound...])
            if at != nil { rest = rest[..<comma.lowerBound] }
        }
        if let on = rest.range(of: " on ") {
            name = String(rest[..<on.lowerBound])
            device = String(rest[on.upperBound...])
        } else {
            name = String(rest)
        }
    }

    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min)
    }

    /// Reads what `format` wrote: "2026-11-23 14:02 UTC".
    private static func parse(_ text: Substring) -> Date? {
        let numbers = text.dropLast(" UTC".count).split(whereSeparator: { "- :".contains($0) }).map { Int32($0) }
        guard numbers.count == 5, case let values = numbers.compactMap({ $0 }), values.count == 5 else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_min) = (values[0] - 1900, values[1] - 1, values[2], values[3], values[4])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

/// The text form of a conflict: both sides kept in the field, each under a
/// line naming its author, so nothing typed is lost and anyone can see and
/// resolve it (`ConflictResolution`).
///
///     <<<<<<< heather on laptop, 2026-11-23 14:02 UTC
///     line D (heather)
///     ======= jermaine on desk, 2026-11-23 14:05 UTC
///     line D (jermaine)
///     >>>>>>> end of conflict
///
/// A block about the title sits in the text, its labels starting `title: `
/// (the title itself is one line); a block about the location sits in the
/// location, which travels sealed, so neither side ever reaches the cloud in
/// plain text.
public enum ConflictBlock {
    static let open = "<<<<<<< ", separator = "======= ", close = ">>>>>>>"
    static let closeLine = close + " end of conflict"

    /// The fields whose conflicts a block can hold.
    public enum Field: String, Sendable, Codable {
        case title, content, location
    }

    /// One side of a conflict as read back from the text.
    public struct Side: Equatable, Sendable {
        public var author: Author
        public var lines: [Substring]
        public var text: String { lines.joined(separator: "\n") }
    }

    /// A block found in a field: which field it is about, its sides, and the
    /// lines it spans in the text it was found in.
    public struct Found: Equatable, Sendable {
        public var field: Field
        public var sides: [Side]
        var range: Range<Int>
    }

    /// The lines of a block holding `sides`, in order (the one already saved first).
    static func lines(_ sides: [(Author, [Substring])], about field: Field = .content) -> [Substring] {
        let prefix = field == .title ? "title: " : ""
        var out: [Substring] = []
        for (index, (author, lines)) in sides.enumerated() {
            out.append(Substring((index == 0 ? open : separator) + prefix + author.label))
            out += lines
        }
        out.append(Substring(closeLine))
        return out
    }

    /// The well-formed blocks of a text (in the content, or in the location
    /// when `field` says so), outermost only: a side may hold a block of an
    /// earlier conflict, resolved once this one is.
    static func find(in text: String, field: Field = .content) -> [Found] {
        guard mayHoldBlock(text) else { return [] }  // most texts: no split
        let lines = TextMerge.lines(text)
        var found: [Found] = []
        var start: Int?, depth = 0
        var sides: [Side] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix(open) {
                if depth == 0 {
                    start = index
                    sides = [Side(author: Author(label: String(line.dropFirst(open.count))), lines: [])]
                    depth = 1
                    continue
                }
                depth += 1
            } else if depth == 1, line.hasPrefix(separator) {
                sides.append(Side(author: Author(label: String(line.dropFirst(separator.count))), lines: []))
                continue
            } else if depth > 0, line.hasPrefix(close) {
                depth -= 1
                if depth == 0, let first = start {
                    if sides.count > 1 { found.append(Found(field: field, sides: sides, range: first..<(index + 1))) }
                    start = nil
                    continue
                }
            }
            if depth > 0 { sides[sides.count - 1].lines.append(line) }
        }
        // A block about the title names it in every label.
        return found.map { block in
            guard field == .content, block.sides.allSatisfy({ $0.author.name.hasPrefix("title: ") }) else { return block }
            var title = block
            title.field = .title
            for i in title.sides.indices { title.sides[i].author.name.removeFirst("title: ".count) }
            return title
        }
    }

    /// The blocks a post holds: in its text (about the text or the title) and in its location.
    public static func find(in fields: PostFields) -> [Found] {
        find(in: fields.content) + (fields.location.map { find(in: $0, field: .location) } ?? [])
    }

    /// Whether any field holds a block still to resolve.
    public static func isConflicted(_ fields: PostFields) -> Bool {
        !find(in: fields.content).isEmpty || fields.location.map { !find(in: $0, field: .location).isEmpty } == true
    }

    /// Whether a text holds a run of seven '<', as every block's first line does: a scan of its bytes, since
    /// every post a sync writes asks (Foundation's `contains` cost a twentieth of a sync).
    static func mayHoldBlock(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var run = 0
            for byte in bytes {
                run = byte == UInt8(ascii: "<") ? run + 1 : 0
                if run == 7 { return true }
            }
            return false
        }
    }

    /// Whether a text still holds a line that marks a conflict, even a block
    /// someone half deleted: saving it is worth a question.
    public static func hasMarkers(_ text: String) -> Bool {
        TextMerge.lines(text).contains { $0.hasPrefix(open) || $0.hasPrefix(separator) || $0.hasPrefix(close) }
    }
}
