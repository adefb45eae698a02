import Foundation

/// A post as a Markdown file: front matter (title, tags, location, notebook, authors, dates, comments) between
/// `---` lines, then its text. Comments are their authors' words: an export keeps them (who, when, what), an import
/// reads them and makes none. Front matter values are JSON (strings, arrays of strings), which YAML reads too, so
/// any character a title holds survives the trip; what the file says about authors and dates is for people
/// reading it, and an import makes a new post of the account importing.
///
/// Text is others' data, never terminal control: a file printed with `cat` must not act on the terminal. A
/// text holding control characters (line breaks and tabs aside) or bidirectional overrides is written with each
/// of them as `\u{1B}` (and any `\u{` it held as `\u{5C}u{`), and the front matter says `escaped: true`, which an
/// import reads back to the text exactly.
public struct PostMarkdown: Equatable, Sendable {
    public var title: String
    public var tags: [String] = []
    public var location: String?
    public var notebook: String?
    public var authors: [String] = []
    public var created: Date?
    public var modified: Date?
    public var content: String
    public var comments: [Remark] = []

    /// A comment on the post, as its readers see it.
    public struct Remark: Equatable, Sendable {
        public var author: String
        public var date: Date?
        public var text: String

        public init(author: String, date: Date?, text: String) {
            self.author = author
            self.date = date
            self.text = text
        }
    }

    public init(title: String, tags: [String] = [], location: String? = nil, notebook: String? = nil, authors: [String] = [],
                created: Date? = nil, modified: Date? = nil, content: String, comments: [Remark] = []) {
        self.title = title
        self.tags = tags
        self.location = location
        self.notebook = notebook
        self.authors = authors
        self.created = created
        self.modified = modified
        self.content = content
        self.comments = comments
    }

    /// A post as its readers see it, with its comments: `names` turns user record IDs into names; a location this
    /// device could not open stays out.
    public init(_ post: Post, notebook: String?, comments: [Comment] = [], names: (String) -> String) {
        var authors: [String] = []
        for id in [post.createdBy, post.modifiedBy].compactMap({ $0 }) where !authors.contains(names(id)) { authors.append(names(id)) }
        let remarks = comments.map { Remark(author: $0.createdBy.map(names) ?? "", date: $0.createdAt, text: $0.text) }
        self.init(title: post.title, tags: post.tags, location: post.location, notebook: notebook, authors: authors,
                  created: post.createdAt, modified: post.modifiedAt, content: post.content, comments: remarks)
    }

    public var text: String {
        var lines = ["---", "title: " + Self.json(title)]
        if !tags.isEmpty { lines.append("tags: [" + tags.map(Self.json).joined(separator: ", ") + "]") }
        if let location { lines.append("location: " + Self.json(location)) }
        if let notebook { lines.append("notebook: " + Self.json(notebook)) }
        if !authors.isEmpty { lines.append("authors: [" + authors.map(Self.json).joined(separator: ", ") + "]") }
        if let created { lines.append("created: " + Self.date(created)) }
        if let modified { lines.append("modified: " + Self.date(modified)) }
        if !comments.isEmpty {
            // One line, as every value here: a JSON list of objects (YAML's flow style reads it too).
            let remarks = comments.map { remark in
                "{\"author\": \(Self.json(remark.author))" + (remark.date.map { ", \"date\": \"\(Self.date($0))\"" } ?? "")
                    + ", \"text\": \(Self.json(remark.text))}"
            }
            lines.append("comments: [" + remarks.joined(separator: ", ") + "]")
        }
        let inert = content.unicodeScalars.contains(where: Self.isControl)
        if inert { lines.append("escaped: true") }
        lines += ["---", "", ""]  // a blank line between the front matter and the text
        // As it is, to the last character, or escaped as the front matter says: an import gives it back exactly.
        return lines.joined(separator: "\n") + (inert ? Self.escaped(content) : content)
    }

    /// Reads a file `text` wrote, or plain Markdown (its first heading, else `fallbackTitle`, as the title).
    public init(parsing text: String, fallbackTitle: String) throws {
        // (A file from Windows: "\r\n" is one Character to Swift, so no "\n" would be found in it.)
        var body = Substring(text.replacingOccurrences(of: "\r\n", with: "\n"))
        var fields: [String: String] = [:]
        if body.hasPrefix("---\n") {
            body = body.drop { $0 != "\n" }.dropFirst()
            while true {
                guard let end = body.firstIndex(of: "\n") else { throw MarkdownError.unclosedFrontMatter }
                let line = body[..<end].trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                body = body[body.index(after: end)...]
                if line == "---" { break }
                if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
                guard let colon = line.firstIndex(of: ":") else { throw MarkdownError.badLine(line) }
                fields[String(line[..<colon]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: colon)...])
                    .trimmingCharacters(in: .whitespaces)
            }
            if body.hasPrefix("\n") { body = body.dropFirst() }
        }
        func string(_ key: String) throws -> String? {
            guard let value = fields[key] else { return nil }
            return try Self.string(value, key: key)
        }
        func date(_ key: String) throws -> Date? {
            guard let value = fields[key] else { return nil }
            guard let date = Self.date(from: value) else { throw MarkdownError.badValue(key) }
            return date
        }
        func list(_ key: String) throws -> [String] {
            guard let value = fields[key] else { return [] }
            guard value.hasPrefix("[") else { return [try Self.string(value, key: key)] }
            guard let items = try? JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String] else { throw MarkdownError.badValue(key) }
            return items
        }
        let content = fields["escaped"] == "true" ? Self.unescaped(String(body)) : String(body)
        let heading = content.split(separator: "\n").first { $0.hasPrefix("# ") }.map { $0.dropFirst(2).trimmingCharacters(in: .whitespaces) }
        // An untitled post's file says title: "": its heading or its file's name stands in.
        let title = try string("title").flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? heading ?? fallbackTitle
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw MarkdownError.noTitle }
        self.init(title: title, tags: try list("tags"), location: try string("location"), notebook: try string("notebook"),
                  authors: try list("authors"), created: try date("created"), modified: try date("modified"), content: content,
                  comments: try Self.remarks(fields["comments"]))
    }

    /// A file name for a title: its letters and digits, words joined by dashes, `.md`; another one where
    /// `taken` holds it already.
    public static func fileName(for title: String, taken: Set<String>) -> String {
        let words = title.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
        var stem = ""  // at most 150 bytes: file names are limited in bytes, and marks make a character long
        for character in words.joined(separator: "-") {
            guard stem.utf8.count + character.utf8.count <= 150 else { break }
            stem.append(character)
        }
        if stem.isEmpty { stem = "untitled" }
        // Names that differ by case alone are one file where the file system ignores case.
        let taken = Set(taken.map { $0.lowercased() })
        var name = stem + ".md", number = 2
        while taken.contains(name.lowercased()) {
            name = "\(stem)-\(number).md"
            number += 1
        }
        return name
    }

    // MARK: Values

    /// The comments a front matter's `comments` line lists; none where it has no such line.
    private static func remarks(_ value: String?) throws -> [Remark] {
        guard let value else { return [] }
        guard let items = try? JSONSerialization.jsonObject(with: Data(value.utf8)) as? [[String: String]] else {
            throw MarkdownError.badValue("comments")
        }
        return try items.map { item in
            guard let author = item["author"], let text = item["text"] else { throw MarkdownError.badValue("comments") }
            let date = try item["date"].map { value in
                guard let date = Self.date(from: value) else { throw MarkdownError.badValue("comments") }
                return date
            }
            return Remark(author: author, date: date, text: text)
        }
    }

    private static func json(_ text: String) -> String {
        // One string's JSON; JSONSerialization escapes quotes, backslashes and C0 controls; the other controls a
        // terminal acts on (all in the Basic Multilingual Plane) are escaped here, as JSON writes any character.
        // (One string always serialises: the fallback is never taken.)
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        var out = ""
        for scalar in String(decoding: data.dropFirst().dropLast(), as: UTF8.self).unicodeScalars {
            if isControl(scalar) { out += String(format: "\\u%04X", scalar.value) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// Characters a terminal acts on, which a file of others' text must not carry raw: controls but line breaks and
    /// tabs, and the bidirectional overrides and isolates that make text read as other text.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\n" || scalar == "\t" { return false }
        return scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` with each control as `\u{HEX}`, and the `\u{` it held already as `\u{5C}u{`, so `unescaped` gives it back.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.replacingOccurrences(of: "\\u{", with: "\\u{5C}u{").unicodeScalars {
            if isControl(scalar) { out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    static func unescaped(_ text: String) -> String {
        text.replacing(/\\u\{([0-9A-Fa-f]{1,6})\}/) { match in
            UInt32(match.1, radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? String(match.0)
        }
    }

    /// A value as a string: JSON's quoted form, or plain text as YAML allows.
    private static func string(_ value: String, key: String) throws -> String {
        if value.hasPrefix("[") || value.hasPrefix("{") { throw MarkdownError.badValue(key) }
        guard value.hasPrefix("\"") else { return value }
        guard let items = try? JSONSerialization.jsonObject(with: Data("[\(value)]".utf8)) as? [String], items.count == 1 else {
            throw MarkdownError.badValue(key)
        }
        return items[0]
    }

    private static func date(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// The date an ISO 8601 value names, a time (as export writes) or a day alone (as people write front matter, taken
    /// at midnight UTC); nil for anything else, which the caller refuses as a bad value.
    private static func date(from text: String) -> Date? {
        let text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        // (nil is the answer here: not a date in this form.)
        return (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()))
    }
}

public enum MarkdownError: Error, Equatable, CustomStringConvertible {
    case unclosedFrontMatter
    case badLine(String)
    case badValue(String)
    case noTitle
    case notADirectory(String)

    public var description: String {
        switch self {
        case .unclosedFrontMatter: "its front matter has no closing --- line"
        case .badLine(let line): "its front matter has a line that is not \"name: value\": \(line.prefix(60))"
        case .badValue(let key):
            "its \(key) line is not " + (key == "comments" ? "a list of {\"author\", \"date\", \"text\"} objects"
                                   : key == "tags" || key == "authors" ? "a list of quoted strings" : "one quoted string")
        case .noTitle: "it has no title"
        case .notADirectory(let path): "\(path) is a file, not a directory"
        }
    }
}

extension PostMarkdown {
    /// Writes each post to its own file in `directory` (made if missing), never over a file already there;
    /// returns the files written.
    public static func export(_ posts: [Post], notebooks: [Notebook], comments: (Post) throws -> [Comment], names: (String) -> String,
                              to directory: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw MarkdownError.notADirectory(directory.path)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var taken = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        return try posts.map { post in
            let book = notebooks.first { $0.zone == post.zone && $0.scope == post.scope }?.title ?? post.zone.name
            let name = fileName(for: post.title, taken: taken)
            taken.insert(name)
            let file = directory.appendingPathComponent(name)
            let markdown = PostMarkdown(post, notebook: book, comments: try comments(post), names: names)
            try Data(markdown.text.utf8).write(to: file, options: .withoutOverwriting)
            return file
        }
    }
}
