import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// What a browser gets for a link that matched a route, and for one that did not. The landing
/// pages (module LandingPages, `LandingPageRenderer`) are the default.
/// Called concurrently on daemon threads: implementations must be immutable.
public protocol PageRenderer: Sendable {
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse
    /// A file the renderer makes itself (generated preview cards under `/static/og/`); nil: not one.
    func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse?
    /// The page of a short or long link: `match`'s page with the link's overrides.
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse
    /// A matched link's whole answer (the page, or the fallback redirect's `Location`) when the
    /// renderer makes it itself; nil: `Responder` decides the fallback and calls `page`.
    func answer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> PageAnswer?
    /// A stored short link's whole answer with its overrides, when the renderer makes it itself
    /// (once per link and variant, LinkPageCache.swift); nil: `Responder` decides with the
    /// overrides and calls `page(for:…overrides:)`. `generation`: the served link index's
    /// (`LinkIndex.generation`).
    func answer(for link: IndexedShortLink, generation: UInt64, site: CompiledSite, request: RequestFacts) -> LinkAnswer?
    /// True when every HTML page `answer` returns already carries `Responder.htmlSecurityHeaders`
    /// (the Responder then does not check its headers on every request).
    var answersCarrySecurityHeaders: Bool { get }
    /// What the User-Agent says (for the click counter): the landing renderer's bounded cache, so a
    /// request does not parse the header a second time after its page did.
    func browserFacts(userAgent: String?) -> BrowserFacts
}

/// What `PageRenderer.answer` returns.
public enum PageAnswer: Sendable {
    case page(HTTPResponse)
    /// A 302 to this URL (it depends on the User-Agent).
    case redirect(String)
}

/// What `PageRenderer.answer(for link:…)` returns: the answer and how the click counts.
public struct LinkAnswer: Sendable {
    public var answer: PageAnswer
    public var outcome: ClickOutcome
    /// The request's browser facts, when the renderer read them (the click is counted by them).
    public var browser: BrowserFacts?

    public init(answer: PageAnswer, outcome: ClickOutcome, browser: BrowserFacts? = nil) {
        self.answer = answer
        self.outcome = outcome
        self.browser = browser
    }
}

extension PageRenderer {
    /// Renderers that know no overrides serve the route's page.
    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse {
        page(for: match, site: site, request: request)
    }

    public func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse? { nil }
    public func answer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> PageAnswer? { nil }
    public func answer(for link: IndexedShortLink, generation: UInt64, site: CompiledSite, request: RequestFacts) -> LinkAnswer? { nil }
    public var answersCarrySecurityHeaders: Bool { false }
    public func browserFacts(userAgent: String?) -> BrowserFacts { BrowserFacts(userAgent: userAgent) }
}
