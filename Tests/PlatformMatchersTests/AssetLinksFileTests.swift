import Foundation
@testable import PlatformMatchers
import Testing
import LinkwellJSON

private let fp = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

private func statement(target: String = #"{"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(fp)"]}"#, extra: String = "") -> String {
    #"{"relation": ["delegate_permission/common.handle_all_urls"], "target": \#(target)\#(extra)}"#
}

struct RejectionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var kind: AssetLinksRejection.Kind
    var statementIndex: Int?
    var field: String?
    var mentions: [String]
    var testDescription: String { name }
}

struct AcceptanceCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var verified: Bool
    var warning: String?
    var testDescription: String { name }
}

struct DecisionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var components: String
    var url: String
    var handled: Bool
    var ruleIndex: Int?
    var generation: AndroidParserGeneration = .android16
    var testDescription: String { name }
}

@Suite("AssetLinksFile")
struct AssetLinksFileTests {
    static let rejections: [RejectionCase] = [
        .init(name: "empty body", body: "", kind: .notAStatementList, mentions: ["empty"]),
        .init(name: "single object instead of a list", body: statement(), kind: .notAStatementList, mentions: ["wrap the statement in [ ... ]"]),
        .init(name: "byte-order mark", body: "\u{FEFF}[]", kind: .syntax, mentions: ["byte-order mark", "without a BOM", "line 1, column 1"]),
        .init(name: "line comment", body: "// generated\n[]", kind: .syntax, mentions: ["comment", "line 1, column 1"]),
        .init(name: "hash comment inside", body: "[\n  # note\n]", kind: .syntax, mentions: ["'#' comment", "line 2, column 3"]),
        .init(name: "trailing comma in the list", body: "[\(statement()),]", kind: .syntax, mentions: ["trailing comma before ']'"]),
        .init(name: "trailing comma in an object", body: #"[{"relation": [], }]"#, kind: .syntax, statementIndex: 0, mentions: ["trailing comma before '}'"]),
        .init(name: "single quotes", body: "[{'relation': []}]", kind: .syntax, statementIndex: 0, mentions: ["single-quoted"]),
        .init(name: "unquoted value", body: #"[{"relation": [handle]}]"#, kind: .syntax, statementIndex: 0, field: "relation[0]", mentions: ["unquoted text \"handle\"", "double quotes"]),
        .init(name: "equals instead of colon", body: #"[{"relation" = []}]"#, kind: .syntax, statementIndex: 0, mentions: ["instead of ':'"]),
        .init(name: "semicolon between array elements", body: #"[{"relation": ["a/b"; "c/d"]}]"#, kind: .syntax, statementIndex: 0, mentions: ["';' between array elements"]),
        .init(name: "unterminated", body: "[" + statement(), kind: .syntax, mentions: ["ends too early"]),
        .init(name: "null member", body: "[\(statement(extra: #", "comment": null"#))]", kind: .unsupportedValue, statementIndex: 0, field: "comment", mentions: ["null", "statement [0]", "field comment"]),
        .init(name: "number member", body: "[\(statement(extra: #", "version": 2"#))]", kind: .unsupportedValue, statementIndex: 0, field: "version", mentions: ["number 2", "\"2\""]),
        .init(name: "boolean in the fingerprint array", body: #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "a.b", "sha256_cert_fingerprints": ["\#(fp)", true]}}]"#, kind: .unsupportedValue, statementIndex: 0, field: "target.sha256_cert_fingerprints[1]", mentions: ["boolean inside an array"]),
        .init(name: "second statement is bad", body: "[\(statement()), \(statement(extra: #", "n": null"#))]", kind: .unsupportedValue, statementIndex: 1, field: "n", mentions: ["statement [1]"]),
        .init(name: "statement is a string", body: #"[\#(statement()), "oops"]"#, kind: .statementNotAnObject, statementIndex: 1, mentions: ["a string, not an object"]),
        .init(name: "no namespace", body: "[\(statement(target: #"{"package_name": "a.b"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.namespace", mentions: ["no namespace"]),
        .init(name: "unknown namespace", body: "[\(statement(target: #"{"namespace": "ios_app"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.namespace", mentions: ["\"ios_app\" is not supported"]),
        .init(name: "no package name", body: "[\(statement(target: #"{"namespace": "android_app", "sha256_cert_fingerprints": ["\#(fp)"]}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.package_name", mentions: ["no package_name"]),
        .init(name: "no fingerprints", body: "[\(statement(target: #"{"namespace": "android_app", "package_name": "a.b"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.sha256_cert_fingerprints", mentions: ["no sha256_cert_fingerprints", "app-signing"]),
        .init(name: "fingerprints as a string", body: "[\(statement(target: #"{"namespace": "android_app", "package_name": "a.b", "sha256_cert_fingerprints": "\#(fp)"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.sha256_cert_fingerprints", mentions: ["a string, not an array"]),
        .init(name: "empty fingerprints", body: "[\(statement(target: #"{"namespace": "android_app", "package_name": "a.b", "sha256_cert_fingerprints": []}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.sha256_cert_fingerprints", mentions: ["empty array"]),
        .init(name: "ftp site", body: "[\(statement(target: #"{"namespace": "web", "site": "ftp://example.com"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.site", mentions: ["https"]),
        .init(name: "site with a path", body: "[\(statement(target: #"{"namespace": "web", "site": "https://example.com/app"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.site", mentions: ["path"]),
        .init(name: "site with user info", body: "[\(statement(target: #"{"namespace": "web", "site": "https://me@example.com"}"#))]", kind: .invalidTarget, statementIndex: 0, field: "target.site", mentions: ["user info"]),
        .init(name: "relation without a slash", body: #"[{"relation": ["handle_all_urls"], "target": {"namespace": "web", "site": "https://example.com"}}]"#, kind: .invalidRelation, statementIndex: 0, field: "relation[0]", mentions: ["kind/detail"]),
        .init(name: "relation in upper case", body: #"[{"relation": ["delegate_permission/common.HANDLE_ALL_URLS"], "target": {"namespace": "web", "site": "https://example.com"}}]"#, kind: .invalidRelation, statementIndex: 0, field: "relation[0]", mentions: ["lower-case"]),
        .init(name: "DAL component is a string", body: "[\(statement(extra: #", "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": ["/x/*"]}}"#))]", kind: .invalidDynamicAppLinkComponent, statementIndex: 0, field: #"relation_extensions["delegate_permission/common.handle_all_urls"].dynamic_app_link_components[0]"#, mentions: ["a string, not an object"]),
    ]

    @Test("rejections say where and how to fix", arguments: rejections)
    func rejection(_ c: RejectionCase) throws {
        for generation in AndroidParserGeneration.allCases {
            guard case let .failure(r) = AssetLinksFile.parse(c.body, generation: generation) else {
                Issue.record("expected a rejection")
                return
            }
            #expect(r.kind == c.kind, "\(r)")
            #expect(r.statementIndex == c.statementIndex, "\(r)")
            if let field = c.field { #expect(r.field == field, "\(r)") }
            #expect(r.description.hasPrefix("Android rejects the whole assetlinks.json: "))
            #expect(r.description.contains("Fix: "))
            for m in c.mentions { #expect(r.description.contains(m), "\(r) should mention \(m)") }
        }
    }

    static let acceptances: [AcceptanceCase] = [
        .init(name: "';' between object members (strict JsonReader accepts it)", body: "[\(statement().replacingOccurrences(of: "], \"target\"", with: "]; \"target\""))]", verified: true),
        .init(name: "TRUE in capitals is a boolean", body: "[\(statement(extra: #", "deprecated": TRUE"#))]", verified: true),
        .init(name: "unknown escapes stand for themselves", body: "[\(statement(extra: #", "note": "\a\/\'""#))]", verified: true),
        .init(name: "raw control character in a string", body: "[\(statement(extra: ", \"note\": \"a\tb\""))]", verified: true),
        .init(name: "content after the list is never read", body: "[\(statement())] trailing garbage", verified: true, warning: "after the closing ']'"),
        .init(name: "duplicate key: the last value wins", body: "[\(statement(target: #"{"namespace": "android_app", "package_name": "x.y", "sha256_cert_fingerprints": ["\#(fp)"], "package_name": "com.example.app"}"#))]", verified: true),
        .init(name: "statement without target is skipped", body: #"[{"relation": ["delegate_permission/common.handle_all_urls"]}, \#(statement())]"#, verified: true, warning: "no 'target'"),
        .init(name: "target given as a string is skipped", body: #"[{"relation": ["x/y"], "target": "com.example.app"}]"#, verified: false, warning: "'target' is a string"),
        .init(name: "relation given as a string is skipped", body: "[\(statement().replacingOccurrences(of: "[\"delegate_permission/common.handle_all_urls\"]", with: "\"delegate_permission/common.handle_all_urls\""))]", verified: false, warning: "'relation' is a string"),
        .init(name: "include is recorded, not followed", body: #"[{"include": "https://cdn.example.com/assetlinks.json"}]"#, verified: false, warning: "includes https://cdn.example.com/assetlinks.json"),
        .init(name: "lower-case fingerprint never verifies", body: "[\(statement(target: #"{"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(fp.lowercased())"]}"#))]", verified: false, warning: "not 32 upper-case hex pairs"),
        .init(name: "web site with trailing slash and port", body: "[\(statement(target: #"{"namespace": "web", "site": "https://example.com:8443/"}"#))]", verified: false),
        .init(name: "empty DAL expression discards the rules", body: "[\(statement(extra: #", "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": [{"/": ""}]}}"#))]", verified: true, warning: "drops every dynamic rule"),
    ]

    @Test("Android accepts these", arguments: acceptances)
    func acceptance(_ c: AcceptanceCase) throws {
        let file = try AssetLinksFile.parse(c.body).get()
        #expect(file.isVerified(package: "com.example.app", certificates: [fp]) == c.verified)
        if let warning = c.warning {
            #expect(file.warnings.contains { $0.contains(warning) }, "\(file.warnings)")
        }
    }

    @Test("statements, includes and the first verifying statement")
    func model() throws {
        let body = #"""
            [{"include": "https://cdn.example.com/a.json"},
             {"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "web", "site": "https://signin.example.com"}},
             {"relation": ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
              "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(fp)"]},
              "relation_extensions": {"delegate_permission/common.handle_all_urls": {
                "dynamic_app_link_components": [{"/": "/internal/*", "exclude": true}, {"/": "/products/*"}, {"?": {"dl": "*"}}]}}}]
            """#
        let file = try AssetLinksFile.parse(body).get()
        #expect(file.includes == ["https://cdn.example.com/a.json"])
        #expect(file.statements.map(\.index) == [1, 2])
        #expect(file.statements[0].target == .web(site: "https://signin.example.com"))
        #expect(!file.statements[0].grantsHandleAllURLs)
        #expect(file.verifyingStatement(package: "com.example.app", certificates: [fp])?.index == 2)
        #expect(!file.isVerified(package: "com.example.other", certificates: [fp]))
        #expect(!file.isVerified(package: "com.example.app", certificates: [fp.lowercased()]))
        #expect(file.handles(url: "https://example.com/x", package: "com.example.other", certificates: [fp]) == nil)
        #expect(
            file.handles(url: "https://example.com/internal/a", package: "com.example.app", certificates: [fp])
                == AndroidURLDecision(handled: false, ruleIndex: 0, rule: #"{"/":"/internal/*","exclude":true}"#))
        #expect(
            file.handles(url: "https://example.com/products/9?x=1", package: "com.example.app", certificates: [fp])
                == AndroidURLDecision(handled: true, ruleIndex: 1, rule: #"{"/":"/products/*"}"#))
        #expect(
            file.handles(url: "https://example.com/blog?dl=", package: "com.example.app", certificates: [fp])?.ruleIndex == 2)
        #expect(
            file.handles(url: "https://example.com/blog", package: "com.example.app", certificates: [fp])
                == AndroidURLDecision(handled: false))
    }

    static let decisions: [DecisionCase] = [
        .init(name: "no components: everything", components: "[]", url: "https://e.com/x", handled: true, ruleIndex: nil),
        .init(name: "no match: excluded", components: #"[{"/": "/a"}]"#, url: "https://e.com/b", handled: false, ruleIndex: nil),
        .init(name: "first match decides", components: #"[{"/": "*"}, {"/": "/a", "exclude": true}]"#, url: "https://e.com/a", handled: true, ruleIndex: 0),
        .init(name: "exclude then catch-all", components: #"[{"/": "/a", "exclude": true}, {"/": "*"}]"#, url: "https://e.com/a", handled: false, ruleIndex: 0),
        .init(name: "exclude as \"TRUE\"", components: #"[{"/": "/a", "exclude": "TRUE"}, {"/": "*"}]"#, url: "https://e.com/a", handled: false, ruleIndex: 0),
        .init(name: "exclude as \"yes\" is false", components: #"[{"/": "/a", "exclude": "yes"}, {"/": "*"}]"#, url: "https://e.com/a", handled: true, ruleIndex: 0),
        .init(name: "component with no filter never matches", components: #"[{"exclude": true}, {"comments": "x"}, {"/": "/a"}]"#, url: "https://e.com/a", handled: true, ruleIndex: 2),
        .init(name: "query given as a string is ignored", components: #"[{"?": "dl=1"}]"#, url: "https://e.com/a?dl=1", handled: false, ruleIndex: nil),
        .init(name: "all filters of a component must match", components: #"[{"/": "/shoes", "?": {"in_app": "true"}}]"#, url: "https://e.com/shoes?x=1", handled: false, ruleIndex: nil),
        .init(name: "query items are matched one by one", components: #"[{"?": {"a": "1", "b": "2"}}]"#, url: "https://e.com/s?b=2&x=0&a=1", handled: true, ruleIndex: 0),
        .init(name: "';' only when there is no '&'", components: #"[{"?": {"b": "2"}}]"#, url: "https://e.com/s?a=1;b=2&c=3", handled: false, ruleIndex: nil),
        .init(name: "';' fallback", components: #"[{"?": {"b": "2"}}]"#, url: "https://e.com/s?a=1;b=2", handled: true, ruleIndex: 0),
        .init(name: "the query is decoded before it is split", components: #"[{"?": {"b": "2"}}]"#, url: "https://e.com/s?q=a%26b=2", handled: true, ruleIndex: 0),
        .init(name: "an item without '=' does not match key=*", components: #"[{"?": {"ref": "*"}}]"#, url: "https://e.com/s?ref", handled: false, ruleIndex: nil),
        .init(name: "empty value matches key=", components: #"[{"?": {"ref": ""}}]"#, url: "https://e.com/s?ref=", handled: true, ruleIndex: 0),
        .init(name: "'&' alone gives no items", components: #"[{"?": {"": ""}}]"#, url: "https://e.com/s?&", handled: false, ruleIndex: nil),
        .init(name: "'#' before '?' means no query", components: #"[{"?": {"a": "1"}}]"#, url: "https://e.com/s#x?a=1", handled: false, ruleIndex: nil),
        .init(name: "empty fragment is a fragment", components: ##"[{"#": "*"}]"##, url: "https://e.com/p#", handled: true, ruleIndex: 0),
        .init(name: "no fragment never matches '#'", components: ##"[{"#": "*"}]"##, url: "https://e.com/p", handled: false, ruleIndex: nil),
        .init(name: "fragment is decoded", components: ##"[{"#": "a b"}]"##, url: "https://e.com/p#a%20b", handled: true, ruleIndex: 0),
        .init(name: "'+' is not a space", components: #"[{"/": "/a b"}]"#, url: "https://e.com/a+b", handled: false, ruleIndex: nil),
        .init(name: "path is decoded (%2F is a slash)", components: #"[{"/": "/a/b"}]"#, url: "https://e.com/a%2Fb", handled: true, ruleIndex: 0),
        .init(name: "UTF-8 escapes are decoded", components: #"[{"/": "/café"}]"#, url: "https://e.com/caf%C3%A9", handled: true, ruleIndex: 0),
        .init(name: "no path is the empty path", components: #"[{"/": "*"}]"#, url: "https://e.com", handled: true, ruleIndex: 0),
        .init(name: "no path is not '/'", components: #"[{"/": "/"}]"#, url: "https://e.com?x", handled: false, ruleIndex: nil),
        .init(name: "Android 16: '?*' then literal", components: #"[{"/": "/u/?*/profile"}]"#, url: "https://e.com/u/alice/profile", handled: true, ruleIndex: 0),
        .init(name: "Android 15: '?*' is a greedy advanced glob", components: #"[{"/": "/u/?*/profile"}]"#, url: "https://e.com/u/alice/profile", handled: false, ruleIndex: nil, generation: .android15),
        .init(name: "Android 15: trailing '?*' still works", components: #"[{"/": "/u/?*"}]"#, url: "https://e.com/u/alice", handled: true, ruleIndex: 0, generation: .android15),
        // PatternMatcher throws when a URL reaches a rule it rejects; the earlier rules still decide.
        .init(name: "Android 15: a URL that reaches a rejected advanced pattern is not handled", components: #"[{"/": "/x/?*\\"}]"#, url: "https://e.com/y", handled: false, ruleIndex: 0, generation: .android15),
        .init(name: "Android 15: '/c++/?*' throws for a URL that reaches it", components: #"[{"/": "/a"}, {"/": "/c++/?*"}, {"/": "*"}]"#, url: "https://e.com/c++/1", handled: false, ruleIndex: 1, generation: .android15),
        .init(name: "Android 15: rules before a rejected pattern still decide", components: #"[{"/": "/a"}, {"/": "/c++/?*"}, {"/": "*"}]"#, url: "https://e.com/a", handled: true, ruleIndex: 0, generation: .android15),
        .init(name: "Android 16 reads '/c++/?*' as a simple glob", components: #"[{"/": "/a"}, {"/": "/c++/?*"}]"#, url: "https://e.com/c++/1", handled: true, ruleIndex: 1, generation: .android16),
        .init(name: "empty path expression discards all rules", components: #"[{"/": "/a"}, {"/": ""}]"#, url: "https://e.com/b", handled: true, ruleIndex: nil),
    ]

    @Test("DynamicAppLinkRules.decide", arguments: decisions)
    func decide(_ c: DecisionCase) throws {
        let rules = DynamicAppLinkRules(components: try JSONValue.parse(c.components), generation: c.generation)
        let decision = rules.decide(url: c.url)
        #expect(decision.handled == c.handled, "\(decision); \(rules.discardReason ?? "")")
        #expect(decision.ruleIndex == c.ruleIndex, "\(decision)")
        #expect(rules.discardReason == nil || c.ruleIndex == nil)
    }

    @Test("regression, shape 2: a rule Android 15 rejects is reported where it is read, and throws only when reached")
    func rejectedRuleIsReported() throws {
        let rules = DynamicAppLinkRules(components: try JSONValue.parse(#"[{"/": "/a"}, {"/": "/c++/?*"}]"#), generation: .android15)
        #expect(rules.discardReason == nil)
        #expect(rules.rejectedComponents.map(\.index) == [1])
        #expect(rules.rejectedComponents.first?.reason == "modifier must follow a token")
        let decision = rules.decide(url: "https://e.com/b")
        #expect(!decision.handled && decision.exception == "modifier must follow a token")
        #expect(decision.description.contains("throws IllegalArgumentException"))
    }

    @Test("bare component lists Android would reject are reported")
    func bareComponentProblems() throws {
        let cases: [(String, String)] = [
            (#"{"/": "*"}"#, "not an array"),
            (#"["/x"]"#, "component 0 is a string"),
            (#"[{"/": null}]"#, "component 0./ is null"),
            (#"[{"?": {"n": 1}}]"#, "component 0.?.n is a number"),
            (#"[{"/": [true]}]"#, "boolean inside an array"),
            (#"[{"/": ""}]"#, "component 0 field '/' (\"\"): a matching expression cannot be an empty string"),
        ]
        for (json, message) in cases {
            let rules = DynamicAppLinkRules(components: try JSONValue.parse(json))
            #expect(rules.discardReason?.contains(message) == true, "\(json): \(rules.discardReason ?? "nil")")
            #expect(rules.decide(url: "https://e.com/x").handled)
        }
        let fine = DynamicAppLinkRules(components: try JSONValue.parse(#"[{"/": "/a/*", "comments": "app"}]"#))
        #expect(fine.discardReason == nil)
        #expect(fine.components.first?.filters.map(\.description) == ["PATH PatternMatcher{PREFIX: /a/}"])
        #expect(fine.components.first?.comments == "app")
    }

    @Test("UriCodec.decode keeps Android's quirks")
    func uriDecoding() {
        func decode(_ s: String) -> String { String(decoding: AndroidURI.decode(Array(s.utf16)), as: UTF16.self) }
        #expect(decode("/a%20b") == "/a b")
        #expect(decode("a+b") == "a+b")
        #expect(decode("%C3%A9") == "é")
        #expect(decode("%C3") == "\u{FFFD}")
        #expect(decode("%zz") == "\u{FFFD}\u{0}z")
        #expect(decode("%4z!") == "\u{FFFD}\u{4}!")
        #expect(decode("100%") == "100\u{FFFD}")
        #expect(decode("%4") == "\u{FFFD}")
    }

    @Test("android.net.Uri parts")
    func uriParts() {
        func parts(_ s: String) -> [String?] {
            let u = AndroidURI(s)
            return [u.path, u.query, u.fragment].map { $0.map { String(decoding: $0, as: UTF16.self) } }
        }
        #expect(parts("https://e.com/a/b?c=d#e") == ["/a/b", "c=d", "e"])
        #expect(parts("https://e.com") == ["", nil, nil])
        #expect(parts("https://e.com?x") == ["", "x", nil])
        #expect(parts("https://e.com#f?x") == ["", nil, "f?x"])
        #expect(parts(#"https://e.com\a"#) == [#"\a"#, nil, nil])
        #expect(parts("mailto:a@b.c") == [nil, nil, nil])
    }

    @Test("canonical fingerprints")
    func fingerprints() {
        #expect(AssetLinksFile.isCanonicalFingerprint(fp))
        #expect(!AssetLinksFile.isCanonicalFingerprint(fp.lowercased()))
        #expect(!AssetLinksFile.isCanonicalFingerprint(fp.replacingOccurrences(of: ":", with: "")))
    }
}
