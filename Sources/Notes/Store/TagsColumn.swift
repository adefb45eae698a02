import Foundation

/// A post's tags as the `posts.tags` column holds them: a JSON array of strings.
///
/// Tags are almost always plain words, and JSONEncoder/JSONDecoder cost more
/// than the rest of writing or reading a row; plain tags are written and read
/// directly, anything that needs escaping goes through JSON.
enum TagsColumn {
    static func text(_ tags: [String]) -> String {
        guard tags.allSatisfy(isPlain) else {
            return (try? JSONEncoder().encode(tags)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        return "[" + tags.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]"
    }

    /// The tags of a column; text that is not an array of strings reads as no tags.
    static func tags(from text: String) -> [String] {
        if text == "[]" { return [] }
        if text.utf8.count >= 4, text.hasPrefix("[\""), text.hasSuffix("\"]"), !text.utf8.contains(UInt8(ascii: "\\")) {
            let items = text.dropFirst(2).dropLast(2).split(separator: "\",\"", omittingEmptySubsequences: false).map(String.init)
            if items.allSatisfy(isPlain) { return items }
        }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// Written as is inside JSON quotes, and never mistaken for a separator.
    private static func isPlain(_ tag: String) -> Bool {
        tag.unicodeScalars.allSatisfy { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
    }
}
