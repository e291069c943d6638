// Short links with overrides and FDL long links, through the Responder: the target route's page
// with the link's preview and fallbacks, forced redirects, the prefix, and the long links'
// 400 page for every hostile value.

import Foundation
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP
import Testing

@testable import LinkServer

@Suite("Responder: short-link overrides and FDL long links")
struct ShortLinkOverridesTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
    static let iPad = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
    static let slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"

    static func site(prefix: String? = nil) -> SiteConfig {
        var s = Fixture.shop()
        s.ios = [IOSAppConfig(id: "ios", name: "Shop", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: "123456789", schemes: ["shop"])]
        s.fallback = FallbackConfig(ios: .store, android: .landing)
        s.shortLinks = ShortLinksConfig(prefix: prefix, allowedHosts: ["www.example.com"])
        return s
    }

    static let links = [
        ShortLink(code: "sale", site: "shop", target: "https://shop.example.com/item/42", previewTitle: "Half price <today>",
                  previewDescription: "Only \"now\"", previewImage: "https://cdn.example.com/sale.png",
                  iosFallback: "https://www.example.com/ios", androidFallback: "https://www.example.com/android",
                  fdl: FDLParameters(ipadFallback: "https://www.example.com/ipad", utmSource: "news", utmCampaign: "spring", ct: "camp", mt: "8")),
        ShortLink(code: "plain", site: "shop", target: "https://shop.example.com/item/42"),
        ShortLink(code: "efr1", site: "shop", target: "https://shop.example.com/item/7", androidFallback: "https://www.example.com/a", forcedRedirect: true),
        ShortLink(code: "gone", site: "shop", target: "https://shop.example.com/item/1", expiresAt: Date(timeIntervalSince1970: 1_000_000)),
        ShortLink(code: "web2", site: "shop", target: "https://www.example.com/blog/1", desktopFallback: "https://www.example.com/desk"),
    ]
    static let snapshot = try! Snapshot(table: Fixture.table([site()]), publicDirectory: Fixture.publicDir, links: links)
    static let prefixed = try! Snapshot(table: Fixture.table([site(prefix: "/l/")]), publicDirectory: Fixture.publicDir, links: links)

    static func get(_ target: String, _ ua: String?, snapshot: Snapshot = snapshot) -> ResponderResult {
        Responder.respond(snapshot, RequestFacts(rawTarget: target, host: "shop.example.com", userAgent: ua))
    }
    static func body(_ r: ResponderResult) -> String { String(decoding: r.response.body ?? [], as: UTF8.self) }

    @Test func thePreviewIsTheLinksOnTheRoutesPage() {
        let r = Self.get("/sale", Self.slack)
        let html = Self.body(r)
        #expect(r.kind == .page && r.route == "item" && r.response.status == 200)
        #expect(html.contains(#"<meta property="og:title" content="Half price &lt;today&gt;">"#))
        #expect(html.contains(#"<meta property="og:description" content="Only &quot;now&quot;">"#))
        #expect(html.contains(#"<meta property="og:image" content="https://cdn.example.com/sale.png">"#))
        #expect(html.contains("<title>Half price &lt;today&gt;</title>"))
        // For crawlers the page is the link's own: its URL is the canonical link and og:url.
        #expect(html.contains(#"<link rel="canonical" href="https://shop.example.com/sale">"#))
        #expect(html.contains(#"<meta property="og:url" content="https://shop.example.com/sale">"#))
        // The rest is the route's page: same apps.
        let direct = Self.body(Self.get("/item/42", Self.slack))
        #expect(direct.contains(#"<link rel="canonical" href="https://shop.example.com/item/42">"#))
        #expect(!direct.contains("Half price"))
    }

    @Test func aLinkWithoutOverridesIsTheRoutesPageUnderItsOwnURL() {
        for ua in [Self.iPhone, Self.android, Self.desktop, Self.slack] {
            let short = Self.get("/plain", ua), direct = Self.get("/item/42", ua)
            #expect(short.response.status == direct.response.status)
            let asRoute = { (r: ResponderResult) in ShortLinkServingTests.asTarget(Self.body(r), link: "/plain", target: "/item/42") }
            #expect(asRoute(short) == asRoute(direct), "\(ua ?? "")")
            #expect(short.response.header("Location") == direct.response.header("Location"))
        }
    }

    @Test(arguments: [
        (iPhone, "https://www.example.com/ios"),  // fallback.ios = store → the link's ifl instead
        (iPad, "https://www.example.com/ipad"),  // ipfl before ifl
    ])
    func theFallbackReplacesTheStoreRedirect(ua: String, location: String) {
        let r = Self.get("/sale", ua)
        #expect(r.kind == .redirect && r.response.header("Location") == location)
        #expect(Self.get("/item/42", ua).response.header("Location") == "https://apps.apple.com/app/id123456789")
    }

    @Test func androidPagesCarryTheFallbackAndTheCampaign() {
        let html = Self.body(Self.get("/sale", Self.android))
        // afl is the web button in place of Play, and Chrome's intent fallback.
        #expect(html.contains(#"href="https://www.example.com/android""#))
        #expect(html.contains("S.browser_fallback_url=https%3A%2F%2Fwww.example.com%2Fandroid;end"))
        #expect(!html.contains(#"id="play-store""#))
        let desktop = Self.body(Self.get("/sale", Self.desktop))
        // utm_* go into the Play referrer before linkwell_link; ct/mt into the App Store URL.
        #expect(desktop.contains("referrer=utm_source%3Dnews%26utm_campaign%3Dspring%26linkwell_link%3D"))
        #expect(desktop.contains("https://apps.apple.com/app/id123456789?ct=camp&amp;mt=8"))
    }

    @Test(arguments: [
        (android, "https://www.example.com/a"), (iPhone, "https://shop.example.com/item/7"), (desktop, "https://shop.example.com/item/7"),
    ])
    func forcedRedirectsSkipThePage(ua: String, location: String) {
        let r = Self.get("/efr1", ua)
        #expect(r.kind == .redirect && r.response.status == 302 && r.response.header("Location") == location)
    }

    @Test func crawlersStillGetThePageOfAForcedRedirect() {
        let r = Self.get("/efr1", Self.slack)
        #expect(r.kind == .page && r.response.status == 200)
    }

    @Test func expiredLinksAreNotFoundAndWebTargetsRedirect() {
        #expect(Self.get("/gone", Self.iPhone).response.status == 404)
        #expect(Self.get("/web2", Self.iPhone).response.header("Location") == "https://www.example.com/blog/1")
        #expect(Self.get("/web2", Self.desktop).response.header("Location") == "https://www.example.com/desk")
    }

    @Test func withAPrefixCodesLiveOnlyUnderIt() {
        #expect(Self.get("/l/sale", Self.slack, snapshot: Self.prefixed).kind == .page)
        #expect(Self.get("/sale", Self.slack, snapshot: Self.prefixed).response.status == 404)
        #expect(Self.get("/l/sale/x", Self.slack, snapshot: Self.prefixed).response.status == 404)
        #expect(Self.get("/l/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F9&st=Nine", Self.slack, snapshot: Self.prefixed).kind == .page)
        #expect(Self.get("/l?link=https%3A%2F%2Fshop.example.com%2Fitem%2F9", Self.slack, snapshot: Self.prefixed).kind == .page)
    }

    // MARK: Long links

    @Test func aLongLinkIsTheShortLinkOfItsParameters() {
        let q = "/?link=https%3A%2F%2Fwww.example.com%2Fitem%2F5&st=Five+stars&sd=Read%20it&si=https%3A%2F%2Fwww.example.com%2F5.png"
            + "&ifl=https%3A%2F%2Fwww.example.com%2Fi&utm_source=mail&apn=com.example.shop&isi=123456789"
        let crawler = Self.get(q, Self.slack)
        let html = Self.body(crawler)
        #expect(crawler.kind == .page && crawler.route == "item")
        #expect(html.contains(#"content="Five stars""#) && html.contains(#"content="Read it""#) && html.contains("https://www.example.com/5.png"))
        // An image from a host the site does not allow is refused, like a redirect there.
        #expect(Self.get(q.replacingOccurrences(of: "www.example.com%2F5.png", with: "cdn.example.com%2F5.png"), Self.slack).response.status == 400)
        #expect(Self.get(q, Self.iPhone).response.header("Location") == "https://www.example.com/i")
        #expect(Self.body(Self.get(q, Self.desktop)).contains("utm_source%3Dmail%26linkwell_link"))
        // A deep link no route takes: the browser goes there (it is on an allowed host).
        #expect(Self.get("/?link=https%3A%2F%2Fwww.example.com%2Fblog", Self.iPhone).response.header("Location") == "https://www.example.com/blog")
        // efr=1 with afl.
        #expect(Self.get("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F5&efr=1&afl=https%3A%2F%2Fwww.example.com%2Fa", Self.android)
            .response.header("Location") == "https://www.example.com/a")
    }

    @Test(arguments: [
        ("/?link=https%3A%2F%2Fevil.example%2F", "link", "evil.example"),
        ("/?link=javascript%3Aalert(1)", "link", "is not an http(s) URL"),
        ("/?link=JaVaScRiPt:alert(document.cookie)", "link", "is not an http(s) URL"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1&afl=https%3A%2F%2Fevil.example%2F", "afl", "evil.example"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1&ifl=%2F%2Fevil.example%2F", "ifl", "is not an http(s) URL"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1&ofl=https%3A%2F%2Fshop.example.com%40evil.example%2F", "ofl", "evil.example"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1%0D%0ASet-Cookie%3A%20x%3D1", "link", "control character U+000D"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1&ipfl=https%3A%2F%2Fwww.example.com%2F%0Ax", "ipfl", "control character U+000A"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F1&efr=2", "efr", "is not 1 or 0"),
        ("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F" + String(repeating: "a", count: 3000), "link", "more than 2048"),
        ("/?link=", "link", "there is no deep link"),
    ])
    func hostileLongLinksGetThe400PageNamingTheParameter(target: String, parameter: String, message: String) {
        for ua in [Self.iPhone, Self.slack] {
            let r = Self.get(target, ua)
            let html = Self.body(r)
            #expect(r.response.status == 400 && r.kind == .error && r.response.header("Location") == nil)
            #expect(html.contains(#"<code id="parameter">\#(parameter)</code>"#))
            #expect(html.contains(message.replacingOccurrences(of: "'", with: "&#39;")), "\(html)")
            #expect(!html.contains("<script") && !html.lowercased().contains("href=\"javascript"))
        }
    }

    @Test func theXSSValuesAreEscapedOnThePageAndTheExplanation() {
        let q = "/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F5&st=%3Cscript%3Ealert(1)%3C%2Fscript%3E&sd=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
        for target in [q, q + "&d=1"] {
            let html = Self.body(Self.get(target, Self.slack))
            #expect(!html.contains("<script>alert") && !html.contains("<img src=x"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test func debugExplainsEveryPlatform() {
        let r = Self.get("/?link=https%3A%2F%2Fshop.example.com%2Fitem%2F5&ifl=https%3A%2F%2Fwww.example.com%2Fi&efr=1&zz=1&d=1", Self.iPhone)
        let html = Self.body(r)
        #expect(r.response.status == 200 && r.response.header("Location") == nil)
        #expect(html.contains(#"<strong id="route">item</strong>"#))
        for id in ["visitor-ios", "visitor-ipad", "visitor-android", "visitor-desktop", "visitor-crawler", "param-link", "param-ifl", "param-efr"] {
            #expect(html.contains(#"id="\#(id)""#), "\(id)")
        }
        #expect(html.contains("forced redirect (efr=1): the link&#39;s ios fallback (ifl)"))
        #expect(html.contains(#"Ignored (not FDL parameters): <code>zz</code>"#))
    }

    @Test func theRootWithoutLinkIsNotALongLink() {
        #expect(Self.get("/?st=x", Self.iPhone).kind != .error)
        #expect(Self.get("/?linkx=https%3A%2F%2Fevil.example", Self.iPhone).response.status != 400)
    }
}
