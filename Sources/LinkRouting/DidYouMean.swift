// "Did you mean …?" for config keys, enum values, subcommands and options.

/// Finds the known word closest to a typo.
public enum DidYouMean {
    /// The candidate closest to `word` by case-insensitive edit distance, when it is at most
    /// `maxDistance` (2: `bundleId` → `bundleID`, `serv` → `serve`, `--confg` → `--config`); ties
    /// go to the alphabetically first.
    public static func closest(_ word: String, in candidates: [String], maxDistance: Int = 2) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var prev = Array(0...b.count)
            for i in 1...max(a.count, 1) where !a.isEmpty {
                var cur = [i] + Array(repeating: 0, count: b.count)
                for j in stride(from: 1, through: b.count, by: 1) {
                    cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
                prev = cur
            }
            return prev[b.count]
        }
        let k = Array(word.lowercased())
        let scored = candidates.map { ($0, distance(k, Array($0.lowercased()))) }.filter { $0.1 <= maxDistance }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }
}
