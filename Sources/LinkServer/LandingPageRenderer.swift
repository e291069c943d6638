import Foundation
import LandingPages
import LinkRouting
import Synchronization
import MicroHTTP

/// QR SVGs by URL, shared by a snapshot's requests, bounded by bytes (URL and SVG together):
/// when a new entry would pass `byteBudget`, the cache is emptied first. An SVG larger than
/// `largestEntry` (a 2 KB link makes a ~100 KB code) is never kept. A reload builds a new cache
/// with the new snapshot; the old one goes with the old snapshot.
final class QRCodeCache: Sendable {
    /// The URL and the label as given (nil: the default): hashed as they are, no key string made.
    struct Key: Hashable, Sendable {
        let url: String
        let label: String?
    }
    private let entries: BoundedCache<Key, TrustedHTML>
    var byteBudget: Int { entries.byteBudget }
    var largestEntry: Int { entries.largestEntry }
    static let defaultByteBudget = 4 * 1024 * 1024

    init(byteBudget: Int = QRCodeCache.defaultByteBudget) {
        entries = BoundedCache(byteBudget: byteBudget, largestEntry: byteBudget / 64, whenFull: .empty) { key, svg in
            key.url.utf8.count + (key.label?.utf8.count ?? 0) + svg.html.utf8.count
        }
    }

    /// The SVG of `url`'s code with the accessible name `label` (default: English).
    func svg(_ url: String, label: String? = nil) -> TrustedHTML? {
        let key = Key(url: url, label: label)
        if let hit = entries.cached(key) { return hit }
        guard let made = LandingRenderer.makeQRCode(url, label: label ?? "QR code for \(url)") else { return nil }
        entries.keep(key, made)
        return made
    }

    /// Bytes held now (URLs and SVGs).
    var bytes: Int { entries.bytes }
}

/// Generated preview cards of a snapshot: the URL of a card (its SVG's content hash, plus the
/// link and language that rebuild it after a restart or on another instance) and the PNGs,
/// rendered at most once per distinct card while cached, within a byte budget.
final class PreviewCardCache: Sendable {
    /// PNGs by hash, emptied when a new one would pass the budget (one larger than the budget is
    /// kept alone).
    private let pngs: BoundedCache<String, ConditionalResponse>
    /// Card URL by link and language (a snapshot's cards are a function of the two).
    private let paths = BoundedCache<PathKey, String>(capacity: PreviewCardCache.pathCapacity, whenFull: .empty)
    /// The link and the language, hashed as they are (no key string made per page).
    struct PathKey: Hashable, Sendable {
        let link: String
        let locale: String
    }
    /// Renders one at a time (and never the same card twice while it is cached).
    private let rendering = Locked<Void>(())
    var budgetBytes: Int { pngs.byteBudget }
    static let defaultBudgetBytes = 32 * 1024 * 1024
    static let pathCapacity = 8192
    static let cacheControl = "public, max-age=31536000, immutable"

    init(budgetBytes: Int = PreviewCardCache.defaultBudgetBytes) {
        pngs = BoundedCache(byteBudget: budgetBytes, whenFull: .empty) { _, png in png.ok.bodyCount }
    }

    var cachedBytes: Int { pngs.bytes }
    var cachedCount: Int { pngs.count }

    /// `/static/og/<hash>.png?l=<path and query of the link>&hl=<language>`.
    func path(for card: PreviewCard, make: (PreviewCard) -> String) -> String {
        paths.value(PathKey(link: card.link, locale: card.locale)) { make(card) }
    }

    enum Outcome {
        case card(ConditionalResponse)
        /// The URL does not make this card (stale or forged), or librsvg failed.
        case none
        /// Another card is being drawn; drawing never queues a request thread behind another.
        case busy
    }

    /// The PNG for `hash`, rendering `svg` when it is not cached: one render at a time, and a
    /// request that would wait for another card's render is told to come back instead (a flood
    /// of distinct card URLs costs at most one core and never blocks the page threads).
    func png(hash: String, svg: () -> String?) -> Outcome {
        if let hit = pngs.cached(hash) { return .card(hit) }
        let drawn = rendering.withLockIfAvailable { _ -> Outcome in
            if let hit = pngs.cached(hash) { return .card(hit) }
            guard let source = svg(), BrandStylesheet.hash(Array(source.utf8)) == hash,
                  case let .success(png) = PreviewCardRenderer.png(svg: source) else { return .none }
            let response = ConditionalResponse(body: png, contentType: "image/png", cacheControl: Self.cacheControl)
            pngs.keep(hash, response)
            return .card(response)
        }
        return drawn ?? .busy
    }
}

/// The default `PageRenderer`: the landing pages of module LandingPages (templates from the
/// snapshot's `public/templates`, compiled once per snapshot).
/// A class: the landing stage reaches its caches and templates without copying them.
public final class LandingPageRenderer: PageRenderer {
    public let landing: LandingRenderer
    let cards: PreviewCardCache
    /// Compiled pages and the per-header facts they are chosen by (PageCache.swift).
    let compiled = CompiledPageCache()

    public init(table: RouteTable, files: AssetFiles, cardBudgetBytes: Int = 32 * 1024 * 1024) throws(LandingTemplateError) {
        var renderer = try LandingRenderer(table: table, files: files)
        let cache = QRCodeCache()
        renderer.qrCode = { cache.svg($0, label: $1) }
        let cards = PreviewCardCache(budgetBytes: cardBudgetBytes)
        let base = renderer
        renderer.previewCard = { card in cards.path(for: card, make: base.previewCardPath) }
        landing = renderer
        self.cards = cards
    }

    /// `/static/og/<hash>.png?l=…&hl=…`: the card of the link `l` in language `hl`, when it
    /// still hashes to `<hash>`; else 404.
    public func asset(path: Substring, site: CompiledSite, request: RequestFacts) -> HTTPResponse? {
        let (link, locale) = Self.cardQuery(request.rawQuery)
        let table = landing.table
        return card(path: path, request: request) {
            guard let link, link.hasPrefix("/"),
                  case let .matched(match) = table.resolve(site: site, path: String(link.prefix { $0 != "?" }),
                                                           query: link.firstIndex(of: "?").map { String(link[link.index(after: $0)...]) }, fragment: nil)
            else { return nil }
            return landing.svg(landing.card(for: match, site: site, locale: locale))
        }
    }

    /// A card image's `l` (the link's path and query) and `hl` (its language) parameters.
    static func cardQuery(_ query: Substring?) -> (link: String?, locale: String) {
        var link: String?
        var locale = "en"
        for pair in (query ?? "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let value = PercentEncoding.decode(String(kv[1]))
            if kv[0] == "l" { link = value } else if kv[0] == "hl" { locale = value }
        }
        return (link, locale)
    }

    /// The PNG of `/static/og/<hash>.png`, drawn from `svg` (which must hash to the name) once.
    func card(path: Substring, request: RequestFacts, svg: () -> String?) -> HTTPResponse? {
        let name = path.dropFirst("/static/og/".count)
        guard name.hasSuffix(".png") else { return nil }
        let hash = String(name.dropLast(4))
        guard hash.utf8.count == 16, hash.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        let response = cards.png(hash: hash, svg: svg)
        switch response {
        case let .card(card):
            return card.respond(ifNoneMatch: request.ifNoneMatch)
        case .none:
            return .dynamic(status: 404, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
                            body: Array("No such preview card: the link changed since the page was made, or the URL was edited.\n".utf8))
        case .busy:
            return .dynamic(status: 503, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store"), ("Retry-After", "1")],
                            body: Array("Another preview card is being drawn; try again in a second.\n".utf8))
        }
    }

    /// The route's own page, rendered (the compiled one is `answer(for:site:request:)`'s).
    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        Self.http(landing.page(for: match, site: site, browser: compiled.browser(request.userAgent), acceptLanguage: request.acceptLanguage))
    }

    public func page(for match: LinkMatch, site: CompiledSite, request: RequestFacts, overrides: LinkOverrides) -> HTTPResponse {
        let userAgent = compiled.userAgent(request.userAgent)
        return Self.http(landing.page(for: match, site: site, browser: userAgent.browser, acceptLanguage: request.acceptLanguage,
                                      overrides: overrides, iPad: userAgent.isIPad))
    }

    /// The route's compiled page or redirect for this request; nil: a variant or a value the
    /// compiled page does not cover (the landing stage renders it).
    public func answer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> PageAnswer? {
        switch compiledAnswer(for: match, site: site, request: request) {
        case let .page(body)?: .page(Self.compiledPage(body, site: site))
        case let .spans(literal, written, spans)?:
            .page(.spans(status: 200, headers: LandingRenderer.pageHeaders(for: site), body: SpanBody(constant: literal, written: written, spans: spans)))
        case let .redirect(location)?: .redirect(location)
        case nil: nil
        }
    }

    /// A compiled page's response (`LandingRenderer.pageHeaders(for:)` carry the security headers).
    static func compiledPage(_ body: [UInt8], site: CompiledSite) -> HTTPResponse {
        .dynamic(status: 200, headers: LandingRenderer.pageHeaders(for: site), body: body)
    }

    /// `LandingRenderer.pageHeaders` include them.
    public var answersCarrySecurityHeaders: Bool { true }

    /// One prepared response per site, platform and language.
    public func notFound(site: CompiledSite, request: RequestFacts) -> HTTPResponse {
        let browser = compiled.browser(request.userAgent)
        return notFound(site: site, platform: browser.platform, catalog: locale(site: site, browser: browser, acceptLanguage: request.acceptLanguage))
    }

    func notFound(site: CompiledSite, platform: Platform, catalog: StringCatalog) -> HTTPResponse {
        let key = CompiledPageCache.NotFoundKey(site: site.index, platform: platform, locale: catalog.tag)
        return .prepared(compiled.notFound.value(key) {
            let page = landing.notFound(site: site, platform: platform, catalog: catalog)
            return PreparedResponse(status: page.status, headers: page.headers, body: page.body)
        })
    }

    static func http(_ r: LandingResponse) -> HTTPResponse {
        .dynamic(status: r.status, headers: r.headers, body: r.body)
    }
}
