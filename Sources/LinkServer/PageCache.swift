import LandingPages
import LinkRouting
import MicroHTTP

/// A dictionary behind a lock that stops growing at `capacity` entries: past it, new keys are
/// computed every time (as they were before there was a cache), so a flood of distinct keys costs
/// what it cost without one and never memory.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries: Locked<[Key: Value]>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        self.entries = Locked([:])
    }

    func value(_ key: Key, make: () -> Value) -> Value {
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let made = make()
        entries.withLock { entries in
            if entries.count < capacity, entries[key] == nil { entries[key] = made }
        }
        return made
    }

    var count: Int { entries.withLock { $0.count } }
}

/// What `LandingPageRenderer` keeps per snapshot so a request renders nothing: the browser facts
/// of each User-Agent, the language of each Accept-Language, the compiled page of each route
/// variant and the not-found page of each site variant (prepared once, sent as is).
final class CompiledPageCache: Sendable {
    struct LocaleKey: Hashable, Sendable {
        var site: Int
        /// nil for crawlers (they get the site's default language).
        var acceptLanguage: String?
    }

    struct NotFoundKey: Hashable, Sendable {
        var site: Int
        var platform: Platform
        var locale: String
    }

    /// A variant that could not be compiled is remembered as such (rendered the slow way).
    struct Page: Sendable {
        var compiled: CompiledLandingPage?
    }

    let browsers = BoundedCache<String, BrowserFacts>(capacity: 4096)
    let locales = BoundedCache<LocaleKey, StringCatalog>(capacity: 4096)
    let pages = BoundedCache<PageVariant, Page>(capacity: 1024)
    let notFound = BoundedCache<NotFoundKey, PreparedResponse>(capacity: 1024)
    /// Short links with overrides, per link and variant (LinkPageCache.swift).
    let links = LinkPageCache()

    func browser(_ userAgent: String?) -> BrowserFacts {
        guard let userAgent, !userAgent.isEmpty else { return Self.noUserAgent }
        return browsers.value(userAgent) { BrowserFacts(userAgent: userAgent) }
    }

    static let noUserAgent = BrowserFacts(userAgent: nil)
}

extension LandingPageRenderer {
    /// The User-Agent's facts from the per-snapshot cache the compiled pages read too.
    public func browserFacts(userAgent: String?) -> BrowserFacts { compiled.browser(userAgent) }

    /// The compiled answer for a matched link; nil: the caller renders it the slow way.
    func compiledAnswer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> CompiledLandingPage.Outcome? {
        let browser = compiled.browser(request.userAgent)
        let catalog = locale(site: site, browser: browser, acceptLanguage: request.acceptLanguage)
        let variant = PageVariant(match: match, site: site, browser: browser, locale: catalog.tag)
        let page = compiled.pages.value(variant) {
            CompiledPageCache.Page(compiled: landing.compilePage(match: match, site: site, browser: browser, catalog: catalog))
        }
        return page.compiled?.answer(match: match, site: site, renderer: landing, locale: catalog.tag)
    }

    func locale(site: CompiledSite, browser: BrowserFacts, acceptLanguage: String?) -> StringCatalog {
        let key = CompiledPageCache.LocaleKey(site: site.index, acceptLanguage: browser.crawler == nil ? acceptLanguage : nil)
        return compiled.locales.value(key) { landing.locale(site: site, browser: browser, acceptLanguage: acceptLanguage) }
    }
}
