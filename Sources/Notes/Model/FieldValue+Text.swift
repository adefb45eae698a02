import Cloud
import Foundation

extension Optional where Wrapped == FieldValue {
    /// A field as a post shows it: its text, or (written by another client as another type) what it holds, written
    /// out, never a blank that hides it. Bytes are named by their count, not dumped.
    var shownAsText: String {
        switch self {
        case nil: ""
        case .string(let text)?: text
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
