import LinkRouting
import MicroHTTP

/// What a browser gets for a link that matched a route, and for one that did not. The landing
/// pages (module LandingPages) plug in here; `MinimalPageRenderer` is the default.
/// Called concurrently on daemon threads: implementations must be immutable.
public protocol PageRenderer: Sendable {
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse
}
