import Cloud
import Foundation

extension Optional where Wrapped == FieldValue {
    /// A field as a post shows it: its text, or (written by another client as another type) what it holds, written
    /// out, never a blank that hides it. Bytes are named by their count, not dumped.
    var shownAsText: String {
        switch self {
        case nil: ""
        case .string(let text)?: text.keepable
        case .int(let number)?: String(number)
        case .double(let number)?: String(number)
        case .bool(let value)?: String(value)
        case .date(let date)?: date.formatted(.iso8601)
        case .bytes(let data)?: "(\(data.count) bytes)"
        case .reference(let reference)?: reference.recordName
        case .list(let items)?: items.map { Optional($0).shownAsText }.joined(separator: "\n")
        }
    }
}

extension String {
    /// The text with each NUL (U+0000) shown as U+FFFD. A store's reader ends a text at its first NUL: kept there,
    /// one cut every word after it from each later read (app seed 100043: a title eve planted took a typed word).
    public var keepable: String { contains("\0") ? replacingOccurrences(of: "\0", with: "\u{FFFD}") : self }
}
