import LinkRouting

/// What a browser gets for a link that matched a route but reached the browser instead of the app.
public enum FallbackDecision: Sendable, Equatable {
    /// The landing page: open-in-app button, store buttons, Smart App Banner, preview tags.
    case landing(reason: String)
    /// A 302 to the App Store, the Play Store or the route's web page; `target` is always an
    /// http(s) URL built from the config.
    case redirect(RedirectKind, target: String, reason: String)

    public enum RedirectKind: String, Sendable, Equatable {
        case appStore = "app_store"
        case playStore = "play_store"
        case web
    }

    public var reason: String {
        switch self {
        case let .landing(reason), let .redirect(_, _, reason): reason
        }
    }

    public var target: String? {
        if case let .redirect(_, target, _) = self { return target }
        return nil
    }

    /// Short name for logs and `linkwell check`: `landing`, `app_store`, `play_store`, `web`.
    public var name: String {
        switch self {
        case .landing: "landing"
        case let .redirect(kind, _, _): kind.rawValue
        }
    }

    /// The route's `fallback`, key by key over the site's.
    public static func effectiveFallback(site: CompiledSite, route: String) -> FallbackConfig {
        let own = site.entry(named: route)?.route?.fallback
        let base = site.config.fallback
        return FallbackConfig(
            ios: own?.ios ?? base?.ios, android: own?.android ?? base?.android,
            desktop: own?.desktop ?? base?.desktop, web: own?.web ?? base?.web)
    }

    /// Decides. Crawlers always get the page (previews need its tags); in-app browsers get the
    /// page with "Open in app" first (links there often do not open the app, and a store
    /// redirect inside them strands the user); otherwise the platform's `fallback` action
    /// (default `landing`), falling back to the page when the action cannot be carried out.
    public static func decide(browser: BrowserFacts, site: CompiledSite, match: LinkMatch, links: LandingLinks) -> FallbackDecision {
        if let crawler = browser.crawler {
            return .landing(reason: "link-preview crawler (\(crawler)): the page with preview tags, never a redirect")
        }
        if let app = browser.inAppBrowser {
            return .landing(reason: "\(app) in-app browser: links there often do not open the app, so the page offers 'Open in app' first")
        }
        let fallback = effectiveFallback(site: site, route: match.route)
        let key = browser.platform.rawValue
        let action: FallbackAction?
        switch browser.platform {
        case .ios: action = fallback.ios
        case .android: action = fallback.android
        case .desktop: action = fallback.desktop
        }
        let source = action.map { "fallback.\(key) = \($0.rawValue)" } ?? "no fallback.\(key) set (default: landing)"
        switch action ?? .landing {
        case .landing:
            return .landing(reason: "\(key) browser, \(source)")
        case .store:
            switch browser.platform {
            case .ios:
                if let target = links.appStore {
                    return .redirect(.appStore, target: target, reason: "iOS browser, \(source): the App Store page of \(links.iosApp?.reference ?? "the app")")
                }
                return .landing(reason: "iOS browser, \(source), but no iOS app of this route has a numeric appStoreID: landing page")
            case .android:
                if let target = links.playStore {
                    return .redirect(.playStore, target: target, reason: "Android browser, \(source): the Play Store page of \(links.androidApp?.package ?? "the app") with an install referrer")
                }
                return .landing(reason: "Android browser, \(source), but no Android app opens this route: landing page")
            case .desktop:
                return .landing(reason: "desktop browser, \(source), but desktops have no app store: landing page")
            }
        case .web:
            if let template = fallback.web, let target = WebTemplate.fillURL(template, parameters: match.parameters) {
                return .redirect(.web, target: target, reason: "\(key) browser, \(source): the route's web page")
            }
            return .landing(reason: "\(key) browser, \(source), but fallback.web is missing or not an http(s) template: landing page")
        }
    }
}
