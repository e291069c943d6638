import LinkRouting

/// What a page offers a visitor to do next, decided from what the site has — never a page
/// without a way on. In order of preference:
///
/// 1. **Open in app**, only where this platform has an app that can open the link from a page
///    (iOS: the app's custom scheme — a same-domain universal link would only reload Safari;
///    Android: Chrome's `intent://` URL). Desktops have no app.
/// 2. **The platform's store**, only when configured: the App Store needs a numeric `appStoreID`;
///    Google Play needs an Android app. A desktop gets both, beside a QR code.
/// 3. **The route's web page** (`fallback.web`, filled with the link's parameters).
/// 4. **The site's web home** (`website`) when there is no route web page.
///
/// A web target is dropped when this server would answer it with its own not-found page (a
/// `website` on one of the link domains, with no route for its path): that link would loop.
/// A platform without an app gets `availableOn` — the platforms that have one — so the page
/// can say "available on iPhone" beside the web link.
public struct NextSteps: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        case openInApp(String)
        case appStore(String)
        case playStore(String)
        /// The route's web page.
        case web(String)
        /// The site's home page.
        case home(String)

        public var url: String {
            switch self {
            case let .openInApp(u), let .appStore(u), let .playStore(u), let .web(u), let .home(u): u
            }
        }

        /// `open-in-app`, `app-store`, `play-store`, `web`, `home`: the button's id on the page.
        public var id: String {
            switch self {
            case .openInApp: "open-in-app"
            case .appStore: "app-store"
            case .playStore: "play-store"
            case .web: "web"
            case .home: "home"
            }
        }
    }

    public var steps: [Step]
    /// Set when this platform has no app: the platforms that do (for "available on iPhone").
    public var availableOn: [Platform]

    public init(steps: [Step], availableOn: [Platform] = []) {
        self.steps = steps
        self.availableOn = availableOn
    }

    /// The decision, from the link's URLs: `webPage` is the route's filled `fallback.web`, `home`
    /// the site's `website`, each already checked with `reachable`.
    public static func decide(platform: Platform, links: LandingLinks, webPage: String?, home: String?) -> NextSteps {
        var steps: [Step] = []
        var availableOn: [Platform] = []
        let hasIOS = links.iosApp != nil
        let hasAndroid = links.androidApp != nil
        switch platform {
        case .ios:
            if hasIOS {
                if let open = links.iosSchemeLink { steps.append(.openInApp(open)) }
                if let store = links.appStore { steps.append(.appStore(store)) }
            } else if hasAndroid {
                availableOn = [.android]
            }
        case .android:
            if hasAndroid {
                if let open = links.androidIntent { steps.append(.openInApp(open)) }
                if let store = links.playStore { steps.append(.playStore(store)) }
            } else if hasIOS {
                availableOn = [.ios]
            }
        case .desktop:
            if let store = links.appStore { steps.append(.appStore(store)) }
            if let store = links.playStore { steps.append(.playStore(store)) }
            availableOn = (hasIOS ? [Platform.ios] : []) + (hasAndroid ? [.android] : [])
        }
        if let webPage {
            steps.append(.web(webPage))
        } else if let home {
            steps.append(.home(home))
        }
        return NextSteps(steps: steps, availableOn: availableOn)
    }

    /// The steps of the not-found page: the stores of the site's apps for this platform and the
    /// site's home (there is no link to open in the app).
    public static func notFound(platform: Platform, site: CompiledSite, home: String?) -> NextSteps {
        let appStore = site.iosApps.lazy.compactMap { $0.appStoreID.flatMap(LandingLinks.appStore(id:)) }.first
        let playStore = site.androidApps.first.map { "https://play.google.com/store/apps/details?id=" + PercentEncoding.encodeComponent($0.package) }
        var steps: [Step] = []
        if platform != .android, let appStore { steps.append(.appStore(appStore)) }
        if platform != .ios, let playStore { steps.append(.playStore(playStore)) }
        if let home { steps.append(.home(home)) }
        var availableOn: [Platform] = []
        if platform == .ios, site.iosApps.isEmpty, !site.androidApps.isEmpty { availableOn = [.android] }
        if platform == .android, site.androidApps.isEmpty, !site.iosApps.isEmpty { availableOn = [.ios] }
        return NextSteps(steps: steps, availableOn: availableOn)
    }

    /// The route's web page for a match (`fallback.web` filled), when this server would not
    /// answer it with its not-found page.
    public static func webPage(table: RouteTable, site: CompiledSite, match: LinkMatch) -> String? {
        let fallback = FallbackDecision.effectiveFallback(site: site, route: match.route)
        guard let template = fallback.web, let url = WebTemplate.fillURL(template, parameters: match.parameters) else { return nil }
        return reachable(url, table: table) ? url : nil
    }

    /// The site's `website`, when it is an http(s) URL this server would not answer with its
    /// not-found page.
    public static func home(table: RouteTable, site: CompiledSite) -> String? {
        guard let website = site.config.website, website.lowercased().hasPrefix("http"), SafeURL(website) != nil else { return nil }
        return reachable(website, table: table) ? website : nil
    }

    /// False when this server serves `url`'s host and answers `url` with its not-found page
    /// (no route, or an exclusion, and no `notFound.redirect`): a link there would loop back.
    public static func reachable(_ url: String, table: RouteTable) -> Bool {
        switch table.resolve(url) {
        case .matched, .unknownHost, .unsupported:
            return true
        case let .noRoute(site), let .excluded(site, _, _):
            let redirect = table.site(named: site)?.config.notFound?.redirect
            guard let redirect, !redirect.isEmpty else { return false }
            return redirect != url
        }
    }
}
