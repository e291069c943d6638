import Foundation
import LinkRouting
import Testing
@testable import LandingPages

// The next-step decision: every page offers a way on, on every platform, and never a link that
// this server would answer with its own not-found page.

enum Steps {
    static let fingerprint = String(repeating: "AB:", count: 31) + "AB"

    /// A site whose visiting `platform` has (`app`) or lacks its app; `store`: the iOS app has a
    /// numeric appStoreID (Android's store is the Play listing of its package, so it exists
    /// exactly when the Android app does); `web`: the route has a fallback.web page. The other
    /// platform's app always exists, so a platform without one can point at it.
    static func site(platform: Platform, app: Bool, store: Bool, web: Bool, website: String? = "https://www.example.com") -> SiteConfig {
        let ios = platform != .ios || app
        let android = platform != .android || app
        return SiteConfig(
            name: "shop", domains: ["shop.example.com"], website: website,
            ios: ios ? [IOSAppConfig(id: "ios", name: "Shop", teamID: "ABCDE12345", bundleID: "com.example.shop",
                                     appStoreID: store ? "123456789" : nil, schemes: ["shop"])] : nil,
            android: android ? [AndroidAppConfig(id: "android", name: "Shop", package: "com.example.shop", fingerprints: [fingerprint])] : nil,
            routes: [.route(RouteConfig(name: "item", path: "/item/{id}",
                                        fallback: web ? FallbackConfig(web: "https://web.example.com/items/{id}") : nil))],
            landing: LandingConfig(appName: "Shop"))
    }

    static func decide(_ config: SiteConfig, _ platform: Platform, url: String = "https://shop.example.com/item/42") -> NextSteps {
        let t = LP.table(config)
        let (s, m) = LP.match(t, url)
        let links = LandingLinks(table: t, site: s, match: m)
        return NextSteps.decide(platform: platform, links: links, webPage: NextSteps.webPage(table: t, site: s, match: m),
                                home: NextSteps.home(table: t, site: s))
    }

    static let cases: [(Platform, Bool, Bool, Bool)] = Platform.allCases.flatMap { p in
        [true, false].flatMap { app in [true, false].flatMap { store in [true, false].map { web in (p, app, store, web) } } }
    }
}

@Suite("LandingPages: next steps")
struct NextStepsTests {
    @Test("every platform × app × store × route web page", arguments: Steps.cases)
    func matrix(platform: Platform, app: Bool, store: Bool, web: Bool) {
        let got = Steps.decide(Steps.site(platform: platform, app: app, store: store, web: web), platform)
        let appStore = "https://apps.apple.com/app/id123456789"
        let play = "https://play.google.com/store/apps/details?id=com.example.shop&referrer=linkwell_link%3Dhttps%253A%252F%252Fshop.example.com%252Fitem%252F42"
        var expected: [NextSteps.Step] = []
        var available: [Platform] = []
        switch platform {
        case .ios:
            if app {
                expected.append(.openInApp("shop://item/42"))
                if store { expected.append(.appStore(appStore)) }
            } else {
                available = [.android]
            }
        case .android:
            if app {
                expected.append(.openInApp("intent://shop.example.com/item/42#Intent;scheme=https;package=com.example.shop;S.browser_fallback_url="
                                           + PercentEncoding.encodeComponent(play) + ";end"))
                expected.append(.playStore(play))
            } else {
                available = [.ios]
            }
        case .desktop:
            if store { expected.append(.appStore(appStore)) }
            expected.append(.playStore(play))
            available = [.ios, .android]
        }
        expected.append(web ? .web("https://web.example.com/items/42") : .home("https://www.example.com"))
        #expect(got.steps == expected)
        #expect(got.availableOn == available)
        // Never a page without a way on, and never an "Open in app" on a platform without the app.
        #expect(!got.steps.isEmpty)
        #expect(got.steps.contains { if case .openInApp = $0 { true } else { false } } == (app && platform != .desktop))
    }

    @Test("a website on a link domain with no route for its path is left out; one with a route, or elsewhere, stays", arguments: [
        ("https://shop.example.com", false), ("https://shop.example.com/", false), ("https://shop.example.com/about", false),
        ("https://shop.example.com/item/1", true), ("https://www.example.com", true), ("https://example.com/shop", true),
    ])
    func websiteLoop(website: String, kept: Bool) {
        let config = Steps.site(platform: .ios, app: false, store: false, web: false, website: website)
        let got = Steps.decide(config, .ios)
        #expect(got.steps == (kept ? [.home(website)] : []))
        let t = LP.table(config)
        let html = String(decoding: try! LandingRenderer(table: t).notFound(site: t.sites[0], browser: BrowserFacts(platform: .ios)).body, as: UTF8.self)
        #expect(html.contains("href=\"\(website)\"") == kept)
    }

    @Test("a route web page on a link domain that would 404 is left out")
    func webLoop() {
        var config = Steps.site(platform: .android, app: false, store: false, web: false)
        config.routes[0] = .route(RouteConfig(name: "item", path: "/item/{id}", fallback: FallbackConfig(web: "https://shop.example.com/web/{id}")))
        #expect(Steps.decide(config, .android).steps == [.home("https://www.example.com")])
    }

    @Test("the not-found page offers the platform's store and the home, never itself", arguments: Platform.allCases)
    func notFound(platform: Platform) {
        let t = LP.table(Steps.site(platform: platform, app: true, store: true, web: false))
        let steps = NextSteps.notFound(platform: platform, site: t.sites[0], home: NextSteps.home(table: t, site: t.sites[0]))
        let ids = steps.steps.map(\.id)
        switch platform {
        case .ios: #expect(ids == ["app-store", "home"])
        case .android: #expect(ids == ["play-store", "home"])
        case .desktop: #expect(ids == ["app-store", "play-store", "home"])
        }
        for step in steps.steps { #expect(NextSteps.reachable(step.url, table: t)) }
    }

    @Test("a platform without the app: 'available for …' and the web link on the page", arguments: [Platform.ios, .android])
    func availableLine(platform: Platform) {
        let ua = platform == .ios ? UA.iPhone : UA.android
        let html = LP.render(Steps.site(platform: platform, app: false, store: false, web: true), ua: ua)
        #expect(html.contains(platform == .ios ? "Shop is available for Android." : "Shop is available for iPhone."))
        #expect(html.contains(#"<a class="button primary web" id="web" href="https://web.example.com/items/42">"#))
        #expect(!html.contains("open-in-app"))
    }

    @Test("every shipped config: each page on each platform has a step, and no step is this server's not-found page")
    func shippedConfigs() throws {
        let root = LP.root.appendingPathComponent("config")
        let files = [root.appendingPathComponent("linkwell.json5")] + (try FileManager.default.contentsOfDirectory(
            at: root.appendingPathComponent("examples"), includingPropertiesForKeys: nil).filter { $0.pathExtension == "json5" && !$0.lastPathComponent.hasPrefix("broken") })  // broken*: on purpose
        for file in files {
            let config = try ConfigLoader.load(path: file.path).config
            let t = try RouteTable(config: config)
            for site in t.sites {
                for entry in site.routes {
                    let url = try t.build(site: site.name, route: entry.route!.name, parameters: entry.sampleParameters(), form: .https)
                    guard case let .matched(m) = t.resolve(url) else { Issue.record("\(url) does not match"); continue }
                    let links = LandingLinks(table: t, site: site, match: m)
                    for p in Platform.allCases {
                        let steps = NextSteps.decide(platform: p, links: links, webPage: NextSteps.webPage(table: t, site: site, match: m),
                                                     home: NextSteps.home(table: t, site: site))
                        #expect(!steps.steps.isEmpty, "\(file.lastPathComponent) \(site.name) \(p)")
                        for s in steps.steps { #expect(NextSteps.reachable(s.url, table: t), "\(s.url)") }
                    }
                }
                for p in Platform.allCases where site.config.notFound?.redirect == nil {
                    let steps = NextSteps.notFound(platform: p, site: site, home: NextSteps.home(table: t, site: site))
                    #expect(!steps.steps.isEmpty, "not-found \(file.lastPathComponent) \(site.name) \(p)")
                    for s in steps.steps { #expect(NextSteps.reachable(s.url, table: t), "\(s.url)") }
                }
            }
        }
    }
}
