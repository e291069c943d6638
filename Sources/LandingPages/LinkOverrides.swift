// What a short link (or an FDL long link) changes about its target route's page and decision:
// the preview, the per-platform fallbacks, a forced redirect, the campaign tags of the store
// links. Everything else — buttons, apps, language, tags — is the target route's, made by the
// same code (LandingRenderer, FallbackDecision); these only replace values along the way.

import LinkRouting

/// Per-link overrides of a target route's landing page and fallback decision. All URLs here
/// were checked before (http(s) only, hosts the site allows); the page still passes each one
/// through `SafeURL`.
public struct LinkOverrides: Sendable, Equatable {
    /// Preview title, description and image (FDL `st`, `sd`, `si`) instead of the route's.
    public var title: String?
    public var description: String?
    public var image: String?
    /// Where a browser without the app goes (FDL `ifl`, `ipfl`, `afl`, `ofl`): replaces the
    /// platform's store (or, on desktops, the web page) in the decision, the buttons and
    /// Chrome's intent fallback.
    public var iosFallback: String?
    public var ipadFallback: String?
    public var androidFallback: String?
    public var desktopFallback: String?
    /// Skip the landing page (FDL `efr=1`): browsers are redirected at once — to the platform's
    /// fallback when set, else to `redirectTarget`. Crawlers still get the page (previews).
    public var forcedRedirect: Bool
    /// Where a forced redirect goes without a platform fallback (the short link's target).
    public var redirectTarget: String?
    /// Campaign tags (`utm_source=…`, FDL's `utm_*`) put before `linkwell_link` in the Play
    /// install referrer, in this order.
    public var playReferrer: [(name: String, value: String)]
    /// App Store campaign parameters (FDL `at`, `ct`, `mt`, `pt`) added to the App Store URL.
    public var appStoreParameters: [(name: String, value: String)]
    /// A stored short link's own URL (`https://example.com/post42`): the page's canonical link and
    /// `og:url`, and the link its generated preview card is for, so crawlers show the link's
    /// preview and not the target's. nil for a long link (its target is the page's link).
    public var canonical: String? = nil

    public init(
        title: String? = nil, description: String? = nil, image: String? = nil,
        iosFallback: String? = nil, ipadFallback: String? = nil, androidFallback: String? = nil, desktopFallback: String? = nil,
        forcedRedirect: Bool = false, redirectTarget: String? = nil,
        playReferrer: [(name: String, value: String)] = [], appStoreParameters: [(name: String, value: String)] = []
    ) {
        self.title = title
        self.description = description
        self.image = image
        self.iosFallback = iosFallback
        self.ipadFallback = ipadFallback
        self.androidFallback = androidFallback
        self.desktopFallback = desktopFallback
        self.forcedRedirect = forcedRedirect
        self.redirectTarget = redirectTarget
        self.playReferrer = playReferrer
        self.appStoreParameters = appStoreParameters
    }

    public static func == (a: LinkOverrides, b: LinkOverrides) -> Bool {
        a.title == b.title && a.description == b.description && a.image == b.image && a.iosFallback == b.iosFallback
            && a.ipadFallback == b.ipadFallback && a.androidFallback == b.androidFallback && a.desktopFallback == b.desktopFallback
            && a.forcedRedirect == b.forcedRedirect && a.redirectTarget == b.redirectTarget
            && a.playReferrer.map { $0.name + "=" + $0.value } == b.playReferrer.map { $0.name + "=" + $0.value }
            && a.appStoreParameters.map { $0.name + "=" + $0.value } == b.appStoreParameters.map { $0.name + "=" + $0.value }
            && a.canonical == b.canonical
    }

    /// The fallback URL for `platform` (an iPad takes `ipadFallback`, then `iosFallback`), and
    /// the FDL parameter it came from.
    public func fallback(for platform: Platform, iPad: Bool = false) -> (url: String, parameter: String)? {
        switch platform {
        case .ios:
            if iPad, let u = ipadFallback { return (u, "ipfl") }
            return iosFallback.map { ($0, "ifl") }
        case .android: return androidFallback.map { ($0, "afl") }
        case .desktop: return desktopFallback.map { ($0, "ofl") }
        }
    }
}

extension LandingLinks {
    /// The links with the overrides' campaign tags in the store URLs and the Android fallback
    /// as Chrome's `browser_fallback_url`.
    public func overridden(by o: LinkOverrides?) -> LandingLinks {
        guard let o else { return self }
        var l = self
        if let app = androidApp, !o.playReferrer.isEmpty {
            l.playStore = Self.playStore(package: app.package, canonical: canonical, campaign: o.playReferrer)
        }
        if let store = appStore, !o.appStoreParameters.isEmpty {
            l.appStore = store + "?" + o.appStoreParameters.map { "\(PercentEncoding.encodeComponent($0.name))=\(PercentEncoding.encodeComponent($0.value))" }
                .joined(separator: "&")
        }
        if let app = androidApp, let play = l.playStore {
            l.androidIntent = Self.intent(canonical: canonical, package: app.package, fallback: o.androidFallback ?? play)
        }
        return l
    }

    /// The Play Store page with `campaign` (utm_*) before `linkwell_link` in the referrer, as
    /// Google Play's campaign attribution reads it.
    public static func playStore(package: String, canonical: String, campaign: [(name: String, value: String)]) -> String {
        let tags = campaign.map { "\(PercentEncoding.encodeComponent($0.name))=\(PercentEncoding.encodeComponent($0.value))&" }.joined()
        let referrer = tags + "linkwell_link=" + PercentEncoding.encodeComponent(canonical)
        return "https://play.google.com/store/apps/details?id=\(PercentEncoding.encodeComponent(package))&referrer=\(PercentEncoding.encodeComponent(referrer))"
    }
}

extension NextSteps {
    /// The steps with the platform's fallback in place of its store button (desktop: in place
    /// of the web page), as a web button; unchanged without a fallback for `platform`.
    public func overridden(by o: LinkOverrides?, platform: Platform, iPad: Bool = false) -> NextSteps {
        guard let fallback = o?.fallback(for: platform, iPad: iPad)?.url else { return self }
        var out: [Step] = []
        var placed = false
        for step in steps {
            let replaced: Bool = switch (platform, step) {
            case (.ios, .appStore), (.android, .playStore), (.desktop, .web), (.desktop, .home): true
            default: false
            }
            if replaced {
                if !placed { out.append(.web(fallback)) }
                placed = true
            } else {
                if !placed, case .web = step { out.append(.web(fallback)); placed = true; continue }
                if !placed, case .home = step { out.append(.web(fallback)); placed = true; continue }
                out.append(step)
            }
        }
        if !placed { out.append(.web(fallback)) }
        return NextSteps(steps: out, availableOn: availableOn)
    }
}

extension FallbackDecision {
    /// The decision for a short or long link: the target route's decision (`decide`), with the
    /// overrides' fallback in place of the store or web page it would redirect to, and a forced
    /// redirect (FDL `efr=1`) for every browser that is not a link-preview crawler.
    public static func decide(
        browser: BrowserFacts, site: CompiledSite, match: LinkMatch, links: LandingLinks, overrides: LinkOverrides?, iPad: Bool = false
    ) -> FallbackDecision {
        let base = decide(browser: browser, site: site, match: match, links: links)
        guard let o = overrides, browser.crawler == nil else { return base }
        let fallback = o.fallback(for: browser.platform, iPad: iPad)
        if o.forcedRedirect {
            if let fallback {
                return .redirect(.web, target: fallback.url, reason: "forced redirect (efr=1): the link's \(browser.platform.rawValue) fallback (\(fallback.parameter))")
            }
            if let target = o.redirectTarget {
                return .redirect(.web, target: target, reason: "forced redirect (efr=1): the link's target, no page")
            }
            return base
        }
        guard let fallback, case let .redirect(kind, _, reason) = base else { return base }
        return .redirect(.web, target: fallback.url, reason: "\(reason); the link's \(fallback.parameter) replaces the \(kind == .web ? "web page" : "store")")
    }
}
