// The landing stage: what a visitor gets for a matched link — a route's own, a stored short
// link's target with its overrides, or a long link's. Routes, short links and long links hand it a
// `LandingRequest`; it makes the links, the fallback decision and the page or the redirect
// (`LandingChoice`), and says how the click counts from that decision. With the shipped landing
// pages, answers are made once per variant: a route's compiled page (CompiledPages.swift), a stored
// link's prepared answer (LinkPageCache.swift); a renderer plugged in through `Snapshot(renderer:)`
// is asked for every page.

import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// A matched link to answer, and who asks.
struct LandingRequest: Sendable {
    /// The snapshot's site (a reference: the compiled site is read in place).
    var site: Site
    var match: LinkMatch
    /// A short or long link's overrides; nil for a route's own link.
    var overrides: LinkOverrides?
    /// The stored short link the request is for, and the served link index's generation (its
    /// answers are kept per variant).
    var stored: (link: IndexedShortLink, generation: UInt64)?
    var visitor: Visitor
}

/// What a short or long link leads to.
enum LinkDestination {
    /// Its target route's landing answer, with the link's overrides.
    case landing(LandingRequest)
    /// A 302 to a web page: the link's target (no route matches it) or its platform's fallback.
    case redirect(String)
    /// A long link's own page: refused (400) or explained (`d=1`, 200).
    case page(status: Int, body: [UInt8])
}

/// The one place a matched link is answered (see the top of this file). Immutable; its caches
/// belong to the snapshot. A class: the request path reaches it through the snapshot without
/// copying the route table and the renderer it holds.
final class LandingAnswerer: Sendable {
    let table: RouteTable
    let renderer: any PageRenderer
    /// The shipped landing pages (compiled per variant); nil for a renderer plugged in by a caller.
    let shipped: LandingPageRenderer?
    /// The snapshot's per-header facts and per-variant answers (the shipped renderer's own).
    let cache: CompiledPageCache

    init(table: RouteTable, renderer: any PageRenderer) {
        self.table = table
        self.renderer = renderer
        shipped = renderer as? LandingPageRenderer
        cache = shipped?.compiled ?? CompiledPageCache()
        pagesCarrySecurityHeaders = shipped != nil
    }

    /// The shipped pages carry `Responder.htmlSecurityHeaders` already (`LandingRenderer.pageHeaders`).
    let pagesCarrySecurityHeaders: Bool

    /// The request's visitor on `site`, from the snapshot's caches.
    func visitor(site: Site, facts: RequestFacts) -> Visitor {
        visitor(site: site, userAgent: facts.userAgent, acceptLanguage: facts.acceptLanguage)
    }

    /// The visitor from the (capped) `User-Agent` and `Accept-Language`.
    func visitor(site: Site, userAgent agent: String?, acceptLanguage: String?) -> Visitor {
        let userAgent = cache.userAgent(agent)
        return Visitor(browser: userAgent.browser, isIPad: userAgent.isIPad, hasUserAgent: !(agent?.isEmpty ?? true),
                       acceptLanguage: acceptLanguage,
                       catalog: shipped?.locale(site: site.compiled, browser: userAgent.browser, acceptLanguage: acceptLanguage))
    }

    /// The answer: the route's compiled one when the link overrides nothing, a stored link's kept
    /// one, else made now.
    func answer(_ request: LandingRequest, facts: RequestFacts) -> LinkAnswer {
        if Responder.overridesNothing(request.overrides) {
            if let catalog = request.visitor.catalog,
               let compiled = compiled(site: request.site, match: request.match, browser: request.visitor.browser, catalog: catalog) { return compiled }
        } else if let stored = request.stored, let shipped, let catalog = request.visitor.catalog {
            let browser = request.visitor.browser
            let key = LinkPageCache.Key(site: request.site.compiled.index, code: stored.link.link.code, platform: browser.platform, crawler: browser.crawler != nil,
                                        inAppBrowser: browser.crawler == nil ? browser.inAppBrowser : nil, locale: catalog.tag,
                                        iPad: request.visitor.isIPad)
            return shipped.compiled.links.answer(key, link: stored.link, generation: stored.generation) { make(request, facts: facts, prepared: true) }
        }
        return make(request, facts: facts, prepared: false)
    }

    /// The not-found page with `LandingRenderer.missHeader` (the shipped one: prepared once per
    /// site, platform and language, and carrying the header already — not searched per request).
    func notFound(site: Site, visitor: Visitor, facts: RequestFacts) -> HTTPResponse {
        guard let shipped, let catalog = visitor.catalog else { return Responder.marked(renderer.notFound(site: site.compiled, request: facts)) }
        return shipped.notFound(site: site.compiled, platform: visitor.browser.platform, catalog: catalog)
    }

    /// The route's compiled page or redirect; nil: not the shipped pages, or a variant or value the
    /// compiled page does not cover. A link asked for twice in a row on a page is sent as the
    /// page's kept response from then on (`CompiledPageCache.Page.keep`). The request's parts
    /// come as arguments, read in place (no copy of the request or of the compiled site).
    private func compiled(site: Site, match: LinkMatch, browser: BrowserFacts, catalog: StringCatalog) -> LinkAnswer? {
        guard let shipped else { return nil }
        let page = shipped.compiledPage(for: match, site: site.compiled, browser: browser, catalog: catalog)
        if let kept = page.kept(match.parameters) {
            return LinkAnswer(answer: .page(.prepared(kept)), outcome: .appPage)
        }
        // The renderer's parts, not a copy of the whole renderer.
        guard let made = page.compiled?.answer(match: match, site: site.compiled, display: shipped.landing.parameterDisplay,
                                               qrCode: shipped.landing.qrCode, previewCard: shipped.landing.previewCard, locale: catalog.tag,
                                               byReference: true)
        else { return nil }
        switch made {
        case let .spans(literal, written, spans):
            // The literal is sent in place; only the parameters' bytes were written.
            let body = SpanBody(constant: literal, written: written, spans: spans)
            let headers = LandingRenderer.pageHeaders(for: site.compiled)
            if let kept = page.keep(match.parameters, bytes: body.count, budget: cache.kept, make: {
                PreparedResponse(status: 200, headers: headers, body: body.bytes)
            }) {
                return LinkAnswer(answer: .page(.prepared(kept)), outcome: .appPage)
            }
            return LinkAnswer(answer: .page(.spans(status: 200, headers: headers, body: body)), outcome: .appPage)
        case let .page(body):
            return LinkAnswer(answer: .page(LandingPageRenderer.compiledPage(body, site: site.compiled)), outcome: .appPage)
        case let .redirect(location):
            return LinkAnswer(answer: .redirect(location), outcome: ClickOutcome(redirect: page.compiled?.redirectKind ?? .web))
        }
    }

    /// Links, decision, page or redirect, now. `prepared`: the page is kept and sent many times.
    private func make(_ request: LandingRequest, facts: RequestFacts, prepared: Bool) -> LinkAnswer {
        let visitor = request.visitor
        let choice = LandingChoice(table: table, site: request.site.compiled, match: request.match, overrides: request.overrides,
                                   browser: visitor.browser, iPad: visitor.isIPad)
        let outcome = ClickOutcome(decision: choice.decision, forcedRedirect: request.overrides?.forcedRedirect ?? false)
        if case let .redirect(_, location, _) = choice.decision { return LinkAnswer(answer: .redirect(location), outcome: outcome) }
        guard let shipped else {
            let page = renderer.page(for: request.match, site: request.site.compiled, request: facts, overrides: request.overrides ?? Responder.noOverrides)
            return LinkAnswer(answer: .page(page), outcome: outcome)
        }
        let page = shipped.landing.page(for: request.match, site: request.site.compiled, browser: visitor.browser, acceptLanguage: visitor.acceptLanguage,
                                        overrides: request.overrides, iPad: visitor.isIPad)
        let response: HTTPResponse = prepared
            ? .prepared(PreparedResponse(status: page.status, headers: page.headers, body: page.body))
            : .dynamic(status: page.status, headers: page.headers, body: page.body)
        return LinkAnswer(answer: .page(response), outcome: outcome)
    }
}
