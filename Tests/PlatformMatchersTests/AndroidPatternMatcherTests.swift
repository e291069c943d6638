@testable import PlatformMatchers
import Testing

// Vectors derived from AOSP: android.os.PatternMatcher (matchGlobPattern, matchAdvancedPattern,
// parseAndVerifyAdvancedPattern) and StatementService's DalComponentParserTest for both the
// Android 15 and the Android 16 parser.

struct SimpleGlobCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var input: String
    var matches: Bool
    var why: String
    var testDescription: String { "\(pattern.debugDescription) ~ \(input.debugDescription) → \(matches)" }
}

struct DALExpressionCase: Sendable, CustomTestStringConvertible {
    var expression: String
    var kind: AndroidPatternMatcher.Kind
    var pattern: String
    var matching: [String] = []
    var nonMatching: [String] = []
    var testDescription: String { expression.debugDescription }
}

struct AdvancedGlobCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var input: String
    var matches: Bool
    var testDescription: String { "\(pattern.debugDescription) ~ \(input.debugDescription) → \(matches)" }
}

struct PatternErrorCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var message: String
    var testDescription: String { pattern.debugDescription }
}

@Suite("AndroidPatternMatcher")
struct AndroidPatternMatcherTests {
    static let simpleGlob: [SimpleGlobCase] = [
        .init(pattern: "", input: "", matches: true, why: "empty pattern matches only the empty string"),
        .init(pattern: "", input: "a", matches: false, why: "empty pattern matches only the empty string"),
        .init(pattern: "abc", input: "abc", matches: true, why: "literal"),
        .init(pattern: "abc", input: "abcd", matches: false, why: "the whole input must be used"),
        .init(pattern: "abcd", input: "abc", matches: false, why: "the whole pattern must be used"),
        .init(pattern: "a.c", input: "axc", matches: true, why: "'.' is any one unit"),
        .init(pattern: "a.c", input: "ac", matches: false, why: "'.' needs a unit"),
        .init(pattern: "a*", input: "aaa", matches: true, why: "x* consumes only x"),
        .init(pattern: "a*b", input: "aaab", matches: true, why: "x* consumes only x"),
        .init(pattern: "a*b", input: "b", matches: true, why: "x* may consume nothing"),
        .init(pattern: "a*b", input: "aacb", matches: false, why: "x* consumes only x"),
        .init(pattern: "a*", input: "", matches: false, why: "quirk: with the input empty the loop never runs and only '.*' may remain"),
        .init(pattern: ".*", input: "", matches: true, why: "a trailing .* matches the empty rest"),
        .init(pattern: ".*", input: "anything/at/all", matches: true, why: ".* at the end matches everything"),
        .init(pattern: "x.*", input: "x", matches: true, why: "a trailing .* matches the empty rest"),
        .init(pattern: "x.*y", input: "x", matches: false, why: "only a final .* may remain"),
        .init(pattern: ".*x", input: "x", matches: true, why: ".* stops at the first 'x'"),
        .init(pattern: ".*x", input: "axbx", matches: false, why: ".* stops at the FIRST 'x' and never backtracks"),
        .init(pattern: ".*/edit", input: "/post/1/edit", matches: false, why: ".* stops at the first '/'"),
        .init(pattern: ".*/edit", input: "/edit", matches: true, why: ".* may consume nothing"),
        .init(pattern: "/u/..*/profile", input: "/u/alice/profile", matches: true, why: "'?*' on Android 16"),
        .init(pattern: "/u/..*/profile", input: "/u//profile", matches: false, why: "'.' takes the '/', then .* finds no other '/'"),
        .init(pattern: "/p/..*", input: "/p/", matches: false, why: "'?*' needs one unit"),
        .init(pattern: "/p/..*", input: "/p/x", matches: true, why: "'?*' needs one unit"),
        .init(pattern: #"/c/..*\.html"#, input: "/c/.html", matches: false, why: "'.' takes the dot, then .* finds no other dot"),
        .init(pattern: #"/c/..*\.html"#, input: "/c/a.html", matches: true, why: "escaped dot after .*"),
        .init(pattern: ".*.bar", input: "x.bar", matches: true, why: "quirk: a '.' right after .* is matched literally"),
        .init(pattern: ".*.bar", input: "xybar", matches: false, why: "quirk: a '.' right after .* is matched literally"),
        .init(pattern: #"a\.b"#, input: "a.b", matches: true, why: "escaped dot"),
        .init(pattern: #"a\.b"#, input: "axb", matches: true, why: "quirk: after unescaping, Java tests c != '.', so an escaped dot not followed by '*' still matches any unit"),
        .init(pattern: #"a\.b"#, input: "ab", matches: false, why: "it still needs one unit"),
        .init(pattern: #"\.*"#, input: "...", matches: true, why: "escaped '.' before '*' repeats a literal dot"),
        .init(pattern: #"\.*"#, input: "ab", matches: false, why: "escaped '.' before '*' repeats a literal dot"),
        .init(pattern: #"a\*"#, input: "a*", matches: true, why: "escaped star"),
        .init(pattern: #"a\*"#, input: "aa", matches: false, why: "escaped star"),
        .init(pattern: ".", input: "é", matches: true, why: "one UTF-16 unit"),
        .init(pattern: ".", input: "😀", matches: false, why: "an emoji is two UTF-16 units"),
        .init(pattern: "..", input: "😀", matches: true, why: "an emoji is two UTF-16 units"),
    ]

    @Test("matchGlobPattern", arguments: simpleGlob)
    func simpleGlobMatches(_ c: SimpleGlobCase) {
        #expect(AndroidPatternMatcher.matchSimpleGlob(pattern: c.pattern, input: c.input) == c.matches, "\(c.why)")
    }

    // DalComponentParserTest (Android 16): type, pattern, and what it matches.
    static let android16Expressions: [DALExpressionCase] = [
        .init(expression: "foobar", kind: .literal, pattern: "foobar", matching: ["foobar"], nonMatching: ["foo.bar", #"foo\.bar"#]),
        .init(expression: "foo.bar", kind: .literal, pattern: "foo.bar", matching: ["foo.bar"], nonMatching: ["foobar", #"foo\.bar"#, "foodbar"]),
        .init(expression: "foo*", kind: .prefix, pattern: "foo", matching: ["foo", "foobar", "foo.bar", #"foo\.bar"#], nonMatching: ["fo", "barfoo"]),
        .init(expression: "foo.*", kind: .prefix, pattern: "foo.", matching: ["foo.", "foo.bar", "foo..."], nonMatching: ["foo", "fo.", "foobar"]),
        .init(expression: "*bar", kind: .simpleGlob, pattern: ".*bar", matching: ["foobar", "foo.bar", "bar", ".bar"], nonMatching: ["foo", "barfoo", "barfoobar", "abcbar"]),
        .init(expression: "*.bar", kind: .simpleGlob, pattern: #".*\.bar"#, matching: [".bar", "foo.bar"], nonMatching: ["bar", "foobar", ".bar.bar", "foo.b.bar"]),
        .init(expression: "foo*bar", kind: .simpleGlob, pattern: "foo.*bar", matching: ["foobar", "foo.bar", "foofoobar"], nonMatching: ["foobarbar", "f.bar"]),
        .init(expression: #"foo\*bar"#, kind: .simpleGlob, pattern: #"foo\\.*bar"#, matching: [#"foo\bar"#, #"foo\.bar"#, #"foo\foobar"#], nonMatching: ["foobarbar", "f.bar"]),
        .init(expression: "foo.*bar", kind: .simpleGlob, pattern: #"foo\..*bar"#, matching: ["foo.bar", "foo.foobar"], nonMatching: ["foobar", "foo.barbar"]),
        .init(expression: "foo*.bar", kind: .simpleGlob, pattern: #"foo.*\.bar"#, matching: ["foo.bar", "foobar.bar"], nonMatching: ["foobar", "foo.bar.bar"]),
        .init(expression: "*foo*bar", kind: .simpleGlob, pattern: ".*foo.*bar", matching: [".foo.bar", "xfoozbar", "foobar", "foo.bar"], nonMatching: ["barfoo", "foobbar", "ffoobar"]),
        .init(expression: "foo?bar", kind: .simpleGlob, pattern: "foo.bar", matching: ["foo.bar", "foobbar"], nonMatching: ["foobar"]),
        .init(expression: "foo.?bar", kind: .simpleGlob, pattern: #"foo\..bar"#, matching: ["foo..bar", "foo.bbar"], nonMatching: ["foobar", "foo.bar"]),
        // "fooxybar": an escaped dot only stays literal right after `.*` (see matchGlobPattern).
        .init(expression: "foo?.bar", kind: .simpleGlob, pattern: #"foo.\.bar"#, matching: ["foo..bar", "fooo.bar", "fooxybar"], nonMatching: ["foobar", "foo.bar"]),
        .init(expression: "?bar", kind: .simpleGlob, pattern: ".bar", matching: [".bar", "fbar"], nonMatching: ["bar", "foobar"]),
        .init(expression: "foo?", kind: .simpleGlob, pattern: "foo.", matching: ["foo.", "foob"], nonMatching: ["foo", "foobar"]),
        .init(expression: "fo?b*r", kind: .simpleGlob, pattern: "fo.b.*r", matching: ["foobar", "fo.br", "fobbbbr"], nonMatching: ["foobrr", "fobar"]),
        .init(expression: "foo*?bar", kind: .simpleGlob, pattern: "foo.*.bar", matching: ["foo.bar", "foofoo.bar", "foobar.bar"], nonMatching: ["foobar", "foobarbar"]),
        .init(expression: "^fo+b*r", kind: .simpleGlob, pattern: "^fo+b.*r", matching: ["^fo+bar", "^fo+br", "^fo+bbbbr"], nonMatching: ["foobar", "fobr"]),
        .init(expression: "?*bar", kind: .simpleGlob, pattern: "..*bar", matching: ["bbar", ".bar", "foo.bar"], nonMatching: ["bar"]),
        .init(expression: "foo?*bar", kind: .simpleGlob, pattern: "foo..*bar", matching: ["foo.bar", "foodbar", "foofoobar", "foobarbar"], nonMatching: ["foobar", "foo.bar.bar"]),
        .init(expression: "foo?*bar*", kind: .simpleGlob, pattern: "foo..*bar.*", matching: ["foo.bar", "foodbar", "foo..bar", "foobarbar", "foo.bar.bar.foo"], nonMatching: ["foobar", "foo.ba.bar"]),
        .init(expression: "foo?*bar.", kind: .simpleGlob, pattern: #"foo..*bar\."#, matching: ["foo.bar.", "foo..bar."], nonMatching: ["foobar.", #"foo.bar\."#]),
        .init(expression: "foo?*bar.*", kind: .simpleGlob, pattern: #"foo..*bar\..*"#, matching: ["foo.bar.", "foo..bar.", "foodbar.bar"], nonMatching: ["foobar.", "foo.bar"]),
        .init(expression: "bar?*", kind: .simpleGlob, pattern: "bar..*", matching: ["barfoo", "bar."], nonMatching: ["bar", "foobar"]),
        .init(expression: "foo[a-z]", kind: .literal, pattern: "foo[a-z]", matching: ["foo[a-z]"], nonMatching: ["fooa"]),
        .init(expression: "foo[a-z]+", kind: .literal, pattern: "foo[a-z]+", matching: ["foo[a-z]+"], nonMatching: ["foo[a-z]", "foozz"]),
        .init(expression: "foo[a-z]*", kind: .prefix, pattern: "foo[a-z]", matching: ["foo[a-z]", "foo[a-z]bar"], nonMatching: ["foo", "fooz"]),
        .init(expression: "[a-z]*bar", kind: .simpleGlob, pattern: "[a-z].*bar", matching: ["[a-z].bar", "[a-z]bar"], nonMatching: ["abar"]),
        .init(expression: "foo[a-z]?bar", kind: .simpleGlob, pattern: "foo[a-z].bar", matching: ["foo[a-z].bar", "foo[a-z]bbar"], nonMatching: ["fooz.bar"]),
        .init(expression: "foo[a-z]?*", kind: .simpleGlob, pattern: "foo[a-z]..*", matching: ["foo[a-z]bar"], nonMatching: ["foodbar"]),
        .init(expression: "^fo+[a-z]?*", kind: .simpleGlob, pattern: "^fo+[a-z]..*", matching: ["^fo+[a-z]bar"], nonMatching: ["foobar", "foabar"]),
        .init(expression: "fo{2}", kind: .literal, pattern: "fo{2}", matching: ["fo{2}"], nonMatching: ["foo"]),
        .init(expression: "fo{2}+", kind: .literal, pattern: "fo{2}+", matching: ["fo{2}+"], nonMatching: ["foo"]),
        .init(expression: "fo{2}*", kind: .prefix, pattern: "fo{2}", matching: ["fo{2}", "fo{2}bar"], nonMatching: ["foobar"]),
        .init(expression: "fo{2}*bar", kind: .simpleGlob, pattern: "fo{2}.*bar", matching: ["fo{2}.bar"], nonMatching: ["foo.bar"]),
        .init(expression: "fo{2}?*", kind: .simpleGlob, pattern: "fo{2}..*", matching: ["fo{2}.", "fo{2}bar"], nonMatching: ["foobar"]),
        // The conformance vectors' shapes.
        .init(expression: "/u/?*/profile", kind: .simpleGlob, pattern: "/u/..*/profile", matching: ["/u/alice/profile"], nonMatching: ["/u//profile", "/u/a/b/profile"]),
        .init(expression: "/c/?*.html", kind: .simpleGlob, pattern: #"/c/..*\.html"#, matching: ["/c/a.html", "/c/ab.html"], nonMatching: ["/c/.html", "/c/a.b.html"]),
        .init(expression: "*/edit", kind: .simpleGlob, pattern: ".*/edit", matching: ["/edit"], nonMatching: ["/post/1/edit"]),
        .init(expression: "/p/?*", kind: .simpleGlob, pattern: "/p/..*", matching: ["/p/x", "/p/x/y"], nonMatching: ["/p/", "/p"]),
        .init(expression: "/products/*", kind: .prefix, pattern: "/products/", matching: ["/products/", "/products/1/2"], nonMatching: ["/products"]),
        .init(expression: "*", kind: .prefix, pattern: "", matching: ["", "/", "/anything"]),
    ]

    @Test("DalComponentParser, Android 16", arguments: android16Expressions)
    func android16Expression(_ c: DALExpressionCase) throws {
        let m = try AndroidPatternMatcher.dynamicAppLinkPattern(for: c.expression, generation: .android16)
        #expect(m.kind == c.kind)
        #expect(m.pattern == c.pattern)
        for s in c.matching { #expect(m.matches(s), "\(m) should match \(s.debugDescription)") }
        for s in c.nonMatching { #expect(!m.matches(s), "\(m) should not match \(s.debugDescription)") }
    }

    // DalComponentParserTest (Android 15): `?*` → advanced `.+`; `.` is escaped but is no
    // wildcard, so a dotted expression without one is a LITERAL with the backslash in it.
    static let android15Expressions: [DALExpressionCase] = [
        .init(expression: "foobar", kind: .literal, pattern: "foobar"),
        .init(expression: "foo.bar", kind: .literal, pattern: #"foo\.bar"#, matching: [#"foo\.bar"#], nonMatching: ["foo.bar", "fooxbar"]),
        .init(expression: "foo*", kind: .prefix, pattern: "foo"),
        .init(expression: "foo.*", kind: .prefix, pattern: #"foo\."#, nonMatching: ["foo.x"]),
        .init(expression: "*bar", kind: .simpleGlob, pattern: ".*bar"),
        .init(expression: "foo*bar", kind: .simpleGlob, pattern: "foo.*bar"),
        .init(expression: "foo.*bar", kind: .simpleGlob, pattern: #"foo\..*bar"#),
        .init(expression: "foo*.bar", kind: .simpleGlob, pattern: #"foo.*\.bar"#),
        .init(expression: "*foo*bar", kind: .simpleGlob, pattern: ".*foo.*bar"),
        .init(expression: "foo?bar", kind: .simpleGlob, pattern: "foo.bar"),
        .init(expression: "foo.?bar", kind: .simpleGlob, pattern: #"foo\..bar"#),
        .init(expression: "foo?.bar", kind: .simpleGlob, pattern: #"foo.\.bar"#),
        .init(expression: "?bar", kind: .simpleGlob, pattern: ".bar"),
        .init(expression: "foo?", kind: .simpleGlob, pattern: "foo."),
        .init(expression: "fo?b*r", kind: .simpleGlob, pattern: "fo.b.*r"),
        .init(expression: "?*bar", kind: .advancedGlob, pattern: ".+bar", matching: [], nonMatching: ["xbar", "bar"]),
        .init(expression: "foo?*bar", kind: .advancedGlob, pattern: "foo.+bar"),
        .init(expression: "foo?*bar*", kind: .advancedGlob, pattern: "foo.+bar.*"),
        .init(expression: "foo?*bar.", kind: .advancedGlob, pattern: #"foo.+bar\."#),
        .init(expression: "foo?*bar.*", kind: .advancedGlob, pattern: #"foo.+bar\..*"#),
        .init(expression: "foo*?bar", kind: .simpleGlob, pattern: "foo.*.bar"),
        .init(expression: "foo[a-z]", kind: .literal, pattern: "foo[a-z]"),
        .init(expression: "foo[a-z]+", kind: .literal, pattern: "foo[a-z]+"),
        .init(expression: "foo[a-z]*", kind: .prefix, pattern: "foo[a-z]"),
        .init(expression: "[a-z]*bar", kind: .simpleGlob, pattern: "[a-z].*bar"),
        .init(expression: "foo[a-z]?bar", kind: .simpleGlob, pattern: "foo[a-z].bar"),
        .init(expression: "foo[a-z]?*bar", kind: .advancedGlob, pattern: #"foo\[a-z\].+bar"#),
        .init(expression: "fo{2}", kind: .literal, pattern: "fo{2}"),
        .init(expression: "fo{2}+", kind: .literal, pattern: "fo{2}+"),
        .init(expression: "fo{2}*", kind: .prefix, pattern: "fo{2}"),
        .init(expression: "fo{2}*bar", kind: .simpleGlob, pattern: "fo{2}.*bar"),
        .init(expression: "fo{2}?*", kind: .advancedGlob, pattern: #"fo\{2\}.+"#, matching: ["fo{2}x"], nonMatching: ["fo{2}"]),
        .init(expression: "foo{2}?*bar", kind: .advancedGlob, pattern: #"foo\{2\}.+bar"#),
        // Greedy `.+` without backtracking: why '/u/?*/profile' fails on Android 15.
        .init(expression: "/u/?*/profile", kind: .advancedGlob, pattern: "/u/.+/profile", nonMatching: ["/u/alice/profile"]),
        .init(expression: "referralCode=?*", kind: .advancedGlob, pattern: "referralCode=.+", matching: ["referralCode=TRAINER1"], nonMatching: ["referralCode="]),
    ]

    @Test("DalComponentParser, Android 15", arguments: android15Expressions)
    func android15Expression(_ c: DALExpressionCase) throws {
        let m = try AndroidPatternMatcher.dynamicAppLinkPattern(for: c.expression, generation: .android15)
        #expect(m.kind == c.kind)
        #expect(m.pattern == c.pattern)
        for s in c.matching { #expect(m.matches(s), "\(m) should match \(s.debugDescription)") }
        for s in c.nonMatching { #expect(!m.matches(s), "\(m) should not match \(s.debugDescription)") }
    }

    /// Android 15 reads literal text beside `?*` as advanced-glob syntax: `[]{}` are escaped by
    /// its parser, `.` too; `+` and `\` are not, so `+` is a quantifier and `\` an escape.
    static let android15Literals: [(expression: String, pattern: String, rejection: String?, matching: [String], nonMatching: [String])] = [
        ("/a+b/?*", "/a+b/.+", nil, ["/ab/1", "/aab/1"], ["/a+b/1"]),
        ("/c++/?*", "/c++/.+", "modifier must follow a token", [], ["/c++/1"]),
        ("/++/?*", "/++/.+", "modifier must follow a token", [], ["/++/1"]),
        ("/b{1,2}/?*", "/b\\{1,2\\}/.+", nil, ["/b{1,2}/1"], ["/b/1", "/bb/1"]),
        ("/s[ab]/?*", "/s\\[ab\\]/.+", nil, ["/s[ab]/1"], ["/sa/1"]),
        ("/v1.2/?*", "/v1\\.2/.+", nil, ["/v1.2/1"], ["/v1x2/1"]),
        ("/x\\y/?*", "/x\\y/.+", nil, ["/xy/1"], ["/x\\y/1"]),
        ("/x/?*\\", "/x/.+\\", "escape found at end of pattern", [], ["/x/1"]),
    ]

    @Test("Android 15: literal text beside '?*' is advanced-glob syntax; a pattern PatternMatcher rejects throws when used", arguments: 0..<8)
    func android15LiteralSyntax(_ i: Int) throws {
        let c = Self.android15Literals[i]
        let m = try AndroidPatternMatcher.dynamicAppLinkPattern(for: c.expression, generation: .android15)
        #expect(m.kind == .advancedGlob)
        #expect(m.pattern == c.pattern)
        #expect(m.rejection?.message == c.rejection)
        for s in c.matching { #expect(m.matches(s), "\(m) should match \(s)") }
        for s in c.nonMatching { #expect(!m.matches(s), "\(m) should not match \(s)") }
        // The same text is a plain simple glob on Android 16.
        #expect(try AndroidPatternMatcher.dynamicAppLinkPattern(for: c.expression, generation: .android16).rejection == nil)
    }

    @Test("an empty expression is refused by both generations", arguments: AndroidParserGeneration.allCases)
    func emptyExpression(_ generation: AndroidParserGeneration) {
        #expect(throws: AndroidPatternError("a matching expression cannot be an empty string")) {
            try AndroidPatternMatcher.dynamicAppLinkPattern(for: "", generation: generation)
        }
    }

    static let advancedGlob: [AdvancedGlobCase] = [
        .init(pattern: ".+", input: "", matches: false),
        .init(pattern: ".+", input: "a", matches: true),
        .init(pattern: ".*", input: "", matches: true),
        .init(pattern: "/u/.+/profile", input: "/u/alice/profile", matches: false),
        .init(pattern: "a.+", input: "abc", matches: true),
        .init(pattern: "[a-z]+", input: "abc", matches: true),
        .init(pattern: "[a-z]+", input: "abC", matches: false),
        .init(pattern: "[^a-z]+", input: "ABC", matches: true),
        .init(pattern: "[^a-z]+", input: "ABc", matches: false),
        .init(pattern: "[abc]", input: "b", matches: true),
        .init(pattern: "a{2}", input: "aa", matches: true),
        .init(pattern: "a{2}", input: "aaa", matches: false),
        .init(pattern: "a{2,}", input: "aaaa", matches: true),
        .init(pattern: "a{1,2}b", input: "aab", matches: true),
        .init(pattern: "a{1,2}b", input: "aaab", matches: false),
        .init(pattern: #"a\.b"#, input: "a.b", matches: true),
        .init(pattern: #"a\.b"#, input: "axb", matches: false),
        .init(pattern: "ab}", input: "ab", matches: true),  // a '}' outside a range is dropped
    ]

    @Test("matchAdvancedPattern", arguments: advancedGlob)
    func advancedGlobMatches(_ c: AdvancedGlobCase) throws {
        #expect(try AndroidPatternMatcher.matchAdvancedGlob(pattern: c.pattern, input: c.input) == c.matches)
    }

    static let patternErrors: [PatternErrorCase] = [
        .init(pattern: "*a", message: "modifier must follow a token"),
        .init(pattern: "a+*", message: "modifier must follow a token"),
        .init(pattern: "[a", message: "set was not terminated"),
        .init(pattern: "[]", message: "you must define characters in a set"),
        .init(pattern: "a[", message: "'[' at the end of the pattern"),
        .init(pattern: #"a\"#, message: "escape found at end of pattern"),
        .init(pattern: "a{3,1}", message: "range quantifier minimum is greater than maximum"),
        .init(pattern: "a{x}", message: "range number format incorrect"),
        .init(pattern: "a{2", message: "range not ended with '}'"),
        .init(pattern: "{2}", message: "modifier must follow a token"),
    ]

    @Test("parseAndVerifyAdvancedPattern refuses", arguments: patternErrors)
    func advancedGlobErrors(_ c: PatternErrorCase) {
        #expect(throws: AndroidPatternError(c.message)) {
            try AndroidPatternMatcher(pattern: c.pattern, kind: .advancedGlob)
        }
    }

    @Test("literal, prefix and suffix compare UTF-16 units without normalisation")
    func plainKinds() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(try AndroidPatternMatcher(pattern: nfc, kind: .literal).matches(nfc))
        #expect(!(try AndroidPatternMatcher(pattern: nfc, kind: .literal).matches(nfd)))
        #expect(try AndroidPatternMatcher(pattern: "/a/", kind: .prefix).matches("/a/b"))
        #expect(try AndroidPatternMatcher(pattern: ".html", kind: .suffix).matches("/x.html"))
        #expect(!(try AndroidPatternMatcher(pattern: ".html", kind: .suffix).matches("html")))
        #expect(try AndroidPatternMatcher(pattern: "x", kind: .literal).description == "PatternMatcher{LITERAL: x}")
    }
}
