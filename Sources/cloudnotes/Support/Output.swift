import Foundation

/// Writing to the terminal: results on stdout, one-line errors on stderr.
enum Output {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func fail(_ message: String, code: Int32 = 1) -> Never {
        // One line, whatever the message quotes.
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("cloudnotes: \(line)\n".utf8))
        exit(code)
    }

    /// One JSON document on stdout, keys sorted so output is stable.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.dataEncodingStrategy = .base64
        line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Rows of columns, padded to line up.
    static func table(_ rows: [[String]]) {
        guard let width = rows.map(\.count).max() else { return }
        var widths = Array(repeating: 0, count: width)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        for row in rows {
            let cells = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }
            line(cells.joined(separator: "  "))
        }
    }

    static func date(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
