import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// The pages a browser gets: a matched link's landing page, the not-found page, and the files the
/// renderer makes itself. `LandingPageRenderer` (module LandingPages) is the default; the links,
/// the fallback decision and whether a page is sent at all are the landing stage's
/// (`LandingAnswerer`), whatever the renderer.
/// Called concurrently on daemon threads: implementations must be immutable.
public protocol PageRenderer: Sendable {
    /// `match`'s landing page, with a short or long link's overrides (empty for a route's own page).
    func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse
    /// The page for a link that matched nothing.
    func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse
    /// A file the renderer makes itself (generated preview cards under `/static/og/`); nil: not one.
    func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse?
}

/// A landing answer's response: the page, or a 302 to this URL (it depends on the User-Agent).
public enum PageAnswer: Sendable {
    case page(HTTPResponse)
    case redirect(String)
}

/// What the landing stage answers a matched link with, and how its click counts (from the
/// decision that made the answer).
public struct LinkAnswer: Sendable {
    public var answer: PageAnswer
    public var outcome: ClickOutcome

    public init(answer: PageAnswer, outcome: ClickOutcome) {
        self.answer = answer
        self.outcome = outcome
    }
}
