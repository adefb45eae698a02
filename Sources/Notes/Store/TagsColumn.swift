import Foundation

/// A post's tags as the `posts.tags` column holds them: a JSON array of strings.
///
/// Tags are almost always plain words, and JSONEncoder/JSONDecoder cost more
/// than the rest of writing or reading a row; plain tags are written and read
/// directly, anything that needs escaping goes through JSON.
enum TagsColumn {
    static func text(_ tags: [String]) -> String {
        guard tags.allSatisfy(isPlain) else {
            // (An array of strings always encodes: the fallback is never taken.)
            return (try? JSONEncoder().encode(tags)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        return "[" + tags.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]"
    }

    /// The tags of a column; text that is not an array of strings reads as no tags.
    static func tags(from text: String) -> [String] {
        var text = text
        return text.withUTF8(plainTags) ?? (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// The tags of `["a","b"]` as `text` writes plain tags, in one pass over the bytes; nil for anything
    /// else (escapes, spaces, other JSON), which JSON decodes.
    private static func plainTags(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), close = UInt8(ascii: "]")
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "["), bytes[bytes.count - 1] == close else { return nil }
        var tags: [String] = []
        var i = 1
        if bytes[i] == close { return i == bytes.count - 1 ? tags : nil }
        while i < bytes.count, bytes[i] == quote {
            let start = i + 1
            var end = start
            while end < bytes.count, bytes[end] != quote {
                if bytes[end] == UInt8(ascii: "\\") || bytes[end] < 0x20 { return nil }
                end += 1
            }
            guard end + 1 < bytes.count else { return nil }
            tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
            i = end + 2
            if bytes[end + 1] == close { return i == bytes.count ? tags : nil }
            guard bytes[end + 1] == comma else { return nil }
        }
        return nil
    }

    /// Written as is inside JSON quotes, and never mistaken for a separator.
    private static func isPlain(_ tag: String) -> Bool {
        tag.unicodeScalars.allSatisfy { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
    }
}
