import Foundation
import Testing

@testable import PlatformMatchers

/// A document, a URL and the verdicts expected for it.
struct AppleMatcherCase: Sendable, CustomTestStringConvertible {
    var name: String
    var aasa: String
    var url: String
    var expect: [String: AppleVerdict]

    var testDescription: String { name }

    static let app = "ABCDE12345.com.example.app"

    /// One app whose entry has these components (JSON text); `applinks` gets `extra` members too.
    static func components(_ name: String, _ components: String, extra: String = "", url: String, _ verdict: AppleVerdict?) -> Self {
        let aasa = #"{"applinks": {\#(extra)"details": [{"appIDs": ["\#(app)"], "components": \#(components)}]}}"#
        return Self(name: name, aasa: aasa, url: url, expect: verdict.map { [app: $0] } ?? [:])
    }

    /// One component with a path pattern.
    static func path(_ pattern: String, _ url: String, _ verdict: AppleVerdict?) -> Self {
        components("path \(pattern) vs \(url)", #"[{"/": "\#(pattern)"}]"#, url: "https://example.com" + url, verdict)
    }
}

@Suite("AppleMatcher")
struct AppleMatcherTests {
    // MARK: Glob semantics

    static let globCases: [AppleMatcherCase] = [
        .path("/a?c", "/abc", .match),
        .path("/a?c", "/ac", nil),
        .path("/a?c", "/abbc", nil),
        .path("/a*", "/a", .match),
        .path("/a*z", "/a/b/z", .match),
        .path("/a*z", "/a/b/z/q", nil),
        .path("/x/?*", "/x/a", .match),
        .path("/x/?*", "/x/", nil),
        .path("/x/?*", "/x", nil),
        .path("/x/??*", "/x/a", nil),
        .path("/x/??*", "/x/ab", .match),
        .path("/x/**", "/x/ab/cd", .match),
        .path("/buy/*", "/buyX", nil),
        .path("/buy/*", "/buy/", .match),
        .path("/a/*", "/ab", nil),
        .path("/p/?/", "/p/x/", .match),
        .path("/p/?/", "/p/x", .match),
        .path("/p/?", "/p/x/", .match),
        .path("/", "/", .match),
        .path("/", "/a", nil),
        .path("", "/", .match),
        .path("", "/a", nil),
        .path("///a", "/a", .match),
        .path("///a", "//a", nil),
        .path("a/?", "/a/b", .match),
        .path("*", "/", .match),
        .path("?", "/", .match),
        .path("/price$", "/price$", .match),
        .path("/a$(b", "/a$(b", .match),
        .path("/a$()", "/a$()", .match),
        .path("/a%20b", "/a b", .match),
        .path("/caf%C3%A9", "/café", .match),
        .path("/caf?", "/café", nil),
        .path("/caf??????", "/café", .match),
        .path("/café", "/café", nil),
        .path("/a/*", "/a%2F", nil),
        .path("/%7Bid%7D", "/{id}", .match),
    ]

    @Test("glob semantics", arguments: globCases)
    func glob(_ testCase: AppleMatcherCase) throws {
        try check(testCase)
    }

    // MARK: Substitution variables

    static let variableCases: [AppleMatcherCase] = [
        .path("/$(alpha)", "/q", .match),
        .path("/$(alpha)", "/7", nil),
        .path("/$(upper)", "/Q", .match),
        .path("/$(upper)", "/q", nil),
        .path("/$(lower)", "/q", .match),
        .path("/$(alnum)$(alnum)", "/a7", .match),
        .path("/$(alnum)", "/-", nil),
        .path("/$(xdigit)", "/F", .match),
        .path("/$(xdigit)", "/g", nil),
        .path("/$(digit)*", "/4711", .match),
        .path("/$(lang)/*", "/en/x", .match),
        .path("/$(lang)/*", "/EN/x", nil),
        .path("/$(lang)/*", "/xx/x", nil),
        .path("/$(lang)-$(region)/*", "/pt-BR/x", .match),
        .path("/$(region)", "/EU", nil),
        .path("/$(nope)/*", "/a/b", nil),
        .path("$(lang)/*", "/fr/x", .match),
        .components(
            "case-insensitive $(upper) takes lower case", #"[{"/": "/$(upper)", "caseSensitive": false}]"#,
            url: "https://example.com/q", .match),
        .components(
            "case-insensitive $(lang) takes upper case", #"[{"/": "/$(lang)", "caseSensitive": false}]"#,
            url: "https://example.com/DE", .match),
        .components(
            "custom variable overrides the built-in", #"[{"/": "/$(lang)/*"}]"#,
            extra: #""substitutionVariables": {"lang": ["en", "fr"]}, "#, url: "https://example.com/de/x", nil),
        .components(
            "custom variable with shared prefixes (ab + c)", #"[{"/": "/$(v)c"}]"#,
            extra: #""substitutionVariables": {"v": ["a", "ab", "abc"]}, "#, url: "https://example.com/abc", .match),
        .components(
            "custom variable with shared prefixes (abc + c)", #"[{"/": "/$(v)c"}]"#,
            extra: #""substitutionVariables": {"v": ["a", "ab", "abc"]}, "#, url: "https://example.com/abcc", .match),
        .components(
            "custom variable: nothing before c", #"[{"/": "/$(v)c"}]"#,
            extra: #""substitutionVariables": {"v": ["a", "ab", "abc"]}, "#, url: "https://example.com/c", nil),
        .components(
            "custom variable values are literal", #"[{"/": "/$(v)"}]"#,
            extra: #""substitutionVariables": {"v": ["*"]}, "#, url: "https://example.com/x", nil),
        .components(
            "custom variable with an empty value", #"[{"/": "/a$(v)"}]"#,
            extra: #""substitutionVariables": {"v": ["", "b"]}, "#, url: "https://example.com/a", .match),
        .components(
            "empty variable list matches nothing", #"[{"/": "/$(v)*"}]"#,
            extra: #""substitutionVariables": {"v": []}, "#, url: "https://example.com/a", nil),
        .components(
            "variable in a query item", #"[{"?": {"hl": "$(lang)"}}]"#,
            url: "https://example.com/?hl=sv", .match),
    ]

    @Test("substitution variables", arguments: variableCases)
    func variables(_ testCase: AppleMatcherCase) throws {
        try check(testCase)
    }

    // MARK: defaults, query, fragment, percent-encoding

    static let settingCases: [AppleMatcherCase] = [
        .components(
            "applinks percentEncoded false applies", #"[{"/": "/a b"}]"#,
            extra: #""defaults": {"percentEncoded": false}, "#, url: "https://example.com/a%20b", .match),
        AppleMatcherCase(
            name: "details defaults override applinks defaults",
            aasa: #"{"applinks": {"defaults": {"percentEncoded": false}, "details": [{"appIDs": ["A.app"], "defaults": {"percentEncoded": true}, "components": [{"/": "/a b"}]}]}}"#,
            url: "https://example.com/a%20b", expect: [:]),
        AppleMatcherCase(
            name: "component overrides details and applinks defaults",
            aasa: #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["A.app"], "defaults": {"caseSensitive": true}, "components": [{"/": "/Promo", "caseSensitive": false}]}]}}"#,
            url: "https://example.com/PROMO", expect: ["A.app": .match]),
        .components(
            "case-insensitive compare folds escapes' hex too", #"[{"/": "/caf%C3%A9", "caseSensitive": false}]"#,
            url: "https://example.com/caf%c3%a9", .match),
        .components(
            "case-insensitive non-ASCII when decoded", #"[{"/": "/ÉTÉ", "caseSensitive": false, "percentEncoded": false}]"#,
            url: "https://example.com/%C3%A9t%C3%A9", .match),
        .components("query item escapes are decoded in the pattern", #"[{"?": {"q": "a%20b"}}]"#, url: "https://example.com/?q=a%20b", .match),
        .components("plus is not a space", #"[{"?": {"q": "a b"}}]"#, url: "https://example.com/?q=a+b", nil),
        .components(
            "percentEncoded false takes query item patterns literally", #"[{"?": {"q": "a%20b"}, "percentEncoded": false}]"#,
            url: "https://example.com/?q=a%20b", nil),
        .components("query item without '=' is empty", #"[{"?": {"flag": ""}}]"#, url: "https://example.com/?flag", .match),
        .components("query item without '=' has no characters", #"[{"?": {"flag": "?*"}}]"#, url: "https://example.com/?flag", nil),
        .components("query item names are decoded", #"[{"?": {"a b": "1"}}]"#, url: "https://example.com/?a%20b=1", .match),
        .components("query item value keeps '='", #"[{"?": {"t": "a=b"}}]"#, url: "https://example.com/?t=a=b", .match),
        .components("every query item must match", #"[{"?": {"a": "1", "b": "2"}}]"#, url: "https://example.com/?a=1&b=3", nil),
        .components("unnamed query items are ignored", #"[{"?": {"a": "1"}}]"#, url: "https://example.com/?z=9&a=1&y", .match),
        .components(
            "query text decoded when percentEncoded false", #"[{"?": "q=a b", "percentEncoded": false}]"#,
            url: "https://example.com/?q=a%20b", .match),
        .components("query text compared encoded", #"[{"?": "name=caf%C3%A9"}]"#, url: "https://example.com/?name=café", .match),
        .components("query text '*' matches no query", #"[{"/": "/s", "?": "*"}]"#, url: "https://example.com/s", .match),
        .components("query '?*' needs a query", #"[{"?": "?*"}]"#, url: "https://example.com/s?", nil),
        .components(
            "fragment decoded when percentEncoded false", ##"[{"#": "a b", "percentEncoded": false}]"##,
            url: "https://example.com/#a%20b", .match),
        .components("fragment empty pattern matches no fragment", ##"[{"#": ""}]"##, url: "https://example.com/p", .match),
        .components("fragment keeps '?' and '#'", ##"[{"#": "a?b#c"}]"##, url: "https://example.com/p#a?b#c", .match),
        .components("'#' is not part of the query", #"[{"?": "x=1"}]"#, url: "https://example.com/p?x=1#y=2", .match),
        .components("'/' of the wrong type is absent", #"[{"/": 5, "exclude": true}, {"/": "*"}]"#, url: "https://example.com/a", .block),
        .components("exclude of the wrong type is false", #"[{"/": "/a", "exclude": "true"}]"#, url: "https://example.com/a", .match),
        .components("exclude false claims", #"[{"/": "/a", "exclude": false}]"#, url: "https://example.com/a", .match),
        .components("no components claim nothing", #"[]"#, url: "https://example.com/a", nil),
        .components("a component with no keys claims all", #"[{}]"#, url: "https://example.com/a?b#c", .match),
    ]

    @Test("defaults, query, fragment and percent-encoding", arguments: settingCases)
    func settings(_ testCase: AppleMatcherCase) throws {
        try check(testCase)
    }

    // MARK: Legacy paths and several apps

    static let documentCases: [AppleMatcherCase] = [
        AppleMatcherCase(
            name: "legacy NOT * blocks everything after it",
            aasa: #"{"applinks": {"apps": [], "details": [{"appID": "A.app", "paths": ["/keep", "NOT *", "/never"]}]}}"#,
            url: "https://example.com/never", expect: ["A.app": .block]),
        AppleMatcherCase(
            name: "legacy path claims before NOT",
            aasa: #"{"applinks": {"apps": [], "details": [{"appID": "A.app", "paths": ["/keep", "NOT *"]}]}}"#,
            url: "https://example.com/keep?x=1#y", expect: ["A.app": .match]),
        AppleMatcherCase(
            name: "legacy 'NOT' needs its space",
            aasa: #"{"applinks": {"apps": [], "details": [{"appID": "A.app", "paths": ["NOT*"]}]}}"#,
            url: "https://example.com/NOTx", expect: ["A.app": .match]),
        AppleMatcherCase(
            name: "legacy details keyed by app ID",
            aasa: #"{"applinks": {"apps": [], "details": {"A.app": {"paths": ["/a/*"]}, "B.app": {"paths": ["*"]}}}}"#,
            url: "https://example.com/a/1", expect: ["A.app": .match, "B.app": .match]),
        AppleMatcherCase(
            name: "components win over paths",
            aasa: #"{"applinks": {"details": [{"appIDs": ["A.app"], "paths": ["NOT *"], "components": [{"/": "/x"}]}]}}"#,
            url: "https://example.com/x", expect: ["A.app": .match]),
        AppleMatcherCase(
            name: "appIDs preferred to appID",
            aasa: #"{"applinks": {"details": [{"appIDs": ["A.app"], "appID": "B.app", "components": [{"/": "*"}]}]}}"#,
            url: "https://example.com/x", expect: ["A.app": .match]),
        AppleMatcherCase(
            name: "entries without apps are skipped",
            aasa: #"{"applinks": {"details": [{"components": [{"/": "*"}]}, 7, {"appIDs": ["A.app"], "components": [{"/": "*"}]}]}}"#,
            url: "https://example.com/x", expect: ["A.app": .match]),
        AppleMatcherCase(
            name: "one entry for two apps",
            aasa: #"{"applinks": {"details": [{"appIDs": ["A.app", "B.app", "A.app"], "components": [{"/": "/x", "exclude": true}]}]}}"#,
            url: "https://example.com/x", expect: ["A.app": .block, "B.app": .block]),
    ]

    @Test("legacy paths and several apps", arguments: documentCases)
    func documents(_ testCase: AppleMatcherCase) throws {
        try check(testCase)
    }

    @Test("decisions name the deciding entry and rule, in document order")
    func decisionDetails() throws {
        let matcher = try AppleMatcher(
            json: #"""
                {"applinks": {"details": [
                  {"appIDs": ["B.app"], "components": [{"/": "/other"}]},
                  {"appIDs": ["A.app"], "components": [{"/": "/post/drafts/*", "exclude": true, "comment": "web"}, {"/": "/post/*"}]},
                  {"appIDs": ["B.app", "C.app"], "components": [{"#": "x"}, {"/": "/post/*", "?": {"id": "?*"}}]},
                  {"appID": "D.app", "paths": ["/a", "NOT /post/*"]}
                ]}}
                """#)
        #expect(matcher.appIDs == ["B.app", "A.app", "C.app", "D.app"])
        #expect(
            matcher.decisions(for: "https://example.com/post/drafts/1?id=7") == [
                AppleDecision(
                    appID: "A.app", verdict: .block, detailsIndex: 1, componentIndex: 0,
                    rule: #"{"/":"/post/drafts/*","comment":"web","exclude":true}"#),
                AppleDecision(
                    appID: "B.app", verdict: .match, detailsIndex: 2, componentIndex: 1, rule: #"{"/":"/post/*","?":{"id":"?*"}}"#),
                AppleDecision(
                    appID: "C.app", verdict: .match, detailsIndex: 2, componentIndex: 1, rule: #"{"/":"/post/*","?":{"id":"?*"}}"#),
                AppleDecision(appID: "D.app", verdict: .block, detailsIndex: 3, componentIndex: 1, rule: "NOT /post/*"),
            ])
        #expect(matcher.verdicts(for: "https://example.com/nothing") == [:])
        #expect(matcher.warnings.isEmpty)
    }

    // MARK: URLs

    static let urlCases: [(url: String, claimed: Bool)] = [
        ("https://example.com/a", true),
        ("HTTPS://EXAMPLE.COM/a", true),
        ("http://example.com/a", true),
        ("https://example.com:8443/a", true),
        ("https://user@example.com/a", true),
        ("https://[::1]:8080/a", true),
        ("https://example.com/a/", true),
        ("https://example.com/a?b#c", true),
        ("https://example.com", false),
        ("https://example.com:abc/a", false),
        ("https:///a", false),
        ("https://exa mple.com/a", false),
        ("example.com/a", false),
        ("/a", false),
        ("ftp://example.com/a", false),
        ("fitconnect://signup", false),
        ("", false),
    ]

    @Test("URL parsing", arguments: urlCases)
    func urls(_ url: String, claimed: Bool) throws {
        let matcher = try AppleMatcher(json: #"{"applinks": {"details": [{"appIDs": ["A.app"], "components": [{"/": "/a"}]}]}}"#)
        #expect(matcher.verdicts(for: url) == (claimed ? ["A.app": .match] : [:]))
    }

    @Test("a URL without a path has the path /")
    func rootPath() throws {
        let matcher = try AppleMatcher(json: #"{"applinks": {"details": [{"appIDs": ["A.app"], "components": [{"/": "/", "?": "x=1"}]}]}}"#)
        #expect(matcher.verdicts(for: "https://example.com?x=1") == ["A.app": .match])
        #expect(matcher.verdicts(for: "https://example.com#f") == [:])
    }

    // MARK: Malformed documents

    static let malformedDocuments: [(json: String, location: String, mentions: String)] = [
        (#"[]"#, "", "not an object"),
        (#""applinks""#, "", "not an object"),
        (#"{}"#, "", #"no "applinks""#),
        (#"{"webcredentials": {"apps": ["A.app"]}}"#, "", #"no "applinks""#),
        (#"{"applinks": []}"#, "applinks", "an array, not an object"),
        (#"{"applinks": {}}"#, "applinks", #"no "details""#),
        (#"{"applinks": {"apps": []}}"#, "applinks", #"no "details""#),
        (#"{"applinks": {"details": "A.app"}}"#, "applinks.details", "is a string"),
        (#"{"applinks": {"details": [],}}"#, "", "not strict JSON"),
        ("{\"applinks\": {\"details\": []}} // comment", "", "not strict JSON"),
    ]

    @Test("malformed documents throw AASAFormatError", arguments: malformedDocuments)
    func malformed(_ json: String, location: String, mentions: String) {
        do {
            let matcher = try AppleMatcher(json: json)
            Issue.record("accepted \(json) with \(matcher.appIDs.count) apps")
        } catch {
            #expect(error.location == location)
            #expect(error.description.contains(mentions), "\(error)")
            #expect(error.description.hasPrefix("apple-app-site-association: "))
        }
    }

    @Test("tolerated oddities become warnings")
    func warnings() throws {
        let matcher = try AppleMatcher(
            json: #"""
                {"applinks": {
                  "defaults": {"caseSensitive": "no"},
                  "substitutionVariables": {"v": ["a", 1], "w": "x"},
                  "details": [
                    5,
                    {"appIDs": [1, "A.app"], "components": [
                      {"/": "/x", "exclude": "yes", "excludes": true},
                      {"?": {"a": "1", "flag": true}},
                      {"/": "/$(nope)"},
                      {"/": "/café"}
                    ]},
                    {"appIDs": ["B.app"], "paths": ["*"], "components": []}
                  ]}}
                """#)
        let expected = [
            "applinks.defaults.caseSensitive: is a string, not true or false; ignored",
            "applinks.substitutionVariables.v[1]: is a number, not a string; ignored",
            "applinks.substitutionVariables.w: is a string, not an array of strings; ignored",
            "applinks.details[0]: is a number, not an object; the entry is ignored",
            "applinks.details[1].appIDs[0]: is a number, not a string; ignored",
            "applinks.details[1].components[0]: unknown key \"excludes\" is ignored",
            "applinks.details[1].components[0].exclude: is a string, not true or false; ignored",
            "applinks.details[1].components[1][\"?\"].flag: is a boolean, not a string; iOS then ignores the whole query dictionary, so any query matches",
            "applinks.details[1].components[2][\"/\"]: pattern \"/$(nope)\" uses $(nope), which is neither a built-in variable nor defined in applinks.substitutionVariables; the pattern matches nothing",
            "applinks.details[1].components[3][\"/\"]: pattern \"/café\" holds a space, a control or a non-ASCII character, which a percent-encoded URL never contains; write it percent-encoded (upper-case hex) or set \"percentEncoded\": false",
            "applinks.details[2]: has both \"components\" and \"paths\"; iOS 13 and later use \"components\" only",
        ]
        #expect(matcher.warnings == expected)
        #expect(matcher.appIDs == ["A.app", "B.app"])
        #expect(matcher.verdicts(for: "https://example.com/x") == ["A.app": .match])
        #expect(matcher.decisions(for: "https://example.com/y?a=2").first?.componentIndex == 1)
    }

    @Test("AASAFormatError describes itself")
    func errorDescription() {
        let error = AASAFormatError(location: "applinks.details", message: "is a string")
        #expect(error.description == "apple-app-site-association: applinks.details: is a string")
        #expect(AASAFormatError(location: "", message: "x").description == "apple-app-site-association: x")
    }

    // MARK: Performance

    // Work is counted in matching steps (one per character a pattern compares, one per automaton
    // edge tried), not measured in seconds: the same on any machine, under a sanitizer or not.

    /// The matching steps `decisions(for:)` takes for `url`, and its verdicts.
    private func work(_ matcher: AppleMatcher, _ url: String) -> (steps: Int, verdicts: [String: AppleVerdict]) {
        var steps = MatchSteps()
        let decisions = matcher.decisions(for: url, counting: &steps)
        return (steps.total, Dictionary(uniqueKeysWithValues: decisions.map { ($0.appID, $0.verdict) }))
    }

    /// Patterns that make a backtracking matcher take exponential time (`*a*a*a*a*a*b` on a run of
    /// `a`s), on URLs with n = 5,000, 10,000 and 20,000 `a`s. Doubling n may at most double the
    /// steps, within 5 % (a quadratic matcher quadruples them); every `a` must be looked at (so the
    /// count is wired in); and the steps per URL character stay under a constant: the edges of the
    /// automaton states live at once, at most 128 (the fragment pattern's `$(lang)` is a trie of
    /// the ISO 639-1 codes, 60 steps per character measured).
    @Test(
        "pathological patterns: matching work is linear in the URL",
        arguments: [
            ("https://example.com/{a}", [String: AppleVerdict]()),
            ("https://example.com/x?q={a}#{a}", [:]),
            ("https://example.com/{a}b", ["A.app": .match]),
        ])
    func pathological(_ template: String, verdicts: [String: AppleVerdict]) throws {
        let matcher = try AppleMatcher(
            json: #"""
                {"applinks": {"details": [{"appIDs": ["A.app"], "components": [
                  {"/": "*a*a*a*a*a*b"},
                  {"/": "/?*?*?*?*?*?*?*?*c"},
                  {"?": {"q": "*a*a*a*a*a*a*a*a*b"}},
                  {"#": "$(lang)*$(lang)*$(lang)*$(lang)*z"}
                ]}]}}
                """#)
        var previous: Int?
        for n in [5_000, 10_000, 20_000] {
            let url = template.replacingOccurrences(of: "{a}", with: String(repeating: "a", count: n))
            let (steps, got) = work(matcher, url)
            #expect(got == verdicts, "\(template), n = \(n)")
            #expect(steps >= n, "\(template), n = \(n): \(steps) steps cannot have looked at every character")
            #expect(steps <= 128 * url.unicodeScalars.count, "\(template), n = \(n): \(steps) steps, over 128 per character")
            if let previous {
                #expect(steps * 100 <= previous * 210, "\(template): \(previous) steps for n = \(n / 2), \(steps) for n = \(n): more than linear")
            }
            previous = steps
        }
    }

    /// 400 components and a catch-all, 1,000 URLs: each is decided by the right component, and
    /// its work is bounded by the components tried (the decider's index + 1) times the length of
    /// what they compare, with no per-URL cost that grows with the document beyond that.
    @Test("many rules and many URLs: work bounded by rules tried × URL length")
    func manyRules() throws {
        var components: [String] = []
        for i in 0..<400 { components.append(#"{"/": "/r\#(i)/*/item/?*", "?": {"id": "$(digit)*"}}"#) }
        components.append(#"{"/": "*"}"#)
        let matcher = try AppleMatcher(json: #"{"applinks": {"details": [{"appIDs": ["A.app"], "components": [\#(components.joined(separator: ","))]}]}}"#)
        var total = 0
        for i in 0..<1_000 {
            let path = "/r\(i % 400)/shop/item/\(i)", id = "\(i)"
            var steps = MatchSteps()
            let decision = matcher.decisions(for: "https://example.com\(path)?id=\(id)", counting: &steps).first
            #expect(decision?.componentIndex == i % 400)
            let tried = i % 400 + 1
            #expect(steps.total >= tried, "URL \(i): \(steps.total) steps for \(tried) components tried")
            #expect(steps.total <= tried * 4 * (path.count + id.count + 2), "URL \(i): \(steps.total) steps for \(tried) components tried")
            total += steps.total
        }
        // Not on the catch-all: a URL none of the 400 claims tries them all, then `*` decides.
        var steps = MatchSteps()
        #expect(matcher.decisions(for: "https://example.com/other", counting: &steps).first?.componentIndex == 400)
        #expect(steps.total <= 401 * 4 * 8)
        #expect(total > 0)
    }

    // MARK: The built-in lists

    @Test("region and language lists")
    func lists() {
        #expect(AppleSubstitutionVariables.regionCodes.count == 249)
        #expect(AppleSubstitutionVariables.regionCodes.contains("GB"))
        #expect(!AppleSubstitutionVariables.regionCodes.contains("UK"))
        #expect(AppleSubstitutionVariables.regionCodes.allSatisfy { $0.count == 2 && $0 == $0.uppercased() })
        #expect(AppleSubstitutionVariables.languageCodes.contains("en"))
        #expect(AppleSubstitutionVariables.languageCodes.allSatisfy { $0.count == 2 && $0 == $0.lowercased() })
        #expect(Set(AppleSubstitutionVariables.languageCodes).count == AppleSubstitutionVariables.languageCodes.count)
    }

    // MARK: Helpers

    private func check(_ testCase: AppleMatcherCase, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let matcher = try AppleMatcher(json: testCase.aasa)
        #expect(matcher.verdicts(for: testCase.url) == testCase.expect, "\(testCase.name)", sourceLocation: sourceLocation)
    }
}

/// `AppleMatcher.Glob`, which the component plan orders its entries with, and the built-in
/// variable names it must not shadow: both are the matcher's own rules, not a copy.
@Suite("Apple glob and built-in variables")
struct AppleGlobTests {
    @Test(arguments: [
        ("/post/?*", "/post/1", true),
        ("/post/?*", "/post/", false),
        ("/post/*/?*", "/post/a/b", true),
        ("/post/*/?*", "/post/a", false),
        ("/a?c", "/abc", true),
        ("/a?c", "/ac", false),
        ("/Post/*", "/post/1", false),
        ("/post", "/post/", false),
        ("/p/$(digit)", "/p/7", true),
        ("/p/$(digit)", "/p/x", false),
        ("/p/$(nosuch)", "/p/x", false),
    ])
    func glob(pattern: String, text: String, matches: Bool) {
        #expect(AppleMatcher.Glob(pattern).matches(text) == matches)
    }

    @Test func builtInNamesAreTheOnesTheMatcherResolves() {
        #expect(AppleSubstitutionVariables.builtInNames == ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"])
        for name in AppleSubstitutionVariables.builtInNames {
            #expect(AppleMatcher.Pattern.Variables().token(named: name) != nil, "$(\(name))")
        }
        #expect(AppleMatcher.Pattern.Variables().token(named: "nosuch") == nil)
    }
}

/// The wildcard walk (patterns of one-character steps and `*`) against the automaton, on every
/// pattern of up to four of `a b ? * $(lower)` and every text of up to five of `a b A`.
@Suite("Apple pattern: wildcard walk equals the automaton")
struct AppleWildcardWalkTests {
    static func all(_ alphabet: [String], upTo n: Int) -> [String] {
        var out = [""]
        var level = [""]
        for _ in 0..<n {
            level = level.flatMap { prefix in alphabet.map { prefix + $0 } }
            out += level
        }
        return out
    }

    @Test(arguments: [true, false])
    func walkEqualsAutomaton(caseSensitive: Bool) {
        let texts = Self.all(["a", "b", "A"], upTo: 5).map { Array($0.unicodeScalars) }
        var compared = 0
        for source in Self.all(["a", "b", "?", "*", "$(lower)"], upTo: 4) {
            let tokens = AppleMatcher.Pattern.tokenize(
                AppleMatcher.Pattern.units(of: source, decodesEscapes: false), variables: AppleMatcher.Pattern.Variables())
            let automaton = AppleMatcher.Pattern.Automaton(tokens: tokens, caseSensitive: caseSensitive, optionalTrailingSlashStar: false)
            let steps = tokens.map { token -> AppleMatcher.Pattern.Automaton.Step? in
                switch token {
                case let .literal(c): return .scalar(caseSensitive ? c : AppleMatcher.Pattern.fold(c))
                case .any: return .any
                case let .charClass(k): return .charClass(k, caseInsensitive: !caseSensitive)
                default: return nil
                }
            }
            for text in texts {
                let folded = caseSensitive ? text : AppleMatcher.Pattern.fold(text)
                var work = NoMatchSteps()
                #expect(
                    AppleMatcher.Pattern.wildcardMatch(steps, folded, counting: &work) == automaton.matches(folded, counting: &work),
                    "\(source) on \(String(String.UnicodeScalarView(text)))")
                compared += 1
            }
        }
        #expect(compared == 781 * 364)
    }
}
