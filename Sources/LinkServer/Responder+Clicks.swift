import LandingPages
import LinkStore

// What the responder tells the click counter about a link request: the dimensions of the click,
// decided where the response is (`Responder.route`). Pure; the counting itself happens in the
// public handler (`ClickRecorder.record`), never in the responder.
extension ClickEvent {
    /// A link request's click: the visitor's platform (`other` without a User-Agent), in-app
    /// browser and crawler, and what the answer was.
    init(visitor: Visitor, site: String, code: String = "", route: String = "", outcome: ClickOutcome) {
        let platform: ClickPlatform
        if !visitor.hasUserAgent {
            platform = .other
        } else {
            switch visitor.browser.platform {
            case .ios: platform = .ios
            case .android: platform = .android
            case .desktop: platform = .desktop
            }
        }
        self.init(site: site, route: route, platform: platform, outcome: outcome,
                  inAppBrowser: visitor.browser.inAppBrowser != nil, crawler: visitor.browser.crawler != nil)
        self.code = code
    }
}

extension ClickOutcome {
    /// A route's answer (a route page, or a short or long link to a route): the landing page, or
    /// the fallback decision's redirect — a link's forced redirect (FDL `efr`) counts as `redirect`,
    /// a link's own fallback as `web`.
    init(decision: FallbackDecision, forcedRedirect: Bool) {
        switch decision {
        case .landing: self = .appPage
        case .redirect where forcedRedirect: self = .redirect
        case let .redirect(kind, _, _): self.init(redirect: kind)
        }
    }

    /// A fallback redirect of this kind: a store (App Store, Google Play) or the route's web page.
    init(redirect kind: FallbackDecision.RedirectKind) {
        self = kind == .web ? .web : .store
    }
}
