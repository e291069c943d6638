// WebURL against a WHATWG implementation (ada-url, the parser inside Node.js) on the
// web-platform-tests URL corpus and the redirect-tricks corpus (Fixtures/url-oracle.json, written
// by scripts/url-oracle.py and checked against ada-url by tests/live/test_url_oracle.py).

import Foundation
import Testing
@testable import LinkRouting

@Suite("WebURL: browser-exact parsing of absolute http(s) URLs")
struct WebURLOracleTests {
    struct OracleCase: Decodable, Sendable {
        var source: String
        var input: String
        var href: String?
    }

    struct Oracle: Decodable { var cases: [OracleCase] }

    static let cases: [OracleCase] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/url-oracle.json")
        guard let data = try? Data(contentsOf: file), let oracle = try? JSONDecoder().decode(Oracle.self, from: data) else { return [] }
        return oracle.cases
    }()

    /// Where WebURL may refuse what a browser accepts: a host that IDNA would map through the
    /// full UTS #46 table. It never accepts a URL a browser refuses, and never reads one differently.
    static func mayRefuse(_ href: String) -> Bool {
        // The oracle's href is serialized: `scheme://[userinfo@]host[:port]/…`.
        guard let start = href.range(of: "://")?.upperBound else { return false }
        var authority = href[start...].prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.split(separator: ".").contains { $0.hasPrefix("xn--") }
    }

    @Test("the oracle file is there and covers both corpora")
    func oracleIsThere() {
        #expect(Self.cases.filter { $0.source == "wpt" }.count > 500, "run scripts/url-oracle.py (make test does)")
        #expect(Self.cases.filter { $0.source == "tricks" }.count > 80)
    }

    @Test("every special-scheme input: the same href as the WHATWG parser, or refused where it may be")
    func agreesWithWHATWG() {
        var compared = 0, agreed = 0, refused: [String] = []
        for c in Self.cases {
            let ours = WebURL(c.input)
            let oracleIsSpecial = c.href.map { WebURL.hasSpecialScheme($0) } ?? false
            guard WebURL.hasSpecialScheme(c.input) || oracleIsSpecial else {
                #expect(ours == nil, "not a special-scheme URL, yet parsed: \(c.input.debugDescription)")
                continue
            }
            compared += 1
            switch (ours?.href, c.href) {
            case let (mine?, theirs?) where mine == theirs:
                agreed += 1
            case (nil, nil):
                agreed += 1
            case let (nil, theirs?) where Self.mayRefuse(theirs):
                refused.append(c.input)
            case let (mine, theirs):
                Issue.record("\(c.source) \(c.input.debugDescription): WebURL \(mine ?? "failure"), WHATWG \(theirs ?? "failure")")
            }
        }
        #expect(compared > 450)
        #expect(refused.count * 20 < compared, "refusals: \(refused)")
        print("WebURL vs WHATWG: \(compared) special-scheme inputs, \(agreed) identical, \(refused.count) internationalized hosts refused")
    }

    @Test("redirect tricks land where a browser lands", arguments: [
        ("https://evil.example\\@good.example/", "evil.example"),
        ("https://good.example@evil.example/", "evil.example"),
        ("https:\\\\evil.example/", "evil.example"),
        ("https:evil.example", "evil.example"),
        ("\thttps://evil.ex\ntample/", "evil.extample"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("HTTPS://GOOD.EXAMPLE/", "good.example"),
        ("https://g\u{043e}\u{043e}gle.com/", "xn--ggle-55da.com"),
    ])
    func tricks(input: String, host: String) {
        #expect(WebURL(input)?.host == host)
    }

    @Test("script and relative URLs are not web URLs", arguments: [
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)", "data:text/html,x", "//evil.example/", "/\\evil.example", "fitconnect://x",
    ])
    func notWeb(input: String) {
        #expect(WebURL(input) == nil)
    }

    @Test("punycode round trip (RFC 3492 samples)", arguments: [
        ("bücher", "bcher-kva"), ("münchen", "mnchen-3ya"), ("日本", "wgv71a"), ("русский", "h1acbxfam"),
    ])
    func punycode(unicode: String, ascii: String) {
        #expect(Punycode.encode(unicode) == ascii)
        #expect(Punycode.decode(ascii) == unicode)
    }
}
