import Testing

@Suite("Unified diff of a golden-file mismatch")
struct UnifiedDiffTests {
    static func numbered(_ n: Int, changing changes: [Int: String] = [:]) -> String {
        (1...n).map { changes[$0] ?? "l\($0)" }.joined(separator: "\n") + "\n"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var expected: String
        var actual: String
        var diff: [String]?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "equal texts", expected: "a\nb\n", actual: "a\nb\n", diff: nil),
        Case(
            name: "one line changed, three lines of context",
            expected: numbered(10), actual: numbered(10, changing: [5: "L5"]),
            diff: ["@@ -2,7 +2,7 @@", " l2", " l3", " l4", "-l5", "+L5", " l6", " l7", " l8"]),
        Case(
            name: "line added at the start", expected: "a\nb\nc\n", actual: "x\na\nb\nc\n",
            diff: ["@@ -1,3 +1,4 @@", "+x", " a", " b", " c"]),
        Case(
            name: "line removed at the end", expected: "a\nb\nc\nd\n", actual: "a\nb\nc\n",
            diff: ["@@ -1,4 +1,3 @@", " a", " b", " c", "-d"]),
        Case(
            name: "only the first of two distant regions is shown",
            expected: numbered(20), actual: numbered(20, changing: [2: "X2", 18: "X18"]),
            diff: ["@@ -1,5 +1,5 @@", " l1", "-l2", "+X2", " l3", " l4", " l5", "(1 more differing region not shown)"]),
        Case(
            name: "changes six lines apart share one hunk",
            expected: numbered(20), actual: numbered(20, changing: [5: "X5", 12: "X12"]),
            diff: [
                "@@ -2,14 +2,14 @@", " l2", " l3", " l4", "-l5", "+X5", " l6", " l7", " l8", " l9", " l10", " l11", "-l12", "+X12",
                " l13", " l14", " l15",
            ]),
        Case(
            name: "a line inserted keeps the rest aligned",
            expected: numbered(12), actual: numbered(12, changing: [6: "l6\nnew"]),
            diff: ["@@ -4,6 +4,7 @@", " l4", " l5", " l6", "+new", " l7", " l8", " l9"]),
        Case(
            name: "a missing final newline", expected: "a\nb\n", actual: "a\nb",
            diff: ["@@ -1,2 +1,2 @@", " a", "-b", "+b", "\\ No newline at end of file"]),
        Case(name: "an empty golden file", expected: "", actual: "x\n", diff: ["@@ -0,0 +1 @@", "+x"]),
    ]

    @Test(arguments: cases)
    func firstHunk(c: Case) {
        let diff = UnifiedDiff.firstHunk(expected: c.expected, actual: c.actual, expectedName: "golden/f", actualName: "generated/f")
        #expect(diff == c.diff.map { (["--- golden/f", "+++ generated/f"] + $0).joined(separator: "\n") })
    }
}
