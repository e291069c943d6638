// What the association files claim for a site's short links (`shortLinks.openApp`), written as
// entries of the site's own route list so that one derivation (the component plan, both
// generators, the invariant check, the manifest) serves routes and short links alike:
//
// - under a prefix (`/l/`): a route `/l/{code}` after the site's own entries;
// - on a link domain (`linkDomain: true`): exclusions for the association files and the static
//   assets, then a route `/{path*}` that takes every other path.
//
// The entries are appended after the site's own, so a route or an exclusion of the config keeps
// its priority, as the server answers a route before a short link. The server itself never
// resolves through these entries: only the association files and their checks see them.

extension ShortLinksConfig {
    /// True when the association files claim the short links (`openApp`).
    public var claimsShortLinks: Bool { openApp == true }

    /// True when the association files claim the whole domain (`openApp` on a `linkDomain`).
    public var claimsWholeDomain: Bool { openApp == true && linkDomain == true }

    /// The route name the claimed short links go by in the association files and in checks.
    public static let claimRouteName = "(short links)"

    /// Paths a link domain serves itself and never claims: the association files (and
    /// `/.well-known/linkwell/…`), and the static assets of the landing pages (`/static/…`: CSS,
    /// icons, preview cards). (`/robots.txt` and the favicons are only ever fetched, never tapped.)
    public static let linkDomainReservedPaths = ["/.well-known/*", "/apple-app-site-association/*", "/static/*"]

    /// The entries the association files add for the short links, after the site's own; empty
    /// when the site does not claim them.
    public var claimEntries: [RouteEntry] {
        guard claimsShortLinks else { return [] }
        if linkDomain == true {
            let reserved = Self.linkDomainReservedPaths.map {
                RouteEntry.exclusion(ExclusionConfig(exclude: $0, comment: "link domain: served by Linkwell itself, not a link"))
            }
            return reserved + [.route(RouteConfig(name: Self.claimRouteName, path: "/{path*}", comment: "link domain: every other path is a link"))]
        }
        return [.route(RouteConfig(name: Self.claimRouteName, path: effectivePrefix + "{code}", comment: "short links under \(effectivePrefix)"))]
    }
}

extension SiteConfig {
    /// The site as its association files see it: its routes, then the short-link claims
    /// (``ShortLinksConfig/claimEntries``); nil when it claims no short links.
    public var claimingShortLinks: SiteConfig? {
        guard let extra = shortLinks?.claimEntries, !extra.isEmpty else { return nil }
        var site = self
        site.routes += extra
        return site
    }
}

extension RouteTable {
    /// `site` compiled with its short-link claims (what the association files are generated
    /// from and checked against), or `site` itself when it claims none. Same index, name and apps.
    public static func claimsSite(for site: CompiledSite) -> CompiledSite {
        guard let claiming = site.config.claimingShortLinks else { return site }
        var diagnostics: [Diagnostic] = []
        let compiled = compile(site: claiming, index: site.index, diagnostics: &diagnostics)
        // The added patterns always compile; a failure would leave the site as it is.
        return diagnostics.isEmpty ? compiled : site
    }
}
