import LinkRouting

/// What a visitor gets for a matched link: the links the page and the redirects are made of
/// (with a short or long link's overrides) and the fallback decision. The one place both are
/// made, for route pages, stored links, long links, compiled pages and the `d=1` explanation.
public struct LandingChoice: Sendable {
    public let links: LandingLinks
    public let decision: FallbackDecision

    /// - Parameters:
    ///   - overrides: a short or long link's; nil for a route's own page.
    ///   - iPad: the browser is an iPad (only a link's `ipfl` tells iPads apart).
    public init(table: RouteTable, site: CompiledSite, match: LinkMatch, overrides: LinkOverrides?, browser: BrowserFacts, iPad: Bool) {
        links = LandingLinks(table: table, site: site, match: match).overridden(by: overrides)
        decision = FallbackDecision.decide(browser: browser, site: site, match: match, links: links, overrides: overrides, iPad: iPad)
    }
}
