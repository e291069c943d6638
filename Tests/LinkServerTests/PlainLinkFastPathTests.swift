import Association
import Foundation
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP
import Testing
@testable import LinkServer

// The plain-link step (`Self.plainLink(_:_:)`: a route's answer or the not-found page,
// straight from the request) against the general path, over every kind of target, Host, visitor
// and site: where it answers, the answer is the one `Responder.respond` gives for the same
// request (response, kind, site, route, client, scheme, click); where another step could claim
// the request, it gives way.

@Suite("Plain-link fast path")
struct PlainLinkFastPathTests {
    static let (iPhone, android, slack) = (ShortLinkOverridesTests.iPhone, ShortLinkOverridesTests.android, ShortLinkOverridesTests.slack)

    static let links = [
        ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42"),
        ShortLink(code: "web1", site: "shop", target: "https://shop.example.com/about"),
        ShortLink(code: "off1", site: "shop", target: "https://shop.example.com/item/1", disabled: true),
        ShortLink(code: "gone", site: "shop", target: "https://shop.example.com/item/1", expiresAt: Date(timeIntervalSince1970: 1_000_000)),
        ShortLink(code: "news", site: "blog", target: "https://blog.example.org/post/hello"),
    ]

    /// The shop and the blog with short links at `/`; the shop again with links at `/s/`; a shop
    /// whose misses redirect; a plugged-in renderer.
    static let snapshots: [(name: String, snapshot: Snapshot)] = {
        var prefixed = Fixture.shop()
        prefixed.shortLinks = ShortLinksConfig(prefix: "/s/", allowedHosts: ["www.example.com"])
        let both = try! Snapshot(table: Fixture.table([Fixture.shop(), Fixture.blog]), publicDirectory: Fixture.publicDir, links: links)
        let shipped = both.renderer as! LandingPageRenderer
        return [
            ("shop+blog", both),
            ("prefix /s/", try! Snapshot(table: Fixture.table([prefixed]), publicDirectory: Fixture.publicDir, links: links)),
            ("misses redirect", Fixture.snapshot([Fixture.shop(notFound: NotFoundConfig(redirect: "https://shop.example.com/"))])),
            ("plugged renderer", try! Snapshot(table: both.table, publicDirectory: Fixture.publicDir,
                                               renderer: { _ in UnmarkedNotFoundRenderer(base: shipped) })),
        ]
    }()

    static let targets = [
        "/nothing/here", "/does/not/exist?x=1&y", "/", "/?utm_source=x", "/item/42", "/item/42?utm_campaign=spring", "/item/42/",
        "/item/drafts/7", "/go/hello%20world", "/post/hello", "/sale", "/sale/", "/off1", "/gone", "/web1", "/news", "/nosuchcode",
        "/s/sale", "/s/nosuchcode", "/s/", "/s", "/s/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1",
        "/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1", "/?link=https%3A%2F%2Fevil.example%5C%40shop.example.com%2F",
        "/robots.txt", "/favicon.ico", "/static/linkwell.css", "/static/og/item-42.png", "/static/og/x.svg?link=/sale",
        "/a/../b", "/%2e%2E/x", "/item/./42", "/.well-known/apple-app-site-association", "/apple-app-site-association",
        "/.well-known/assetlinks.json", "/.well-known/linkwell/resolve?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1",
        "/.env", "/.git/config", "/s/sale/x", "/sale/x", "/static/og", "/apple-app-site-associations",
        "/item/%ZZ", "/%C3%BCber", "/caf\u{E9}", "/x y", "/x\u{7F}", "*", "http://shop.example.com/item/42",
    ]
    static let hosts: [String?] = ["shop.example.com", "SHOP.example.com:8080", "blog.example.org", "unknown.example.net", nil]
    static let visitors: [[(name: String, value: String)]] = [
        [],
        [(name: "User-Agent", value: iPhone), (name: "Accept-Language", value: "de-DE,de;q=0.9")],
        [(name: "User-Agent", value: android), (name: "Accept-Language", value: "fr")],
        [(name: "User-Agent", value: slack)],
        [(name: "User-Agent", value: "")],
    ]

    /// The step's answer as a value: the result it lends, and the path.
    static func plainLink(_ snapshot: Snapshot, _ request: HTTPRequest) -> (result: ResponderResult, path: Substring)? {
        var answer: (result: ResponderResult, path: Substring)?
        let response = Responder.plainLink(snapshot, request) { result, path, _ in
            answer = (copy result, path)
            return result.response
        }
        #expect((response == nil) == (answer == nil))
        return answer
    }

    static func request(_ target: String, method: String = "GET", host: String?, _ headers: [(name: String, value: String)]) -> HTTPRequest {
        HTTPRequest(method: method, rawTarget: target, headers: (host.map { [(name: "Host", value: $0)] } ?? []) + headers, peerAddress: "192.0.2.7")
    }

    /// The same answer: a prepared response is the same object; any other the same status,
    /// headers and bytes (a landing page may be sent from its spans once and kept the next time).
    static func same(_ a: HTTPResponse, _ b: HTTPResponse) -> Bool {
        if case let .prepared(x) = a, case let .prepared(y) = b, x === y { return true }
        return a.status == b.status && a.body == b.body
            && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
    }

    @Test("answers every request it takes as the general path does", arguments: snapshots.indices)
    func sameAnswers(which: Int) throws {
        let (name, snapshot) = Self.snapshots[which]
        var answered = 0
        for target in Self.targets {
            for host in Self.hosts {
                for headers in Self.visitors {
                    for method in ["GET", "HEAD"] {
                        let r = Self.request(target, method: method, host: host, headers)
                        guard let fast = Self.plainLink(snapshot, r) else { continue }
                        answered += 1
                        let slow = Responder.respond(snapshot, RequestFacts(r))
                        let label = "\(name) \(method) \(target) Host \(host ?? "-") \(headers.first?.value.prefix(24) ?? "no UA")"
                        #expect(Self.same(fast.result.response, slow.response), "\(label)")
                        #expect(fast.result.kind == slow.kind, "\(label)")
                        #expect(fast.result.site == slow.site, "\(label)")
                        #expect(fast.result.route == slow.route, "\(label)")
                        #expect(fast.result.client == slow.client, "\(label)")
                        #expect(fast.result.scheme == slow.scheme, "\(label)")
                        #expect(fast.result.click == slow.click, "\(label)")
                        #expect(fast.path == r.rawPath, "\(label)")
                        #expect([.notFound, .page, .redirect].contains(fast.result.kind), "\(label)")
                    }
                }
            }
        }
        // The two snapshots with the shipped pages and the page misses take the plain links.
        #expect(which >= 2 || answered > 300, "\(name): \(answered)")
    }

    @Test("takes route links and misses; a miss counts its click", arguments: [
        ("/nothing/here", "shop.example.com", 404, RequestKind.notFound),
        ("/does/not/exist?x=1", "shop.example.com", 404, .notFound),
        ("/item/drafts/7", "shop.example.com", 404, .notFound),
        ("/nosuchcode", "shop.example.com", 404, .notFound),
        ("/off1", "shop.example.com", 404, .notFound),
        ("/item/42", "shop.example.com", 200, .page),
        ("/item/42?utm_campaign=spring", "SHOP.example.com:8080", 200, .page),
        ("/go/hello%20world", "shop.example.com", 302, .redirect),
        ("/post/hello", "blog.example.org", 200, .page),
        ("/sale", "blog.example.org", 404, .notFound),
    ])
    func takes(target: String, host: String, status: Int, kind: RequestKind) throws {
        let snapshot = Self.snapshots[0].snapshot
        let fast = try #require(Self.plainLink(snapshot, Self.request(target, host: host, [])))
        #expect(fast.result.response.status == status)
        #expect(fast.result.kind == kind)
        #expect(fast.result.click != nil)
        if kind == .notFound {
            #expect(fast.result.click == ClickEvent(visitor: Visitor(browser: BrowserFacts(platform: .desktop), hasUserAgent: false),
                                                     site: fast.result.site ?? "", outcome: .notFound))
            #expect(fast.result.response.header(ProxyConfig.missHeader) == "1")
        }
    }

    @Test("gives way wherever another step could claim the request", arguments: [
        ("GET", "/sale", "shop.example.com", [(String, String)]()),
        ("GET", "/web1", "shop.example.com", []),
        ("GET", "/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1", "shop.example.com", []),
        ("GET", "/robots.txt", "shop.example.com", []),
        ("GET", "/static/og/item-42.png", "shop.example.com", []),
        ("GET", "/a/../b", "shop.example.com", []),
        ("GET", "/.well-known/assetlinks.json", "blog.example.org", []),
        ("GET", "/.well-known/linkwell/resolve?link=x", "shop.example.com", []),
        ("GET", "/nothing/here", "unknown.example.net", []),
        ("GET", "/nothing/here?a=b c", "shop.example.com", []),
        ("POST", "/nothing/here", "shop.example.com", []),
        ("OPTIONS", "/nothing/here", "shop.example.com", []),
        ("GET", "/nothing/here", "shop.example.com", [("X-Forwarded-For", "198.51.100.1")]),
        ("GET", "/nothing/here", "shop.example.com", [("Forwarded", "for=198.51.100.1;host=blog.example.org")]),
        ("GET", "/nothing/here", "shop.example.com", [("X-Forwarded-Proto", "https")]),
        ("GET", "/nothing/here", "shop.example.com", [("X-Forwarded-Host", "blog.example.org")]),
    ])
    func givesWay(method: String, target: String, host: String, headers: [(String, String)]) {
        let r = Self.request(target, method: method, host: host, headers.map { (name: $0.0, value: $0.1) })
        #expect(Self.plainLink(Self.snapshots[0].snapshot, r) == nil)
    }

    @Test("a site whose misses redirect, and a plugged-in renderer's misses, take the general path")
    func givesWayForOtherMisses() {
        for which in 2...3 {
            let r = Self.request("/nothing/here", host: "shop.example.com", [])
            #expect(Self.plainLink(Self.snapshots[which].snapshot, r) == nil, "\(Self.snapshots[which].name)")
        }
    }

    @Test("the miss memo answers per snapshot, site and visitor, never from another's")
    func missMemo() throws {
        let (a, b) = (Self.snapshots[0].snapshot, Self.snapshots[1].snapshot)
        #expect(a.serial != b.serial)
        for _ in 0..<2 {
            for snapshot in [a, b, a, a] {
                for host in ["shop.example.com", "blog.example.org"] {
                    for headers in Self.visitors + Self.visitors.reversed() {
                        let r = Self.request("/nothing/here", host: host, headers)
                        let fast = try #require(Self.plainLink(snapshot, r))
                        let slow = Responder.respond(snapshot, RequestFacts(r))
                        guard case let .prepared(x) = fast.result.response, case let .prepared(y) = slow.response else {
                            Issue.record("not prepared")
                            continue
                        }
                        // The same object: the page of this snapshot's cache, for this visitor.
                        #expect(x === y, "\(host) \(headers.first?.value.prefix(24) ?? "no UA")")
                        #expect(fast.result.click == slow.click)
                        #expect(fast.result.site == slow.site)
                    }
                }
            }
        }
    }
}
