import LandingPages
import LinkRouting
import MicroHTTP

/// What a browser gets for a link that matched a route, and for one that did not. The landing
/// pages (module LandingPages, `LandingPageRenderer`) are the default; `MinimalPageRenderer` is a bare
/// alternative a caller can pass to `Snapshot` (nothing uses it by default any more).
/// Called concurrently on daemon threads: implementations must be immutable.
public protocol PageRenderer: Sendable {
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse
    /// A file the renderer makes itself (generated preview cards under `/static/og/`); nil: not one.
    func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse?
    /// The page of a short or long link: `match`'s page with the link's overrides.
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse
}

extension PageRenderer {
    /// Renderers that know no overrides serve the route's page.
    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse {
        page(for: match, site: site, request: request)
    }

    public func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse? { nil }
}
