import Foundation
import LinkRouting
import Testing
@testable import LandingPages

// Fallback decision, browser detection, page content, escaping and the QR code, without a socket.

enum UA {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
    static let iPad = "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36"
    static let mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
    static let iMessage = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0"
}

enum LP {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let publicDir = root.appendingPathComponent("public").path

    static func site(fallback: FallbackConfig? = nil, preview: PreviewConfig? = nil, schemes: Bool = true, appStoreID: String? = "123456789",
                     clip: String? = nil) -> SiteConfig {
        SiteConfig(
            name: "shop", domains: ["shop.example.com"], website: "https://www.example.com",
            ios: [IOSAppConfig(id: "ios", name: "Shop", teamID: "ABCDE12345", bundleID: "com.example.shop", appStoreID: appStoreID,
                               schemes: schemes ? ["shop"] : nil, appClipBundleID: clip)],
            android: [AndroidAppConfig(id: "android", name: "Shop", package: "com.example.shop",
                                       fingerprints: [String(repeating: "AB:", count: 31) + "AB"], schemes: schemes ? ["shop"] : nil)],
            routes: [
                .route(RouteConfig(name: "item", path: "/item/{id}", fallback: fallback,
                                   preview: preview ?? PreviewConfig(title: "Item {id}", description: "See item {id} in Shop.",
                                                                     image: "https://cdn.example.com/items/{id}.png"))),
                .route(RouteConfig(name: "search", path: "/search", query: ["q": QueryParamConfig(required: true)])),
            ],
            landing: LandingConfig(appName: "Shop", themeColor: "#123456"))
    }

    static func table(_ site: SiteConfig = site()) -> RouteTable { try! RouteTable(config: LinkwellConfig(sites: [site])) }

    static func match(_ table: RouteTable, _ url: String) -> (CompiledSite, LinkMatch) {
        guard case let .matched(m) = table.resolve(url) else { fatalError("no match for \(url)") }
        return (table.site(named: m.site)!, m)
    }

    static func decide(_ site: SiteConfig, _ ua: String?, url: String = "https://shop.example.com/item/42") -> FallbackDecision {
        let t = table(site)
        let (s, m) = match(t, url)
        return FallbackDecision.decide(browser: BrowserFacts(userAgent: ua), site: s, match: m, links: LandingLinks(table: t, site: s, match: m))
    }

    static func render(_ site: SiteConfig = site(), url: String = "https://shop.example.com/item/42", ua: String?) -> String {
        let t = table(site)
        let r = try! LandingRenderer(table: t)
        let (s, m) = match(t, url)
        return String(decoding: r.page(for: m, site: s, browser: BrowserFacts(userAgent: ua)).body, as: UTF8.self)
    }
}

@Suite("LandingPages: browser detection")
struct BrowserDetectionTests {
    @Test("platform from User-Agent", arguments: [
        (UA.iPhone, Platform.ios), (UA.iPad, .ios), ("Mozilla/5.0 (iPod touch; CPU iPhone OS 15_0 like Mac OS X)", .ios),
        (UA.android, .android), (UA.desktop, .desktop), (UA.mac, .desktop), ("", .desktop),
    ])
    func platform(ua: String, expected: Platform) {
        #expect(BrowserFacts(userAgent: ua).platform == expected)
        #expect(BrowserFacts(userAgent: ua).crawler == nil)
        #expect(BrowserFacts(userAgent: ua).inAppBrowser == nil)
    }

    @Test("in-app browsers", arguments: [
        (UA.iPhone + " [FBAN/FBIOS;FBAV/450.0.0.0;FBBV/1;FBDV/iPhone15,2]", "Facebook"),
        (UA.android + " [FB_IAB/FB4A;FBAV/450.0.0.0;]", "Facebook"),
        (UA.iPhone + " Instagram 330.0.0.0 (iPhone15,2; iOS 17_5; en_US)", "Instagram"),
        (UA.iPhone + " [FBAN/MessengerForiOS;FBAV/460.0]", "Messenger"),
        (UA.android + " [FB_IAB/Orca-Android;FBAV/450.0]", "Messenger"),
        (UA.iPhone + " [LinkedInApp]/9.29", "LinkedIn"),
        (UA.iPhone + " Safari Line/13.20.0", "LINE"),
        (UA.android + " MicroMessenger/8.0.47.2560(0x28002F35) WeChat/arm64", "WeChat"),
        (UA.iPhone + " musical_ly_33.5.0 JsSdk/2.0 NetType/WIFI", "TikTok"),
        (UA.android + " BytedanceWebview/d8a21c6", "TikTok"),
        (UA.iPhone + " Snapchat/12.80.0.40 (like Safari/8617.2.4.10.8)", "Snapchat"),
        (UA.iPhone + " Twitter for iPhone/10.40", "Twitter/X"),
        (UA.android + " TwitterAndroid", "Twitter/X"),
        (UA.iPhone + " GSA/320.0.648265370", "Google app"),
    ])
    func inApp(ua: String, name: String) {
        let facts = BrowserFacts(userAgent: ua)
        #expect(facts.inAppBrowser == name)
        #expect(facts.crawler == nil)
        #expect(facts.platform != .desktop)
    }

    @Test("link-preview crawlers", arguments: [
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "Facebook"),
        ("Twitterbot/1.0", "Twitter/X"), ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "Slack"),
        ("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "Discord"), ("WhatsApp/2.23.20.0 A", "WhatsApp"),
        ("TelegramBot (like TwitterBot)", "Telegram"), ("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", "LinkedIn"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1)", "Apple"),
        ("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36 (compatible; Googlebot/2.1)", "Google"),
        (UA.iMessage, "iMessage"),
    ])
    func crawler(ua: String, name: String) {
        #expect(BrowserFacts(userAgent: ua).crawler == name)
    }
}

@Suite("LandingPages: fallback decision")
struct FallbackDecisionTests {
    static let uas: [(String, Platform)] = [(UA.iPhone, .ios), (UA.android, .android), (UA.desktop, .desktop)]

    @Test("every platform × every action, route over site", arguments: Platform.allCases, FallbackAction.allCases)
    func matrix(platform: Platform, action: FallbackAction) {
        let ua = Self.uas.first { $0.1 == platform }!.0
        var f = FallbackConfig(web: "https://web.example.com/items/{id}")
        switch platform {
        case .ios: f.ios = action
        case .android: f.android = action
        case .desktop: f.desktop = action
        }
        // The route's fallback wins over the site's (which says the opposite).
        var site = LP.site(fallback: f)
        site.fallback = FallbackConfig(ios: .web, android: .web, desktop: .web, web: "https://other.example.com/")
        site.fallback?.ios = platform == .ios ? .landing : nil
        let d = LP.decide(site, ua)
        switch (platform, action) {
        case (_, .landing), (.desktop, .store):
            if case .landing = d {} else { Issue.record("expected landing, got \(d)") }
        case (.ios, .store):
            #expect(d == .redirect(.appStore, target: "https://apps.apple.com/app/id123456789", reason: d.reason))
        case (.android, .store):
            #expect(d.name == "play_store")
            #expect(d.target == "https://play.google.com/store/apps/details?id=com.example.shop&referrer=linkwell_link%3Dhttps%253A%252F%252Fshop.example.com%252Fitem%252F42")
        case (_, .web):
            #expect(d == .redirect(.web, target: "https://web.example.com/items/42", reason: d.reason))
        }
    }

    @Test("no fallback anywhere → landing on every platform; site fallback applies when the route has none")
    func defaults() {
        for (ua, _) in Self.uas { #expect(LP.decide(LP.site(), ua).name == "landing") }
        var site = LP.site()
        site.fallback = FallbackConfig(ios: .store, android: .store)
        #expect(LP.decide(site, UA.iPhone).name == "app_store")
        #expect(LP.decide(site, UA.android).name == "play_store")
        #expect(LP.decide(site, UA.desktop).name == "landing")
        #expect(LP.decide(site, nil).name == "landing")
    }

    @Test("store without an App Store id, web without a template, or a bad template → landing")
    func cannotCarryOut() {
        #expect(LP.decide(LP.site(fallback: FallbackConfig(ios: .store), appStoreID: nil), UA.iPhone).name == "landing")
        #expect(LP.decide(LP.site(fallback: FallbackConfig(ios: .store), appStoreID: "12ab"), UA.iPhone).name == "landing")
        #expect(LP.decide(LP.site(fallback: FallbackConfig(desktop: .web)), UA.desktop).name == "landing")
        #expect(LP.decide(LP.site(fallback: FallbackConfig(desktop: .web, web: "javascript:alert({id})")), UA.desktop).name == "landing")
        #expect(LP.decide(LP.site(fallback: FallbackConfig(desktop: .web, web: "https://{id}/x")), UA.desktop).name == "landing")
    }

    @Test("crawlers and in-app browsers get the page, whatever the fallback", arguments: [
        UA.iMessage, "Twitterbot/1.0", "WhatsApp/2.23.20.0 A", UA.iPhone + " Instagram 330.0", UA.android + " [FB_IAB/FB4A;FBAV/450.0.0.0;]",
        UA.iPhone + " [FBAN/FBIOS;FBAV/450.0]", "facebookexternalhit/1.1 " + UA.iPhone,
    ])
    func alwaysPage(ua: String) {
        let site = LP.site(fallback: FallbackConfig(ios: .store, android: .store, desktop: .web, web: "https://web.example.com/{id}"))
        #expect(LP.decide(site, ua).name == "landing", "\(ua)")
    }

    @Test("open-redirect attempts stay on the template's host", arguments: [
        "%2F%2Fevil.com", "@evil.com", "..%2F..%2Fevil.com", "https:%2F%2Fevil.com", "%5Cevil.com", "a%23b", "x%3Fy%3Dz",
        "%0D%0ALocation:%20https:%2F%2Fevil.com", "javascript:alert(1)", "%252F%252Fevil.com",
    ])
    func openRedirect(id: String) {
        for web in ["https://web.example.com/items/{id}", "https://web.example.com/?q={id}"] {
            let site = LP.site(fallback: FallbackConfig(ios: .web, android: .web, desktop: .web, web: web))
            for (ua, _) in Self.uas {
                let d = LP.decide(site, ua, url: "https://shop.example.com/item/\(id)")
                guard let target = d.target else { Issue.record("no redirect for \(id)"); continue }
                #expect(URLComponents(string: target)?.host == "web.example.com", "\(target)")
                #expect(URLComponents(string: target)?.scheme == "https")
                #expect(!target.contains("\r") && !target.contains("\n") && !target.contains(" "))
                #expect(target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
            }
        }
    }
}

@Suite("LandingPages: page content")
struct LandingPageContentTests {
    @Test("iOS: custom-scheme open button, App Store button, Smart App Banner, no QR")
    func ios() {
        let html = LP.render(ua: UA.iPhone)
        #expect(html.contains(#"<a class="button primary" id="open-in-app" href="shop://item/42">Open in Shop</a>"#))
        #expect(html.contains(#"id="app-store" href="https://apps.apple.com/app/id123456789""#))
        #expect(html.contains(#"<meta name="apple-itunes-app" content="app-id=123456789, app-argument=https://shop.example.com/item/42">"#))
        #expect(!html.contains("play-store"))
        #expect(!html.contains("<svg"))
    }

    @Test("iOS without a scheme: no open button (a same-domain link would only reload Safari)")
    func iosNoScheme() {
        let html = LP.render(LP.site(schemes: false), ua: UA.iPhone)
        #expect(!html.contains("open-in-app"))
        #expect(html.contains(#"<meta property="al:ios:url" content="https://shop.example.com/item/42">"#))
    }

    @Test("App Clip: banner carries the clip bundle id and card display")
    func appClip() {
        let html = LP.render(LP.site(clip: "com.example.shop.Clip"), ua: UA.iPhone)
        #expect(html.contains("app-id=123456789, app-argument=https://shop.example.com/item/42, app-clip-bundle-id=com.example.shop.Clip, app-clip-display=card"))
    }

    @Test("Android: intent:// with the encoded browser fallback, Play button with install referrer")
    func android() {
        let html = LP.render(ua: UA.android)
        // Chrome goes to browser_fallback_url when the app is not installed: the Play page with the referrer.
        let play = "https://play.google.com/store/apps/details?id=com.example.shop&referrer=linkwell_link%3Dhttps%253A%252F%252Fshop.example.com%252Fitem%252F42"
        let intent = html.firstMatch(of: /id="open-in-app" href="(intent:[^"]+)"/).map { String($0.1) }
        #expect(intent?.hasPrefix("intent://shop.example.com/item/42#Intent;scheme=https;package=com.example.shop;S.browser_fallback_url=") == true)
        #expect(intent?.hasSuffix(";end") == true)
        #expect(intent.flatMap { $0.firstMatch(of: /S\.browser_fallback_url=([^;]+);/) }.map { PercentEncoding.decode(String($0.1)) } == play)
        #expect(html.contains(#"id="play-store" href="https://play.google.com/store/apps/details?id=com.example.shop&amp;referrer=linkwell_link%3Dhttps%253A%252F%252Fshop.example.com%252Fitem%252F42""#))
        #expect(!html.contains("app-store\""))
    }

    @Test("desktop: both stores and a QR code, no open button")
    func desktop() {
        let html = LP.render(ua: UA.desktop)
        #expect(!html.contains("open-in-app"))
        #expect(html.contains(#"id="app-store""#) && html.contains(#"id="play-store""#))
        #expect(html.contains(#"<svg class="qr""#))
    }

    @Test("preview tags: Open Graph, Twitter card, App Links")
    func previewTags() {
        let html = LP.render(ua: UA.desktop)
        for tag in [
            #"<meta property="og:title" content="Item 42">"#, #"<meta property="og:description" content="See item 42 in Shop.">"#,
            #"<meta property="og:image" content="https://cdn.example.com/items/42.png">"#,
            #"<meta property="og:url" content="https://shop.example.com/item/42">"#, #"<meta property="og:type" content="website">"#,
            #"<meta property="og:site_name" content="Shop">"#, #"<meta name="twitter:card" content="summary_large_image">"#,
            #"<meta name="twitter:image" content="https://cdn.example.com/items/42.png">"#,
            #"<meta property="al:ios:url" content="shop://item/42">"#, #"<meta property="al:ios:app_store_id" content="123456789">"#,
            #"<meta property="al:ios:app_name" content="Shop">"#, #"<meta property="al:android:url" content="shop://item/42">"#,
            #"<meta property="al:android:package" content="com.example.shop">"#, #"<meta property="al:android:app_name" content="Shop">"#,
            #"<title>Item 42</title>"#, ##"<meta name="theme-color" content="#123456">"##,
        ] {
            #expect(html.contains(tag), "\(tag)")
        }
    }

    @Test("in-app browser: the open button first, then the note, then the store")
    func inApp() {
        let html = LP.render(ua: UA.iPhone + " Instagram 330.0.0.0")
        let open = html.range(of: "open-in-app")!.lowerBound
        let note = html.range(of: "id=\"in-app-note\"")!.lowerBound
        let store = html.range(of: "id=\"app-store\"")!.lowerBound
        #expect(open < note && note < store)
        #expect(html.contains("You are in Instagram’s browser."))
        #expect(!LP.render(ua: UA.iPhone).contains("in-app-note"))
    }

    @Test("not-found page: site-branded, links to the website, 404, CSP")
    func notFound() {
        let t = LP.table()
        let r = try! LandingRenderer(table: t)
        let resp = r.notFound(site: t.sites[0])
        #expect(resp.status == 404)
        #expect(resp.header("Content-Security-Policy") == LandingRenderer.contentSecurityPolicy)
        let html = String(decoding: resp.body, as: UTF8.self)
        #expect(html.contains(#"href="https://www.example.com""#))
        #expect(html.contains("Shop"))
    }

    @Test("a template that does not compile fails the build of the renderer")
    func badTemplate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-tpl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("templates/partials"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "<p>{{#a}}</p>".write(to: dir.appendingPathComponent("templates/landing.html"), atomically: true, encoding: .utf8)
        try "<p>ok</p>".write(to: dir.appendingPathComponent("templates/not-found.html"), atomically: true, encoding: .utf8)
        #expect(throws: LandingTemplateError.self) { try LandingRenderer(table: LP.table(), files: try AssetFiles.embedded.overlaid(directory: dir.path, setting: "server.publicDir")) }
        try "<script>{{x}}</script>".write(to: dir.appendingPathComponent("templates/landing.html"), atomically: true, encoding: .utf8)
        #expect(throws: LandingTemplateError.self) { try LandingRenderer(table: LP.table(), files: try AssetFiles.embedded.overlaid(directory: dir.path, setting: "server.publicDir")) }
    }

    @Test("a site's templatesDir overrides the shipped templates file by file")
    func override() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-pub-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("custom"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: LP.publicDir + "/templates", toPath: dir.appendingPathComponent("templates").path)
        defer { try? fm.removeItem(at: dir) }
        try "<!doctype html><title>{{title}}</title><p id=custom>{{appName}}</p>".write(
            to: dir.appendingPathComponent("custom/landing.html"), atomically: true, encoding: .utf8)
        var site = LP.site()
        site.landing?.templatesDir = "custom"
        let t = LP.table(site)
        let files = try AssetFiles.embedded.overlaid(directory: dir.path, setting: "server.publicDir")
        let r = try LandingRenderer(table: t, files: files)
        let (s, m) = LP.match(t, "https://shop.example.com/item/1")
        #expect(String(decoding: r.page(for: m, site: s, browser: BrowserFacts(userAgent: nil)).body, as: UTF8.self).contains("<p id=custom>Shop</p>"))
        #expect(String(decoding: r.notFound(site: s).body, as: UTF8.self).contains("This link goes nowhere"))
        site.landing?.templatesDir = "../etc"
        #expect(throws: LandingTemplateError.self) { try LandingRenderer(table: LP.table(site), files: files) }
        site.landing?.templatesDir = "missing"
        #expect(throws: LandingTemplateError.self) { try LandingRenderer(table: LP.table(site), files: files) }
    }
}

@Suite("LandingPages: XSS corpus")
struct LandingXSSTests {
    static let corpus = [
        "<script>alert(1)</script>", "\"><script>alert(1)</script>", "'><img src=x onerror=alert(1)>", "\" onmouseover=\"alert(1)",
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", "&#106;avascript:alert(1)", "java%0Ascript:alert(1)", "</title><script>x</script>",
        "<svg/onload=alert(1)>", "{{x}}", "\u{2028}<b>", "%3Cscript%3E", "\"autofocus onfocus=alert(1) x=\"", "data:text/html,<script>x</script>",
    ]
    static let forbidden = ["<script", "<img src=x", "<svg/", "<b>", "</title><"]

    /// The page with every quoted attribute value and every text run blanked: what is left is
    /// tags only (escaping turns `"`, `<` and `>` of values into references), so an
    /// event-handler attribute there would be an injected one.
    static func markup(_ html: String) -> String {
        html.replacing(/"[^"]*"/, with: "\"\"").replacing(/>[^<]*</, with: "><")
    }

    @Test("route parameters never appear unescaped in any page, header or redirect", arguments: corpus)
    func parameters(payload: String) {
        let preview = PreviewConfig(title: "{id}", description: "about {id}", image: "/img/{id}.png")
        let fallbacks: [FallbackConfig?] = [nil, FallbackConfig(ios: .store, android: .store, desktop: .web, web: "https://web.example.com/{id}?q={id}")]
        for fallback in fallbacks {
            let site = LP.site(fallback: fallback, preview: preview)
            let t = LP.table(site)
            let r = try! LandingRenderer(table: t)
            guard let url = try? t.build(site: "shop", route: "item", parameters: ["id": payload]) else {
                Issue.record("cannot build a link for \(payload)"); continue
            }
            let (s, m) = LP.match(t, url)
            #expect(m.parameters["id"] == payload)
            for ua in [UA.iPhone, UA.android, UA.desktop, UA.iMessage, UA.iPhone + " Instagram 1"] {
                let browser = BrowserFacts(userAgent: ua)
                let links = LandingLinks(table: t, site: s, match: m)
                let decision = FallbackDecision.decide(browser: browser, site: s, match: m, links: links)
                if let target = decision.target {
                    #expect(target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "\"") })
                    #expect(target.hasPrefix("https://"))
                }
                let resp = r.page(for: m, site: s, browser: browser)
                for (name, value) in resp.headers { #expect(!value.contains(payload) || payload.allSatisfy(\.isLetter), "\(name)") }
                let html = String(decoding: resp.body, as: UTF8.self)
                for bad in Self.forbidden { #expect(!html.contains(bad), "\(bad) in page for \(payload)") }
                #expect(Self.markup(html).firstMatch(of: /\son[a-z]+\s*=/) == nil, "event handler in page for \(payload)")
                #expect(html.firstMatch(of: /(?i)(href|src)="\s*(javascript|data):/) == nil)
                #expect(html.firstMatch(of: /(?i)property="(og:url|og:image|al:[a-z]+:url)" content="\s*(javascript|data):/) == nil)
                #expect(html.contains("<h1>") )
            }
        }
    }

    @Test("the payload as a path that matches no route: the not-found page carries nothing of it", arguments: corpus)
    func notFoundPath(payload: String) {
        let t = LP.table()
        let r = try! LandingRenderer(table: t)
        let html = String(decoding: r.notFound(site: t.sites[0]).body, as: UTF8.self)
        #expect(!html.contains(payload))
    }
}

@Suite("LandingPages: QR code")
struct QRCodeTests {
    @Test("a known input: version 1 (21 modules) for a short text, finder patterns in three corners")
    func known() throws {
        let qr = try #require(QRCode("https://a.co/1"))
        #expect(qr.width == 21)
        #expect(qr.modules.count == 21 * 21)
        for (ox, oy) in [(0, 0), (14, 0), (0, 14)] {
            for i in 0..<7 {
                #expect(qr.isDark(x: ox + i, y: oy) && qr.isDark(x: ox + i, y: oy + 6))
                #expect(qr.isDark(x: ox, y: oy + i) && qr.isDark(x: ox + 6, y: oy + i))
            }
            #expect(!qr.isDark(x: ox + 1, y: oy + 1))
            #expect(qr.isDark(x: ox + 3, y: oy + 3))
        }
    }

    @Test("the SVG: viewBox of width + quiet zone, one unit per module, path runs cover exactly the dark modules")
    func svg() throws {
        let text = "https://fitconnect.app/signup?referralCode=A%26B"
        let qr = try #require(QRCode(text))
        #expect(qr.width == 25 + 4 * ((qr.width - 25) / 4))
        let svg = qr.svg(label: "QR").html
        let side = qr.width + 8
        #expect(svg.contains("viewBox=\"0 0 \(side) \(side)\""))
        // Rebuild the matrix from the path.
        var grid = [Bool](repeating: false, count: side * side)
        let d = qr.svgPath
        let regex = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/
        for m in d.matches(of: regex) {
            let x = Int(m.1)!, y = Int(m.2)!, n = Int(m.3)!
            #expect(Int(m.4)! == n)
            for i in 0..<n { grid[y * side + x + i] = true }
        }
        for y in 0..<side {
            for x in 0..<side {
                let inside = (4..<(4 + qr.width)).contains(x) && (4..<(4 + qr.width)).contains(y)
                #expect(grid[y * side + x] == (inside && qr.isDark(x: x - 4, y: y - 4)))
            }
        }
        #expect(QRCode("") == nil)
    }
}
