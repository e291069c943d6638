// The short-link and long-link decision layer of the Responder: finds the code under the site's
// prefix, turns a stored link or an FDL long link (`/?link=…&apn=…`) into the target route's
// match plus LinkOverrides, and returns it as a `LandingRequest` for the landing stage
// (LandingAnswerer), which answers routes the same way, or as a plain redirect. Also the two pages
// only long links have:
// the `d=1` explanation and the 400 page of a refused parameter.

import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

extension LinkOverrides {
    /// A stored link's overrides (its target is where a forced redirect goes).
    public init(_ link: ShortLink) {
        self.init(
            title: link.previewTitle, description: link.previewDescription, image: link.previewImage,
            iosFallback: link.iosFallback, ipadFallback: link.fdl?.ipadFallback, androidFallback: link.androidFallback,
            desktopFallback: link.desktopFallback, forcedRedirect: link.forcedRedirect, redirectTarget: link.target,
            playReferrer: link.fdl?.campaign ?? [], appStoreParameters: link.fdl?.appStoreTokens ?? [])
    }
}

/// A long link's parameters, read from the query.
struct LongLinkRequest {
    /// First value of each parameter, percent-decoded (`+` as a space, as forms encode it).
    var parameters: [String: String] = [:]
    /// Names that are not FDL parameters (shown as ignored by `d=1`).
    var unknown: [String] = []
    var debug = false

    init(query: Substring) {
        for item in RawQueryItem.split(String(query)) {
            let name = PercentEncoding.decode(Array(item.name.utf8))
            let value = PercentEncoding.decode(Array((item.value ?? "").utf8).map { $0 == UInt8(ascii: "+") ? 0x20 : $0 })
            if name == "d" { debug = value == "1"; continue }
            guard FDLLink.parameters.contains(name) else {
                if !unknown.contains(name), unknown.count < 20 { unknown.append(String(name.prefix(64))) }
                continue
            }
            if parameters[name] == nil { parameters[name] = value }
        }
    }
}

extension Responder {
    /// The code of a short-link path under `prefix` (`/l/abc1` → `abc1`), or nil.
    @inline(__always)
    static func shortLinkCode(_ path: Substring, prefix: String) -> Substring? {
        // On the path's bytes: no Character walk and no Foundation substring search per request.
        let bytes = path.utf8
        let start = prefix.utf8.count
        guard bytes.count > start, Responder.startsWith(path, prefix) else { return nil }
        let code = bytes[bytes.index(bytes.startIndex, offsetBy: start)...]
        guard !code.contains(UInt8(ascii: "/")) else { return nil }
        return Substring(code)
    }

    /// True for the site's root (or prefix) with a `link` parameter: an FDL long link.
    static func isLongLink(_ path: Substring, prefix: String, query: Substring?) -> Bool {
        guard let query, path == prefix || (prefix != "/" && path == prefix.dropLast()) else { return false }
        return RawQueryItem.split(String(query)).contains { $0.hasName("link") }
    }

    /// A stored short link: its target route's landing request with the link's overrides; a
    /// web-page target (no route) redirects to it, or to the platform's fallback. nil: a target
    /// that cannot be a `Location` (the link is not found).
    static func shortLink(_ short: IndexedShortLink, generation: UInt64, site: Site, visitor: Visitor) -> LinkDestination? {
        var overrides = LinkOverrides(short.link)
        overrides.canonical = shortLinkURL(short.link, site: site.compiled)
        if let match = short.match {
            return .landing(LandingRequest(site: site, match: match, overrides: overrides, stored: (short, generation), visitor: visitor))
        }
        let location = overrides.fallback(for: visitor.browser.platform, iPad: visitor.isIPad)?.url ?? short.link.target
        guard !location.contains("\r"), !location.contains("\n") else { return nil }
        return .redirect(location)
    }

    /// A stored link's own URL: `https://<canonical host><prefix><code>`.
    static func shortLinkURL(_ link: ShortLink, site: CompiledSite) -> String {
        "https://\(site.canonicalHost)\(site.config.shortLinks?.effectivePrefix ?? "/")\(link.code)"
    }

    /// An FDL long link: refused with a 400 page naming the parameter, explained (`d=1`), or
    /// answered like a short link built from its parameters.
    static func longLink(_ table: RouteTable, site served: Site, query: Substring, visitor: Visitor) -> LinkDestination {
        let site = served.compiled
        let request = LongLinkRequest(query: query)
        var link: ShortLink
        switch FDLLink.link(code: "", site: site, table: table, parameters: request.parameters, strictHosts: true) {
        case let .failure(problem):
            return .page(status: 400, body: LongLinkPages.refused(problem, site: site))
        case let .success(l):
            link = l
        }
        if site.config.shortLinks?.longLinkPreviews == false {
            // The site shows its routes' own previews: no visitor-written title, text or image.
            link.previewTitle = nil
            link.previewDescription = nil
            link.previewImage = nil
        }
        let match = ShortLinkValidator.match(link.target, site: site, table: table)
        let overrides = LinkOverrides(link)
        if request.debug {
            return .page(status: 200, body: LongLinkPages.explanation(link: link, match: match, overrides: overrides, request: request, site: site, table: table))
        }
        if let match { return .landing(LandingRequest(site: served, match: match, overrides: overrides, visitor: visitor)) }
        return .redirect(overrides.fallback(for: visitor.browser.platform, iPad: visitor.isIPad)?.url ?? link.target)
    }
}

/// The long links' own pages (plain HTML with the shipped stylesheet, every value escaped).
enum LongLinkPages {
    static func document(title: String, body: String) -> [UInt8] {
        Array("""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex"><title>\(HTMLEscaping.text(title))</title>
        <link rel="stylesheet" href="/static/linkwell.css"></head>
        <body class="not-found long-link"><main><div class="text">
        \(body)
        </div></main></body></html>

        """.utf8)
    }

    static func refused(_ problem: FDLProblem, site: CompiledSite) -> [UInt8] {
        var body = "<h1 id=\"refused\">This link cannot be followed</h1>\n"
        body += "<p id=\"reason\">The parameter <code id=\"parameter\">\(HTMLEscaping.text(problem.parameter))</code>: \(HTMLEscaping.text(problem.message)).</p>\n"
        if let host = problem.host {
            body += "<p id=\"why\">Links on \(HTMLEscaping.text(site.canonicalHost)) only send browsers to its own domains and the hosts its owner allows, so that nobody can use them to pass off another site (<code>\(HTMLEscaping.text(host))</code> is not one of them).</p>\n"
        }
        body += "<p id=\"fix\">For the site's owner: \(HTMLEscaping.text(problem.fix)).</p>\n"
        return document(title: "Link refused", body: body)
    }

    /// Like FDL's debug flowchart (`d=1`): what each kind of visitor gets and why, from the
    /// parameters and the config's public facts (no tokens, nothing of the request echoed but
    /// the parameters themselves).
    static func explanation(link: ShortLink, match: LinkMatch?, overrides: LinkOverrides, request: LongLinkRequest,
                            site: CompiledSite, table: RouteTable) -> [UInt8] {
        var body = "<h1>How this link is answered</h1>\n"
        body += "<p id=\"deep-link\">Deep link: <code>\(HTMLEscaping.text(link.target))</code> — "
        if let match {
            body += "route <strong id=\"route\">\(HTMLEscaping.text(match.route))</strong> of site '\(HTMLEscaping.text(site.name))': the apps that open it get it as a universal link / App Link.</p>\n"
        } else {
            body += "<strong id=\"route\">no route</strong> of site '\(HTMLEscaping.text(site.name))' matches it: browsers are sent to it.</p>\n"
        }
        body += "<table id=\"platforms\"><tr><th>Visitor</th><th>Gets</th><th>Why</th></tr>\n"
        let visitors: [(String, String, BrowserFacts, Bool)] = [
            ("ios", "iPhone browser", BrowserFacts(platform: .ios), false),
            ("ipad", "iPad browser", BrowserFacts(platform: .ios), true),
            ("android", "Android browser", BrowserFacts(platform: .android), false),
            ("desktop", "Desktop browser", BrowserFacts(platform: .desktop), false),
            ("crawler", "Link-preview crawler", BrowserFacts(platform: .desktop, crawler: "Slackbot"), false),
        ]
        for (id, name, browser, iPad) in visitors {
            let gets: String
            let why: String
            if let match {
                let choice = LandingChoice(table: table, site: site, match: match, overrides: overrides, browser: browser, iPad: iPad)
                let links = choice.links
                switch choice.decision {
                case let .redirect(_, target, reason):
                    gets = "redirect to <code>\(HTMLEscaping.text(target))</code>"
                    why = reason
                case let .landing(reason):
                    let steps = NextSteps.decide(platform: browser.platform, links: links, webPage: NextSteps.webPage(table: table, site: site, match: match),
                                                 home: NextSteps.home(table: table, site: site)).overridden(by: overrides, platform: browser.platform, iPad: iPad)
                    gets = "the landing page; buttons: " + (steps.steps.isEmpty ? "none" : steps.steps.map { "\($0.id) <code>\(HTMLEscaping.text($0.url))</code>" }.joined(separator: ", "))
                    why = reason + (overrides.fallback(for: browser.platform, iPad: iPad).map {
                        "; the link's \($0.parameter) takes the place of the \(browser.platform == .desktop ? "web page" : "store") button"
                    } ?? "")
                }
            } else {
                let fallback = overrides.fallback(for: browser.platform, iPad: iPad)
                gets = "redirect to <code>\(HTMLEscaping.text(fallback?.url ?? link.target))</code>"
                why = fallback.map { "the link's \($0.parameter)" } ?? "the deep link matches no route: the browser opens it"
            }
            body += "<tr id=\"visitor-\(id)\"><td>\(name)</td><td>\(gets)</td><td>\(HTMLEscaping.text(why))</td></tr>\n"
        }
        body += "</table>\n<h2>Parameters</h2>\n<table id=\"parameters\"><tr><th>Parameter</th><th>Value</th><th>Used as</th></tr>\n"
        for name in FDLLink.parameters {
            guard let value = request.parameters[name], !value.isEmpty else { continue }
            body += "<tr id=\"param-\(name)\"><td><code>\(name)</code></td><td><code>\(HTMLEscaping.text(value))</code></td><td>\(HTMLEscaping.text(use(of: name, previews: site.config.shortLinks?.longLinkPreviews != false)))</td></tr>\n"
        }
        body += "</table>\n"
        if !request.unknown.isEmpty {
            body += "<p id=\"ignored\">Ignored (not FDL parameters): " + request.unknown.map { "<code>\(HTMLEscaping.text($0))</code>" }.joined(separator: ", ") + "</p>\n"
        }
        body += "<p>Remove <code>d=1</code> from the link to follow it.</p>\n"
        return document(title: "Link explained", body: body)
    }

    /// What Linkwell does with each FDL parameter (the table of docs/guide/migrating-from-firebase.md).
    static func use(of name: String, previews: Bool = true) -> String {
        switch name {
        case "link": "the deep link: its route's page and decisions"
        case "st", "sd", "si" where !previews: "ignored: this site shows its routes' own previews (shortLinks.longLinkPreviews: false)"
        case "st", "sd", "si": "the page's preview (\(name == "st" ? "title" : name == "sd" ? "description" : "image")) instead of the route's"
        case "ifl": "where iPhones without the app go (instead of the App Store)"
        case "ipfl": "where iPads without the app go"
        case "afl": "where Android devices without the app go (instead of Google Play; also Chrome's intent fallback)"
        case "ofl": "where desktop browsers go"
        case "efr": "1: skip the page, redirect at once (crawlers still get the preview)"
        case "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content": "added to the Google Play install referrer"
        case "at", "ct", "mt", "pt": "added to the App Store URL"
        case "apn", "ibi", "ipbi", "isi", "ius": "informational: the apps are the config's"
        default: "informational: not checked by Linkwell"
        }
    }
}
