/// How far apart two names are, in edits of one character (insert, delete, replace, swap two neighbours), case
/// aside: for "did you mean" when a name is not one the cloud knows.
enum EditDistance {
    /// Whether `a` is within two edits of `b` (one, for names of three characters or fewer).
    static func isNear(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        let most = min(x.count, y.count) <= 3 ? 1 : 2
        guard abs(x.count - y.count) <= most else { return false }
        return distance(x, y) <= most
    }

    static func distance(_ x: [Character], _ y: [Character]) -> Int {
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { rows[i][0] = i }
        for j in 0...y.count { rows[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[x.count][y.count]
    }
}
