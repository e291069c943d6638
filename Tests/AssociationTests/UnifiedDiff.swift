// The first differing region of two texts as a unified diff (`---`/`+++` headers, one `@@` hunk
// with a few lines of context), so a golden-file failure shows what changed, where.

enum UnifiedDiff {
    enum Op: Equatable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// Lines without their `\n`; a last line without one carries the marker diff(1) prints.
    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" {
            lines.removeLast()
        } else if !lines.isEmpty {
            lines[lines.count - 1] += "\n\\ No newline at end of file"
        }
        return lines
    }

    /// The edit script from `a` to `b`: the common prefix and suffix as they are, the middle by a
    /// longest common subsequence (when it is small enough, else all of it removed then added).
    static func ops(_ a: [String], _ b: [String]) -> [Op] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let x = Array(a[prefix..<(a.count - suffix)])
        let y = Array(b[prefix..<(b.count - suffix)])
        var out = a[..<prefix].map(Op.same)
        if x.count * y.count > 4_000_000 {
            out += x.map(Op.removed) + y.map(Op.added)
        } else {
            // lcs[i][j]: length of the longest common subsequence of x[i...] and y[j...].
            let width = y.count + 1
            var lcs = [Int32](repeating: 0, count: (x.count + 1) * width)
            for i in stride(from: x.count - 1, through: 0, by: -1) {
                for j in stride(from: y.count - 1, through: 0, by: -1) {
                    lcs[i * width + j] = x[i] == y[j] ? lcs[(i + 1) * width + j + 1] + 1 : max(lcs[(i + 1) * width + j], lcs[i * width + j + 1])
                }
            }
            var i = 0
            var j = 0
            while i < x.count || j < y.count {
                if i < x.count, j < y.count, x[i] == y[j] {
                    out.append(.same(x[i]))
                    i += 1
                    j += 1
                } else if j == y.count || (i < x.count && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
                    out.append(.removed(x[i]))
                    i += 1
                } else {
                    out.append(.added(y[j]))
                    j += 1
                }
            }
        }
        return out + a[(a.count - suffix)...].map(Op.same)
    }

    /// `nil` when the texts are equal; else the headers and the first hunk (changes closer than
    /// `2 × context` unchanged lines belong to one hunk), and how many more hunks were left out.
    static func firstHunk(expected: String, actual: String, expectedName: String, actualName: String, context: Int = 3) -> String? {
        guard expected != actual else { return nil }
        let ops = ops(lines(expected), lines(actual))
        guard let first = ops.firstIndex(where: { if case .same = $0 { false } else { true } }) else { return nil }
        let start = max(0, first - context)
        var end = first  // one past the last change of the hunk
        var k = first
        var run = 0
        while k < ops.count {
            if case .same = ops[k] {
                run += 1
                if run > 2 * context { break }
            } else {
                run = 0
                end = k + 1
            }
            k += 1
        }
        let stop = min(ops.count, end + context)
        var removedBefore = 0
        var addedBefore = 0
        for op in ops[..<start] {
            switch op {
            case .same: removedBefore += 1; addedBefore += 1
            case .removed: removedBefore += 1
            case .added: addedBefore += 1
            }
        }
        var body: [String] = []
        var removedCount = 0
        var addedCount = 0
        for op in ops[start..<stop] {
            switch op {
            case let .same(l): body.append(" " + l); removedCount += 1; addedCount += 1
            case let .removed(l): body.append("-" + l); removedCount += 1
            case let .added(l): body.append("+" + l); addedCount += 1
            }
        }
        func range(_ before: Int, _ count: Int) -> String {
            count == 1 ? "\(before + 1)" : "\(count == 0 ? before : before + 1),\(count)"
        }
        var out = ["--- \(expectedName)", "+++ \(actualName)", "@@ -\(range(removedBefore, removedCount)) +\(range(addedBefore, addedCount)) @@"]
        out += body
        var moreHunks = 0
        var inChange = false
        var sameRun = 0
        for op in ops[stop...] {
            if case .same = op {
                sameRun += 1
                if sameRun > 2 * context { inChange = false }
            } else {
                if !inChange { moreHunks += 1 }
                inChange = true
                sameRun = 0
            }
        }
        if moreHunks > 0 { out.append("(\(moreHunks) more differing region\(moreHunks == 1 ? "" : "s") not shown)") }
        return out.joined(separator: "\n")
    }
}
