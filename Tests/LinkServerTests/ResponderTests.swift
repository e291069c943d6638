import Association
import Foundation
import LandingPages
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

// The responder without a socket: snapshot + request facts → response.

enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let publicDir = root.appendingPathComponent("public").path

    static func table(_ sites: [SiteConfig], server: ServerSettings? = nil) -> RouteTable {
        try! RouteTable(config: LinkwellConfig(server: server, sites: sites))
    }

    static let ios = IOSAppConfig(id: "ios", name: "Shop", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"])
    static let android = AndroidAppConfig(
        id: "android", name: "Shop", package: "com.example.shop",
        fingerprints: ["AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"])

    static func shop(default isDefault: Bool? = nil, ios: Bool = true, android: Bool = true, notFound: NotFoundConfig? = nil) -> SiteConfig {
        SiteConfig(
            name: "shop", domains: ["shop.example.com"], isDefault: isDefault, website: "https://shop.example.com",
            ios: ios ? [Self.ios] : nil, android: android ? [Self.android] : nil,
            routes: [
                .exclusion(ExclusionConfig(exclude: "/item/drafts/*")),
                .route(RouteConfig(name: "item", path: "/item/{id}")),
                .route(RouteConfig(name: "go", path: "/go/{dest}",
                                   fallback: FallbackConfig(desktop: .web, web: "https://web.example.com/p/{dest}?from={dest}"))),
            ],
            notFound: notFound)
    }

    static let blog = SiteConfig(
        name: "blog", domains: ["blog.example.org"], ios: [IOSAppConfig(id: "b", teamID: "ZZZZZ12345", bundleID: "org.example.blog")],
        routes: [.route(RouteConfig(name: "post", path: "/post/{slug}"))])

    static func snapshot(_ sites: [SiteConfig] = [shop()], server: ServerSettings? = nil, publicDir: String? = Fixture.publicDir) -> Snapshot {
        try! Snapshot(table: table(sites, server: server), publicDirectory: publicDir)
    }
}

func respond(_ snapshot: Snapshot, _ target: String, method: String = "GET", host: String? = "shop.example.com",
             peer: String = "127.0.0.1", configure: (inout RequestFacts) -> Void = { _ in }) -> ResponderResult {
    var facts = RequestFacts(method: method, rawTarget: target, host: host, peerAddress: peer)
    configure(&facts)
    return Responder.respond(snapshot, facts)
}

@Suite("Responder")
struct ResponderTests {
    let snapshot = Fixture.snapshot()

    @Test("association files: 200, JSON, ETag, Cache-Control, the generator's bytes", arguments: [
        ("/.well-known/apple-app-site-association", RequestKind.aasa),
        ("/apple-app-site-association", .aasa),
        ("/.well-known/assetlinks.json", .assetlinks),
    ])
    func associationFiles(path: String, kind: RequestKind) {
        let result = respond(snapshot, path)
        let site = snapshot.table.sites[0]
        let expected = kind == .aasa ? AASAGenerator.bytes(for: site) : AssetLinksGenerator.bytes(for: site)
        #expect(result.response.status == 200)
        #expect(result.kind == kind)
        #expect(result.response.header("Content-Type") == "application/json")
        #expect(result.response.header("Cache-Control") == "public, max-age=300")
        #expect(result.response.header("ETag") == EntityTag.strong(for: expected))
        #expect(result.response.header("Location") == nil)
        #expect(result.response.body == expected)
        guard case .prepared = result.response else { Issue.record("association files must be prepared once"); return }
    }

    @Test("the query string does not change the association file")
    func associationWithQuery() {
        #expect(respond(snapshot, "/.well-known/assetlinks.json?x=1").response.status == 200)
    }

    @Test("configured Cache-Control is used")
    func cacheControl() {
        var server = ServerSettings()
        server.associationCacheControl = "public, max-age=60"
        let s = Fixture.snapshot(server: server)
        #expect(respond(s, "/.well-known/apple-app-site-association").response.header("Cache-Control") == "public, max-age=60")
    }

    @Test("If-None-Match → 304 for a matching, weak, listed or * tag; 200 otherwise")
    func conditional() {
        let etag = respond(snapshot, "/.well-known/apple-app-site-association").response.header("ETag")!
        for header in [etag, "W/\(etag)", "\"nope\", \(etag)", "*", " \"a\" ,W/\(etag) "] {
            let r = respond(snapshot, "/.well-known/apple-app-site-association") { $0.ifNoneMatch = header }
            #expect(r.response.status == 304, "\(header)")
            #expect(r.response.header("ETag") == etag)
            #expect(r.response.body.isEmpty)
        }
        for header in ["\"nope\"", "", etag.replacingOccurrences(of: "\"", with: "")] {
            let r = respond(snapshot, "/.well-known/apple-app-site-association") { $0.ifNoneMatch = header }
            #expect(r.response.status == 200, "\(header)")
        }
    }

    @Test("no iOS app → AASA 404; no Android app → assetlinks 404")
    func missingPlatforms() {
        let noIOS = Fixture.snapshot([Fixture.shop(ios: false)])
        #expect(respond(noIOS, "/.well-known/apple-app-site-association").response.status == 404)
        #expect(respond(noIOS, "/apple-app-site-association").response.status == 404)
        #expect(respond(noIOS, "/.well-known/assetlinks.json").response.status == 200)
        let noAndroid = Fixture.snapshot([Fixture.shop(android: false)])
        #expect(respond(noAndroid, "/.well-known/assetlinks.json").response.status == 404)
        #expect(respond(noAndroid, "/.well-known/apple-app-site-association").response.status == 200)
    }

    @Test("HEAD gets the same response as GET")
    func head() {
        let get = respond(snapshot, "/.well-known/assetlinks.json")
        let head = respond(snapshot, "/.well-known/assetlinks.json", method: "HEAD")
        #expect(head.response.status == 200)
        #expect(head.response.header("ETag") == get.response.header("ETag"))
    }

    @Test("methods other than GET and HEAD → 405 with Allow", arguments: ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get"])
    func methodNotAllowed(method: String) {
        let r = respond(snapshot, "/item/1", method: method)
        #expect(r.response.status == 405)
        #expect(r.response.header("Allow") == "GET, HEAD")
        #expect(r.kind == .error)
    }

    @Test("a target that is not origin-form or has control characters → 400", arguments: [
        "*", "http://shop.example.com/item/1", "item/1", "/item/1\u{0}", "/item/\u{7F}", "/a\tb", "",
    ])
    func badTarget(target: String) {
        #expect(respond(snapshot, target).response.status == 400)
    }

    @Test("dot segments, raw or encoded, → 400 (as nginx above the root) and never a file", arguments: [
        "/../etc/passwd", "/static/../robots.txt", "/%2e%2e/etc/passwd", "/static/%2E%2E/%2e%2E/robots.txt",
        "/item/..", "/./robots.txt", "/static/%2e/linkwell.css",
    ])
    func dotSegments(target: String) {
        let r = respond(snapshot, target)
        #expect(r.response.status == 400)
        #expect(r.kind == .error)
        #expect(!String(decoding: r.response.body, as: UTF8.self).contains("User-agent"))
    }

    @Test("static assets from public/, with content types and ETags", arguments: [
        ("/robots.txt", "text/plain; charset=utf-8"),
        ("/static/linkwell.css", "text/css; charset=utf-8"),
        ("/favicon.ico", "image/x-icon"),
        ("/favicon.svg", "image/svg+xml"),
    ])
    func staticAssets(path: String, type: String) throws {
        let r = respond(snapshot, path)
        #expect(r.response.status == 200)
        #expect(r.kind == .staticAsset)
        #expect(r.response.header("Content-Type") == type)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.publicDir + path)))
        #expect(r.response.body == bytes)
        #expect(r.response.header("ETag") == EntityTag.strong(for: bytes))
        let again = respond(snapshot, path) { $0.ifNoneMatch = r.response.header("ETag") }
        #expect(again.response.status == 304)
    }

    @Test("a link matching a route gets the landing page: canonical link, open-in-app, strict CSP")
    func page() {
        let r = respond(snapshot, "/item/42")
        #expect(r.response.status == 200)
        #expect(r.kind == .page)
        #expect(r.route == "item")
        #expect(r.response.header("Content-Type") == "text/html; charset=utf-8")
        let html = String(decoding: r.response.body, as: UTF8.self)
        #expect(html.contains("https://shop.example.com/item/42"))
        #expect(html.contains("shop://item/42") || html.contains("shop:///item/42"))
        #expect(html.contains("<link rel=\"canonical\" href=\"https://shop.example.com/item/42\">"))
        #expect(r.response.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
        #expect(r.response.header("Vary") == "User-Agent, Accept-Language")
        let ios = respond(snapshot, "/item/42") { $0.userAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)" }
        #expect(String(decoding: ios.response.body, as: UTF8.self).contains("id=\"open-in-app\" href=\"shop://item/42\""))
    }

    @Test("parameters reach the page only escaped (here: percent-encoded in the canonical link)")
    func pageEscapes() {
        let r = respond(snapshot, "/item/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
        #expect(r.response.status == 200)
        let html = String(decoding: r.response.body, as: UTF8.self)
        #expect(!html.contains("<script>"))
        #expect(html.contains("https://shop.example.com/item/%3Cscript%3Ealert%281%29%3C%2Fscript%3E"))
    }

    @Test("no route or an excluded path → 404 page")
    func notFound() {
        for target in ["/nothing/here", "/item/drafts/7", "/"] {
            let r = respond(snapshot, target)
            #expect(r.response.status == 404, "\(target)")
            #expect(r.kind == .notFound)
            #expect(r.response.header("Content-Type") == "text/html; charset=utf-8")
            // Marked "no link here" for the proxy that then asks the website (generate nginx|caddy).
            #expect(r.response.header(ProxyConfig.missHeader) == "1", "\(target)")
        }
        #expect(respond(snapshot, "/item/42").response.header(ProxyConfig.missHeader) == nil)
        #expect(respond(snapshot, "/.well-known/assetlinks.json").response.header(ProxyConfig.missHeader) == nil)
    }

    @Test("a plugged-in renderer's 404 without the miss header gets it; the shipped one carries it once")
    func notFoundMarkedForPluggedInRenderer() throws {
        let shipped = try #require(snapshot.renderer as? LandingPageRenderer)
        let plugged = try Snapshot(table: snapshot.table, publicDirectory: snapshot.publicDirectory,
                                   renderer: { _ in UnmarkedNotFoundRenderer(base: shipped) })
        let r = respond(plugged, "/nothing/here")
        #expect(r.response.status == 404)
        #expect(r.response.header(ProxyConfig.missHeader) == "1")
        #expect(r.response.headers.filter { $0.0 == ProxyConfig.missHeader }.count == 1)
        #expect(respond(snapshot, "/nothing/here").response.headers.filter { $0.0 == ProxyConfig.missHeader }.count == 1)
    }

    @Test("notFound.redirect → 302")
    func notFoundRedirect() {
        let s = Fixture.snapshot([Fixture.shop(notFound: NotFoundConfig(redirect: "https://shop.example.com/"))])
        let r = respond(s, "/nothing")
        #expect(r.response.status == 302)
        #expect(r.response.header("Location") == "https://shop.example.com/")
    }

    @Test("fallback.web with desktop=web → 302 with encoded parameters")
    func webRedirect() {
        let r = respond(snapshot, "/go/hello%20world")
        #expect(r.response.status == 302)
        #expect(r.kind == .redirect)
        #expect(r.route == "go")
        #expect(r.response.header("Location") == "https://web.example.com/p/hello%20world?from=hello%20world")
    }

    @Test("a redirect never leaves the template's host, whatever the parameters", arguments: [
        "%2F%2Fevil.com", "@evil.com", "..%2F..%2Fevil.com", "https:%2F%2Fevil.com", "%0D%0ALocation:%20https:%2F%2Fevil.com",
        "%5Cevil.com", "a%23b", "x%3Fy%3Dz",
    ])
    func redirectStaysHome(dest: String) {
        let r = respond(snapshot, "/go/\(dest)")
        if dest.contains("..%2F") {
            // `..` between encoded slashes is a dot segment, refused before anything is decided (as nginx does).
            #expect(r.response.status == 400 && r.response.header("Location") == nil)
            return
        }
        #expect(r.response.status == 302)
        let location = r.response.header("Location") ?? ""
        #expect(location.hasPrefix("https://web.example.com/p/"), "\(location)")
        #expect(!location.contains("\r") && !location.contains("\n"))
        let afterPrefix = location.dropFirst("https://web.example.com/p/".count)
        #expect(!afterPrefix.contains("/"), "the value stays one encoded segment: \(location)")
        #expect(URLComponents(string: location)?.host == "web.example.com")
    }

    @Test("templates with a placeholder in the host are refused")
    func templateHost() {
        #expect(WebTemplate.fillURL("https://{host}/x", parameters: ["host": "evil.com"]) == nil)
        #expect(WebTemplate.fillURL("https://a.com{x}/y", parameters: ["x": ".evil.com"]) == nil)
        #expect(WebTemplate.fillURL("javascript:{x}", parameters: ["x": "alert(1)"]) == nil)
        #expect(WebTemplate.fillURL("https://a.com/{x}", parameters: ["x": "a/b"]) == "https://a.com/a%2Fb")
    }

    @Test("several sites without a default: unknown Host → 421 without echoing it")
    func misdirected() {
        let s = Fixture.snapshot([Fixture.shop(), Fixture.blog])
        let r = respond(s, "/.well-known/apple-app-site-association", host: "evil-<b>.example.net")
        #expect(r.response.status == 421)
        #expect(!String(decoding: r.response.body, as: UTF8.self).contains("evil"))
        #expect(respond(s, "/post/x", host: "blog.example.org").response.status == 200)
        #expect(respond(s, "/post/x", host: "blog.example.org:8080").response.status == 200)
        #expect(respond(s, "/item/1", host: nil).response.status == 421)
        // With a default site, an unknown host gets the default.
        let d = Fixture.snapshot([Fixture.shop(default: true), Fixture.blog])
        #expect(respond(d, "/item/1", host: "other.example").response.status == 200)
    }

    @Test("Host picks the site's association file")
    func hostSelectsSite() {
        let s = Fixture.snapshot([Fixture.shop(), Fixture.blog])
        let blog = respond(s, "/.well-known/apple-app-site-association", host: "BLOG.example.org.")
        #expect(blog.site == "blog")
        #expect(blog.response.body == AASAGenerator.bytes(for: s.table.sites[1]))
        #expect(respond(s, "/.well-known/assetlinks.json", host: "blog.example.org").response.status == 404)
    }
}

@Suite("Proxy trust")
struct ProxyTrustTests {
    let multi = Fixture.snapshot([Fixture.shop(), Fixture.blog])

    @Test("from a trusted peer, X-Forwarded-For's right-most untrusted address is the client")
    func xffTrusted() {
        let r = respond(multi, "/item/1", peer: "127.0.0.1") {
            $0.xForwardedFor = ["203.0.113.7, 198.51.100.2", "127.0.0.5"]
        }
        #expect(r.client == "198.51.100.2")
    }

    @Test("from an untrusted peer, forwarding headers are ignored")
    func untrusted() {
        let r = respond(multi, "/post/x", host: "shop.example.com", peer: "192.0.2.10") {
            $0.xForwardedFor = ["203.0.113.7"]
            $0.xForwardedHost = ["blog.example.org"]
            $0.forwarded = ["for=203.0.113.9;host=blog.example.org"]
        }
        #expect(r.client == "192.0.2.10")
        #expect(r.site == "shop")
        #expect(r.response.status == 404)
    }

    @Test("X-Forwarded-Host from a trusted peer selects the site")
    func xfh() {
        let r = respond(multi, "/post/x", host: "internal:8080", peer: "::1") { $0.xForwardedHost = ["blog.example.org"] }
        #expect(r.site == "blog")
        #expect(r.response.status == 200)
    }

    @Test("Forwarded wins over X-Forwarded-*; quoted IPv6 with port")
    func forwarded() {
        let r = respond(multi, "/post/x", host: "internal", peer: "127.0.0.1") {
            $0.forwarded = ["for=\"[2001:db8::7]:4711\";proto=https;host=blog.example.org"]
            $0.xForwardedFor = ["203.0.113.7"]
            $0.xForwardedHost = ["shop.example.com"]
        }
        #expect(r.client == "2001:db8::7")
        #expect(r.site == "blog")
        #expect(ProxyTrust(cidrs: ProxyTrust.defaultCIDRs).resolve(RequestFacts(rawTarget: "/", peerAddress: "127.0.0.1",
            forwarded: ["for=192.0.2.1;proto=https"])).scheme == "https")
    }

    @Test("Forwarded: the right-most untrusted hop, over several headers and elements")
    func forwardedChain() {
        let trust = ProxyTrust(cidrs: ["127.0.0.0/8", "10.0.0.0/8"])
        let facts = RequestFacts(rawTarget: "/", peerAddress: "127.0.0.1",
                                 forwarded: ["for=198.51.100.1, for=192.0.2.60", "for=10.1.2.3;proto=http"])
        #expect(trust.resolve(facts).client == "192.0.2.60")
    }

    @Test("the scheme the result reports (and the request log shows) is the proxy's, only from a trusted peer")
    func schemeInResult() {
        #expect(respond(multi, "/item/1", peer: "127.0.0.1") { $0.xForwardedProto = ["https"] }.scheme == "https")
        #expect(respond(multi, "/item/1", peer: "127.0.0.1") { $0.forwarded = ["for=192.0.2.1;proto=https"]; $0.xForwardedProto = ["http"] }.scheme == "https")
        #expect(respond(multi, "/item/1", peer: "192.0.2.10") { $0.xForwardedProto = ["https"] }.scheme == "http")
        #expect(respond(multi, "/item/1", peer: "127.0.0.1").scheme == "http")
    }

    @Test("a config that trusts nothing ignores the headers even from loopback")
    func trustsNothing() {
        var server = ServerSettings()
        server.trustedProxies = []
        let s = Fixture.snapshot(server: server)
        let r = respond(s, "/item/1") { $0.xForwardedFor = ["203.0.113.7"] }
        #expect(r.client == "127.0.0.1")
    }

    @Test("CIDR parsing and matching", arguments: [
        ("127.0.0.0/8", "127.1.2.3", true), ("127.0.0.0/8", "128.0.0.1", false),
        ("::1/128", "::1", true), ("::1/128", "::2", false), ("10.0.0.0/8", "::ffff:10.9.8.7", true),
        ("2001:db8::/32", "2001:db8:1::5", true), ("2001:db8::/32", "2001:db9::5", false),
        ("0.0.0.0/0", "8.8.8.8", true), ("192.168.1.7", "192.168.1.7", true), ("192.168.1.7", "192.168.1.8", false),
        ("fe80::/10", "fe80::1%eth0", true), ("::/0", "1.2.3.4", false),
    ])
    func cidr(cidr: String, address: String, expected: Bool) {
        let network = IPNetwork(cidr)
        #expect(network != nil)
        #expect(network?.contains(IPAddress(address)!) == expected)
    }

    @Test("invalid CIDRs and addresses are rejected", arguments: ["1.2.3.4/33", "::1/129", "1.2.3", "1.2.3.256", "01.2.3.4", ":::1", "1::2::3", "abc", "10.0.0.0/x"])
    func invalid(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test("IPv6 text form is RFC 5952")
    func ipv6Text() {
        #expect(IPAddress("2001:0db8:0000:0000:0000:0000:0000:0001")?.description == "2001:db8::1")
        #expect(IPAddress("::")?.description == "::")
        #expect(IPAddress("::ffff:1.2.3.4")?.description == "1.2.3.4")
    }
}

/// The shipped pages, with a not-found page that lacks `X-Linkwell-Miss` (what a renderer plugged
/// in by a caller may send).
struct UnmarkedNotFoundRenderer: PageRenderer {
    let base: LandingPageRenderer
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse { base.page(for: match, site: site, request: request) }
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse {
        base.page(for: match, site: site, request: request, overrides: overrides)
    }
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        let page = base.notFound(site: site, request: request)
        return .dynamic(status: 404, headers: page.headers.filter { $0.0 != ProxyConfig.missHeader }, body: page.body)
    }
    func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse? { base.asset(path: path, site: site, request: request) }
}
