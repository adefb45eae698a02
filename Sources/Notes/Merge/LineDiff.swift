/// The longest common subsequence of two line arrays, as matched index pairs.
///
/// Posts are short, so the quadratic table is cheap; the common prefix and
/// suffix are trimmed first, which makes typical edits nearly linear. A middle
/// too large for the table (a long text rewritten throughout) is split at the
/// lines that occur once on each side, in order (patience diff), and only the
/// pieces between them that fit the table are matched line by line: the diff
/// may then be coarser than the longest one, never slow or short of memory.
enum LineDiff {
    /// The most cells the table may have (a 2,000 × 2,000 middle).
    static let tableLimit = 4_000_000

    static func matches(_ a: [Substring], _ b: [Substring]) -> [(Int, Int)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        return (0..<prefix).map { ($0, $0) }
            + middle(a[prefix..<(a.count - suffix)], b[prefix..<(b.count - suffix)])
            + (0..<suffix).map { (a.count - suffix + $0, b.count - suffix + $0) }
    }

    /// The matches between two slices (indices are the whole arrays'), splitting at most `depth` times more.
    private static func middle(_ a: ArraySlice<Substring>, _ b: ArraySlice<Substring>, depth: Int = 32) -> [(Int, Int)] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        if a.count * b.count <= tableLimit { return table(a, b) }
        // Too large to compare line by line, and nothing left to split at: nothing matched between them.
        guard depth > 0 else { return [] }
        var pairs: [(Int, Int)] = []
        var (i, j) = (a.startIndex, b.startIndex)
        let found = anchors(a, b)
        for (x, y) in found {
            pairs += middle(a[i..<x], b[j..<y], depth: depth - 1) + [(x, y)]
            (i, j) = (x + 1, y + 1)
        }
        if !found.isEmpty { pairs += middle(a[i...], b[j...], depth: depth - 1) }
        return pairs
    }

    /// The lines that occur exactly once in each slice, paired, the longest run of them in the same order.
    private static func anchors(_ a: ArraySlice<Substring>, _ b: ArraySlice<Substring>) -> [(Int, Int)] {
        func unique(_ lines: ArraySlice<Substring>) -> [Substring: Int] {
            var seen: [Substring: Int] = [:], twice = Set<Substring>()
            for index in lines.indices where !twice.contains(lines[index]) {
                if seen.updateValue(index, forKey: lines[index]) != nil { twice.insert(lines[index]) }
            }
            for line in twice { seen[line] = nil }
            return seen
        }
        let inB = unique(b)
        let candidates = unique(a).compactMap { line, x in inB[line].map { (x, $0) } }.sorted { $0.0 < $1.0 }
        // The longest increasing run of positions in b (patience sorting), kept with back links.
        var tops: [Int] = [], back = [Int](repeating: -1, count: candidates.count)
        for (k, candidate) in candidates.enumerated() {
            var low = 0, high = tops.count
            while low < high {
                let mid = (low + high) / 2
                if candidates[tops[mid]].1 < candidate.1 { low = mid + 1 } else { high = mid }
            }
            if low > 0 { back[k] = tops[low - 1] }
            if low == tops.count { tops.append(k) } else { tops[low] = k }
        }
        var run: [(Int, Int)] = [], k = tops.last ?? -1
        while k >= 0 {
            run.append(candidates[k])
            k = back[k]
        }
        return run.reversed()
    }

    /// The longest common subsequence of two small slices, from the quadratic table.
    private static func table(_ a: ArraySlice<Substring>, _ b: ArraySlice<Substring>) -> [(Int, Int)] {
        let midA = Array(a), midB = Array(b)
        var table = Array(repeating: Array(repeating: 0, count: midB.count + 1), count: midA.count + 1)
        for i in stride(from: midA.count - 1, through: 0, by: -1) {
            for j in stride(from: midB.count - 1, through: 0, by: -1) {
                table[i][j] = midA[i] == midB[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0, j = 0
        while i < midA.count, j < midB.count {
            if midA[i] == midB[j] {
                pairs.append((a.startIndex + i, b.startIndex + j))
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
