/// Lines of two texts side by side: kept, removed from the first, or added in the second.
public enum DiffLine: Equatable, Sendable {
    case same(String), removed(String), added(String)

    /// The difference between two texts, line by line, in reading order.
    public static func lines(from old: String, to new: String) -> [DiffLine] {
        // An empty text has no lines (not one empty line).
        let a = old.isEmpty ? [] : old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.isEmpty ? [] : new.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [DiffLine] = [], i = 0, j = 0
        for (matchA, matchB) in LineDiff.matches(a, b) + [(a.count, b.count)] {
            while i < matchA { out.append(.removed(String(a[i]))); i += 1 }
            while j < matchB { out.append(.added(String(b[j]))); j += 1 }
            if matchA < a.count { out.append(.same(String(a[matchA]))) }
            (i, j) = (matchA + 1, matchB + 1)
        }
        return out
    }
}
