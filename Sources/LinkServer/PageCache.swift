import LandingPages
import LinkRouting
import MicroHTTP
import Synchronization

/// A request header as a cache key: a hash of its value (SipHash, seeded at random in every
/// process, so a client cannot make two values collide on purpose), never the value itself — an
/// entry's size does not depend on what the client sent. The value is `RequestFacts`' capped one
/// (its first `RequestFacts.headerValueBytes` bytes), the same the cached result is made from.
struct HeaderKey: Hashable, Sendable {
    let hash: Int

    init(_ value: String) {
        var hasher = Hasher()
        hasher.combine(value)
        hash = hasher.finalize()
    }
}

extension BrowserFacts {
    /// The heap a value holds beyond its inline size (its names come from fixed tables; counted anyway).
    var heapBytes: Int { (inAppBrowser?.utf8.count ?? 0) + (crawler?.utf8.count ?? 0) }
}

/// What a User-Agent says, read once per distinct header per snapshot.
struct UserAgentFacts: Sendable {
    var browser: BrowserFacts
    var isIPad: Bool

    init(_ userAgent: String?) {
        browser = BrowserFacts(userAgent: userAgent)
        // The one place an iPad is told apart (a link's `ipfl`).
        isIPad = userAgent?.contains("iPad") ?? false
    }
}

/// What the landing stage keeps per snapshot so a request renders nothing: the facts of each
/// User-Agent, the language of each Accept-Language, the compiled page of each route variant, the
/// not-found page of each site variant (prepared once, sent as is) and the answers of stored
/// links with overrides.
final class CompiledPageCache: Sendable {
    struct LocaleKey: Hashable, Sendable {
        var site: Int
        /// nil for crawlers (they get the site's default language).
        var acceptLanguage: HeaderKey?
    }

    struct NotFoundKey: Hashable, Sendable {
        var site: Int
        var platform: Platform
        var locale: String
    }

    /// A variant that could not be compiled is remembered as such (rendered the slow way). A
    /// class: a lookup hands out a reference, not a copy of the compiled page.
    final class Page: Sendable {
        let compiled: CompiledLandingPage?
        /// The parameters of the last link this page answered, and once the same link came
        /// again, its whole response: a link shared widely is asked for many times in a row, and
        /// its later requests write no slot and add no header (libmicrohttpd cannot share a
        /// header list between responses, so a response made per request adds each header again).
        private let last = Mutex<Last?>(nil)

        struct Last {
            var parameters: [String: String]
            var response: PreparedResponse?
        }

        init(compiled: CompiledLandingPage?) {
            self.compiled = compiled
        }

        /// The kept response of the link with `parameters`, if it is the page's last one.
        func kept(_ parameters: [String: String]) -> PreparedResponse? {
            last.withLock { last in
                guard let last, let response = last.response, last.parameters == parameters else { return nil }
                return response
            }
        }

        /// Notes `parameters` as the page's last link (answered with `bytes` body bytes). When it
        /// was the last one already, makes its response with `make` and keeps it while `budget`
        /// has room (the snapshot's pages together), else nil: send the one made per request.
        func keep(_ parameters: [String: String], bytes: Int, budget: KeptBudget, make: () -> PreparedResponse) -> PreparedResponse? {
            let again = last.withLock { last -> Bool in
                if let kept = last, kept.parameters == parameters { return kept.response == nil }
                if let dropped = last?.response { budget.release(dropped.bodyCount) }
                last = Last(parameters: parameters, response: nil)
                return false
            }
            guard again, budget.take(bytes) else { return nil }
            let response = make()
            let kept = last.withLock { last -> Bool in
                guard let current = last, current.parameters == parameters, current.response == nil else { return false }
                last?.response = response
                return true
            }
            if !kept { budget.release(bytes) }
            return response
        }
    }

    /// Bytes the pages' kept responses may hold together (`Page.keep`): a snapshot has at most
    /// 1,024 compiled pages, and a page over the rest of the budget is sent as made per request.
    final class KeptBudget: Sendable {
        static let defaultBytes = 8 * 1024 * 1024
        let limit: Int
        private let used = Atomic<Int>(0)

        init(limit: Int = KeptBudget.defaultBytes) {
            self.limit = limit
        }

        var bytes: Int { used.load(ordering: .relaxed) }

        func take(_ bytes: Int) -> Bool {
            var now = used.load(ordering: .relaxed)
            while now + bytes <= limit {
                let (exchanged, original) = used.compareExchange(expected: now, desired: now + bytes, ordering: .relaxed)
                if exchanged { return true }
                now = original
            }
            return false
        }

        func release(_ bytes: Int) {
            used.subtract(bytes, ordering: .relaxed)
        }
    }

    /// Bytes each header-keyed cache may hold: ~4,000 distinct User-Agents or Accept-Languages,
    /// whatever their length.
    static let headerCacheBytes = 512 * 1024
    let browsers = BoundedCache<HeaderKey, UserAgentFacts>(byteBudget: CompiledPageCache.headerCacheBytes, heapBytes: { $0.browser.heapBytes })
    /// The catalogs are the renderer's (shared storage): an entry holds a reference, not a copy.
    let locales = BoundedCache<LocaleKey, StringCatalog>(byteBudget: CompiledPageCache.headerCacheBytes)
    let pages = BoundedCache<PageVariant, Page>(capacity: 1024)
    /// What the pages' kept responses hold.
    let kept = KeptBudget()
    let notFound = BoundedCache<NotFoundKey, PreparedResponse>(capacity: 1024)
    /// Short links with overrides, per link and variant (LinkPageCache.swift).
    let links = LinkPageCache()

    /// The User-Agent's facts, from the cache.
    func userAgent(_ userAgent: String?) -> UserAgentFacts {
        guard let userAgent, !userAgent.isEmpty else { return Self.noUserAgent }
        return browsers.value(HeaderKey(userAgent)) { UserAgentFacts(userAgent) }
    }

    func browser(_ userAgent: String?) -> BrowserFacts { self.userAgent(userAgent).browser }

    static let noUserAgent = UserAgentFacts(nil)
}

extension LandingPageRenderer {
    /// The compiled answer for a matched link; nil: the caller renders it the slow way.
    func compiledAnswer(for match: LinkMatch, site: CompiledSite, request: RequestFacts) -> CompiledLandingPage.Outcome? {
        let browser = compiled.browser(request.userAgent)
        let catalog = locale(site: site, browser: browser, acceptLanguage: request.acceptLanguage)
        return compiledPage(for: match, site: site, browser: browser, catalog: catalog).compiled?.answer(match: match, site: site, renderer: landing, locale: catalog.tag)
    }

    /// The compiled page of `match`'s variant (made at its first request); its `compiled` is nil
    /// when the variant renders the slow way.
    func compiledPage(for match: LinkMatch, site: CompiledSite, browser: BrowserFacts, catalog: StringCatalog) -> CompiledPageCache.Page {
        let variant = PageVariant(match: match, site: site, browser: browser, locale: catalog.tag)
        return compiled.pages.value(variant) {
            CompiledPageCache.Page(compiled: landing.compilePage(match: match, site: site, browser: browser, catalog: catalog))
        }
    }

    func locale(site: CompiledSite, browser: BrowserFacts, acceptLanguage: String?) -> StringCatalog {
        let key = CompiledPageCache.LocaleKey(site: site.index, acceptLanguage: browser.crawler == nil ? acceptLanguage.map(HeaderKey.init) : nil)
        return compiled.locales.value(key) { landing.locale(site: site, browser: browser, acceptLanguage: acceptLanguage) }
    }
}
