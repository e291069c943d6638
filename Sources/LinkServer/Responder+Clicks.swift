import LandingPages
import LinkStore

// What the responder tells the click counter about a link request: the dimensions of the click,
// decided where the response is (`Responder.route`). Pure; the counting itself happens in the
// public handler (`ClickRecorder.record`), never in the responder.
extension ClickEvent {
    /// A route's answer (a route page, or a short or long link to a route): the landing page, or
    /// the fallback decision's redirect — a link's forced redirect (FDL `efr`) counts as `redirect`,
    /// a link's own fallback as `web`.
    init(decision: FallbackDecision, forcedRedirect: Bool = false, browser: BrowserFacts, userAgent: String?, site: String, route: String) {
        self.init(browser: browser, userAgent: userAgent, site: site, route: route, outcome: ClickOutcome(decision: decision, forcedRedirect: forcedRedirect))
    }

    /// A short link's own redirect, or a not-found (`outcome` .redirect / .notFound); `renderer`
    /// reads the User-Agent (from its cache).
    init(userAgent: String?, renderer: any PageRenderer, site: String, code: String = "", route: String = "", outcome: ClickOutcome) {
        self.init(browser: renderer.browserFacts(userAgent: userAgent), userAgent: userAgent, site: site, route: route, outcome: outcome)
        self.code = code
    }

    init(browser: BrowserFacts, userAgent: String?, site: String, route: String, outcome: ClickOutcome) {
        let platform: ClickPlatform
        if userAgent?.isEmpty ?? true {
            platform = .other
        } else {
            switch browser.platform {
            case .ios: platform = .ios
            case .android: platform = .android
            case .desktop: platform = .desktop
            }
        }
        self.init(site: site, route: route, platform: platform, outcome: outcome,
                  inAppBrowser: browser.inAppBrowser != nil, crawler: browser.crawler != nil)
    }
}

extension ClickOutcome {
    /// A decision's outcome (see `ClickEvent(decision:…)`).
    init(decision: FallbackDecision, forcedRedirect: Bool) {
        switch decision {
        case .landing: self = .appPage
        case .redirect where forcedRedirect: self = .redirect
        case .redirect(.web, _, _): self = .web
        case .redirect: self = .store
        }
    }

    /// A compiled page's redirect (no decision at hand): a store (the App Store or Google Play
    /// links LandingLinks builds) or the route's web page.
    init(redirectTo location: String) {
        self = location.hasPrefix("https://apps.apple.com/") || location.hasPrefix("https://play.google.com/") ? .store : .web
    }
}
