/// Who sent a request, as the landing stage reads it: made once per request (the server keeps the
/// facts of each User-Agent and the language of each Accept-Language per snapshot) and passed to
/// everything that answers it, so nothing else reads those headers.
public struct Visitor: Sendable {
    /// Platform, in-app browser, link-preview crawler.
    public var browser: BrowserFacts
    /// The User-Agent names an iPad (a link's `ipfl` is for these).
    public var isIPad: Bool
    /// False without a User-Agent (or an empty one): the click counts as platform `other`.
    public var hasUserAgent: Bool
    /// The request's (capped) `Accept-Language`, for pages rendered per request.
    public var acceptLanguage: String?
    /// The strings of the language the pages are in on the request's site (crawlers get the
    /// site's default); nil when the pages are not the shipped landing pages.
    public var catalog: StringCatalog?

    public init(browser: BrowserFacts, isIPad: Bool = false, hasUserAgent: Bool = true, acceptLanguage: String? = nil, catalog: StringCatalog? = nil) {
        self.browser = browser
        self.isIPad = isIPad
        self.hasUserAgent = hasUserAgent
        self.acceptLanguage = acceptLanguage
        self.catalog = catalog
    }
}
