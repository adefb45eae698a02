/// Splits `items` into runs of at most `size` and calls `body` with each run
/// and its SQL list: `each` (a `?`, or a row like `(?,?,?)`) once per item,
/// comma-separated. Statements over a batch's rows take a list a few hundred
/// long, not one statement per row; a full run's SQL is the same each time,
/// so its prepared statement is reused.
public func inSQLLists<Item>(_ items: [Item], size: Int, each: String,
                             _ body: (ArraySlice<Item>, String) throws -> Void) rethrows {
    for start in stride(from: 0, to: items.count, by: size) {
        let run = items[start..<min(items.count, start + size)]
        try body(run, Array(repeating: each, count: run.count).joined(separator: ","))
    }
}
