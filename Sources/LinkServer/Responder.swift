#if canImport(Glibc)
import Glibc
#endif
import LandingPages
import LinkRouting
import LinkStore
import MicroHTTP

/// What a response was, for logs and metrics.
public enum RequestKind: String, Sendable, CaseIterable {
    case aasa, assetlinks, page, redirect
    case staticAsset = "static"
    case notFound = "not_found"
    case error
    /// An app-open beacon (`POST /.well-known/linkwell/opens`).
    case appOpen = "app_open"
}

/// A response plus what the logs and metrics need to know about it.
public struct ResponderResult: Sendable {
    public var response: HTTPResponse
    public var kind: RequestKind
    public var site: String?
    public var route: String?
    /// After proxy trust.
    public var client: String
    /// The response already carries the HTML security headers (a landing page made by a renderer
    /// that adds them itself).
    var secured = false
    /// `http`, or what a trusted proxy reports (`X-Forwarded-Proto`, `Forwarded: proto=`).
    public var scheme: String = "http"
    /// A link request (route page, short link, not-found) to count; nil for everything else.
    public var click: ClickEvent? = nil
}

/// Request → response: a pure function of the snapshot and the request facts.
public enum Responder {
    public static let aasaPaths: Set<Substring> = ["/.well-known/apple-app-site-association", "/apple-app-site-association"]
    public static let assetLinksPath: Substring = "/.well-known/assetlinks.json"

    /// One of `aasaPaths`, compared by length first: a link's path is never hashed for it.
    static func isAASAPath(_ path: Substring) -> Bool {
        let length = path.utf8.count
        return aasaPaths.contains { length == $0.utf8.count && path == $0 }
    }

    /// `facts` are consumed: the request keeps them for its steps without a copy.
    public static func respond(_ snapshot: Snapshot, _ facts: consuming RequestFacts) -> ResponderResult {
        var result = route(snapshot, consume facts)
        if !result.secured { result.response = secured(result.response) }
        return result
    }

    /// The headers every HTML response carries, whatever renderer or template made it.
    public static let htmlSecurityHeaders: [(String, String)] = LandingRenderer.pageHeaders.filter {
        ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"].contains($0.0)
    }

    /// Adds the missing `htmlSecurityHeaders` to an HTML response (a renderer plugged in through
    /// `PageRenderer` cannot forget them).
    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        guard case let .dynamic(status, headers, body) = response,
              let type = headers.first(where: { $0.0.lowercased() == "content-type" })?.1, type.hasPrefix("text/html") else {
            return response
        }
        let present = Set(headers.map { $0.0.lowercased() })
        let missing = htmlSecurityHeaders.filter { !present.contains($0.0.lowercased()) }
        return missing.isEmpty ? response : .dynamic(status: status, headers: headers + missing, body: body)
    }

    static let noOverrides = LinkOverrides()

    /// nil, or overrides that change nothing (a short link's `redirectTarget` only counts for a
    /// forced redirect).
    static func overridesNothing(_ overrides: LinkOverrides?) -> Bool {
        guard var o = overrides else { return true }
        if !o.forcedRedirect { o.redirectTarget = nil }
        return o == noOverrides
    }

    /// One request on its way through the steps: the snapshot, the facts, what the proxy trust
    /// made of them and the site they are for. Made once in `route` and lent to each step (never
    /// copied: the steps read its fields in place).
    struct Request {
        let snapshot: Snapshot
        let facts: RequestFacts
        let trust: ProxyTrust.Resolution
        let site: Site
        let path: Substring

        /// The site's compiled routes, read in place in the `Site` object (no copy of the struct).
        var compiled: CompiledSite {
            _read { yield site.compiled }
        }

        func result(_ response: HTTPResponse, _ kind: RequestKind, route: String? = nil) -> ResponderResult {
            ResponderResult(response: response, kind: kind, site: site.name, route: route, client: trust.client, scheme: trust.scheme)
        }

        /// Every redirect: to a host the site allows, as the parsed URL's serialization.
        func redirected(_ location: String, route: String?, varies: Bool = true) -> ResponderResult {
            switch RedirectPolicy.check(location, site: compiled, table: snapshot.table, configHosts: site.redirectHosts) {
            case let .success(url):
                return result(redirect(url.href, varies: varies), .redirect, route: route)
            case let .failure(refusal):
                return result(plain(400, "Bad Request: Linkwell does not send browsers there: the link's address \(refusal.message).\n"), .error, route: route)
            }
        }
    }

    /// The request path: the request line, the method, the site and the path's segments checked,
    /// then a flat list of steps, the first that answers wins.
    static func route(_ snapshot: Snapshot, _ facts: consuming RequestFacts) -> ResponderResult {
        let trust = snapshot.proxyTrust.resolve(facts)
        if let refused = refused(snapshot, facts, trust) { return refused }
        guard let index = HostMemo.siteIndex(snapshot, host: trust.host ?? "") else {
            // Never echo the Host back.
            return ResponderResult(response: plain(421, "Misdirected Request: this server has no site for that host.\n"), kind: .error,
                                   site: nil, route: nil, client: trust.client, scheme: trust.scheme)
        }
        let path = facts.rawPath
        let site = snapshot.sites[index]
        let request = Request(snapshot: snapshot, facts: consume facts, trust: trust, site: site, path: path)
        if hasDotSegment(request.path) {
            // A browser removes dot segments before sending; nginx refuses those above the root.
            return request.result(plain(400, "Bad Request: the path has a '.' or '..' segment (raw or %2e-encoded).\n"), .error)
        }
        if let answered = wellKnown(request) ?? resolveLink(request) ?? previewCard(request) ?? staticAsset(request) { return answered }
        let visitor = snapshot.answerer.visitor(site: request.site, facts: request.facts)
        return longLink(request, visitor) ?? route(request, visitor) ?? shortLink(request, visitor) ?? notFound(request, visitor)
    }

    /// A request-target or a method that Linkwell does not answer, whatever the site.
    static func refused(_ snapshot: Snapshot, _ facts: RequestFacts, _ trust: ProxyTrust.Resolution) -> ResponderResult? {
        func refused(_ status: Int, _ text: String, extra: [(String, String)] = []) -> ResponderResult {
            ResponderResult(response: plain(status, text, extra: extra), kind: .error, site: nil, route: nil, client: trust.client, scheme: trust.scheme)
        }
        guard isOriginForm(facts.rawTarget) else {
            return refused(400, "Bad Request: the request-target must be an absolute path without control characters.\n")
        }
        guard facts.method == "GET" || facts.method == "HEAD" else {
            return refused(405, "Method Not Allowed: use GET or HEAD.\n", extra: [("Allow", "GET, HEAD")])
        }
        return nil
    }

    /// The association files (or a 404 that says why the site has none).
    static func wellKnown(_ r: Request) -> ResponderResult? {
        if isAASAPath(r.path) {
            guard let aasa = r.site.aasa else {
                return r.result(plain(404, "This site has no iOS app, so it has no apple-app-site-association.\n"), .aasa)
            }
            return r.result(aasa.respond(ifNoneMatch: r.facts.ifNoneMatch), .aasa)
        }
        if r.path == assetLinksPath {
            guard let links = r.site.assetLinks else {
                return r.result(plain(404, "This site has no Android app, so it has no assetlinks.json.\n"), .assetlinks)
            }
            return r.result(links.respond(ifNoneMatch: r.facts.ifNoneMatch), .assetlinks)
        }
        return nil
    }

    /// A generated preview card (`/static/og/…`), made by the renderer.
    static func previewCard(_ r: Request) -> ResponderResult? {
        guard startsWith(r.path, previewCardPrefix),
              let card = shortLinkCard(r) ?? r.snapshot.renderer.asset(path: r.path, site: r.compiled, request: r.facts) else { return nil }
        return r.result(card, .staticAsset)
    }

    /// A file of `public/` (or a generated stylesheet).
    static func staticAsset(_ r: Request) -> ResponderResult? {
        guard let asset = r.snapshot.assets.response(r.path) else { return nil }
        return r.result(asset.respond(ifNoneMatch: r.facts.ifNoneMatch), .staticAsset)
    }

    /// The site's short-link prefix (`/` without one).
    static func prefix(_ r: Request) -> String {
        r.site.shortLinkPrefix
    }

    /// An FDL long link (`/?link=…`, or at the prefix): like a short link made of its parameters.
    static func longLink(_ r: Request, _ visitor: Visitor) -> ResponderResult? {
        guard isLongLink(r.path, prefix: prefix(r), query: r.facts.rawQuery) else { return nil }
        return answered(r, longLink(r.snapshot.table, site: r.site, query: r.facts.rawQuery ?? "", visitor: visitor), visitor: visitor)
    }

    /// A link that matches one of the site's routes.
    static func route(_ r: Request, _ visitor: Visitor) -> ResponderResult? {
        let resolution = r.snapshot.table.resolve(site: r.compiled, path: r.path, query: r.facts.rawQuery, fragment: nil)
        guard case let .matched(match) = resolution else { return nil }
        return landed(r, LandingRequest(site: r.site, match: match, visitor: visitor))
    }

    /// A short link `{prefix}{code}`: answered as its target would be, with its overrides (from the
    /// snapshot's index).
    static func shortLink(_ r: Request, _ visitor: Visitor) -> ResponderResult? {
        guard let code = shortLinkCode(r.path, prefix: prefix(r)), case let links = r.snapshot.links,
              let short = r.snapshot.resolvedLinks.lookup(links, site: r.compiled.name, code: code),
              let destination = shortLink(short, generation: links.generation, site: r.site, visitor: visitor) else { return nil }
        var result = answered(r, destination, visitor: visitor)
        result.click?.code = short.link.code
        return result
    }

    /// No route and no live short link: the site's `notFound.redirect`, or the not-found page.
    static func notFound(_ r: Request, _ visitor: Visitor) -> ResponderResult {
        var missed: ResponderResult
        if let target = r.compiled.config.notFound?.redirect, !target.contains("\r"), !target.contains("\n") {
            missed = r.redirected(target, route: nil, varies: false)
        } else {
            missed = r.result(r.snapshot.answerer.notFound(site: r.site, visitor: visitor, facts: r.facts), .notFound)
        }
        missed.click = ClickEvent(visitor: visitor, site: r.site.name, outcome: .notFound)
        return missed
    }

    /// A not-found page with `LandingRenderer.missHeader` (the shipped pages carry it already; a
    /// plugged-in renderer's get it here).
    static func marked(_ response: HTTPResponse) -> HTTPResponse {
        let (name, value) = LandingRenderer.missHeader
        guard response.header(name) == nil else { return response }
        return .dynamic(status: response.status, headers: response.headers + [(name, value)], body: response.body)
    }

    /// A matched link's answer from the landing stage, and its click.
    static func landed(_ r: Request, _ landing: LandingRequest) -> ResponderResult {
        let answerer = r.snapshot.answerer
        let made = answerer.answer(landing, facts: r.facts)
        var answered: ResponderResult
        switch made.answer {
        case let .page(page):
            answered = r.result(page, .page, route: landing.match.route)
            answered.secured = answerer.pagesCarrySecurityHeaders
        case let .redirect(location):
            answered = r.redirected(location, route: landing.match.route)
        }
        answered.click = ClickEvent(visitor: landing.visitor, site: r.site.name, route: landing.match.route, outcome: made.outcome)
        return answered
    }

    /// Where a short or long link leads: its target route's landing answer, a redirect to a web
    /// page (no route, or the platform's fallback), or a long link's own page (no click).
    static func answered(_ r: Request, _ destination: LinkDestination, visitor: Visitor) -> ResponderResult {
        switch destination {
        case let .landing(landing):
            return landed(r, landing)
        case let .redirect(location):
            var answered = r.redirected(location, route: nil)
            answered.click = ClickEvent(visitor: visitor, site: r.site.name, outcome: .redirect)
            return answered
        case let .page(status, body):
            return r.result(.dynamic(status: status, headers: LandingRenderer.pageHeaders, body: body), status == 200 ? .page : .error)
        }
    }

    /// True when `text`'s UTF-8 starts with `prefix`'s: one `memcmp` over both contiguous
    /// buffers, where `hasPrefix` walks both as generic sequences.
    static func startsWith(_ text: Substring, _ prefix: String) -> Bool {
        let n = prefix.utf8.count
        guard text.utf8.count >= n else { return false }
        guard n > 0 else { return true }
        let compared = text.utf8.withContiguousStorageIfAvailable { t in
            prefix.utf8.withContiguousStorageIfAvailable { p in memcmp(t.baseAddress!, p.baseAddress!, n) == 0 }
        }
        return (compared ?? nil) ?? text.utf8.starts(with: prefix.utf8)
    }

    /// `/`-started, no control characters, spaces or bytes a request line cannot carry.
    static func isOriginForm(_ target: String) -> Bool {
        func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard bytes.first == UInt8(ascii: "/") else { return false }
            for b in bytes where b <= 0x20 || b == 0x7F { return false }
            return true
        }
        // Over the contiguous UTF-8 (a native String's own storage): no per-byte index walk.
        if let verdict = target.utf8.withContiguousStorageIfAvailable(check) { return verdict }
        return Array(target.utf8).withUnsafeBufferPointer(check)
    }

    /// True when a path segment is `.` or `..`, raw or percent-encoded (`%2e%2E`), between `/`,
    /// `\\`, `%2F` or `%5C`.
    static func hasDotSegment(_ path: Substring) -> Bool {
        if let verdict = path.utf8.withContiguousStorageIfAvailable(hasDotSegment) { return verdict }
        return Array(path.utf8).withUnsafeBufferPointer(hasDotSegment)
    }

    static func hasDotSegment(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        // Over the bytes, without allocating: a segment that is `.` or `..`, each dot possibly
        // written `%2e`/`%2E`, segments ending at `/`, `\` or an encoded one (`%2F`, `%5C`): what
        // nginx decodes before it refuses a path that climbs above the root.
        var dots = 0
        var valid = true
        var i = 0
        let end = path.count
        func close() -> Bool { valid && (dots == 1 || dots == 2) }
        while i != end {
            let b = path[i]
            if b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") {
                if close() { return true }
                dots = 0
                valid = true
            } else if b == UInt8(ascii: ".") {
                dots += 1
            } else if b == UInt8(ascii: "%") {
                let j = i + 1, k = i + 2
                guard k < end else { valid = false; i = end; continue }
                let (high, low) = (path[j], path[k] | 0x20)
                if (high == UInt8(ascii: "2") && low == UInt8(ascii: "f")) || (high == UInt8(ascii: "5") && low == UInt8(ascii: "c")) {
                    if close() { return true }
                    dots = 0
                    valid = true
                } else if high == UInt8(ascii: "2") && low == UInt8(ascii: "e") {
                    dots += 1
                } else {
                    valid = false
                }
                i = k + 1
                continue
            } else {
                valid = false
            }
            i += 1
        }
        return close()
    }

    static func plain(_ status: Int, _ text: String, extra: [(String, String)] = []) -> HTTPResponse {
        .dynamic(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")] + extra, body: Array(text.utf8))
    }

    /// A 302. `varies`: the target depends on the User-Agent (a fallback decision).
    static func redirect(_ location: String, varies: Bool = false) -> HTTPResponse {
        var headers = [("Location", location), ("Cache-Control", "no-cache"), ("Content-Type", "text/plain; charset=utf-8")]
        if varies { headers.append(("Vary", "User-Agent")) }
        return .dynamic(status: 302, headers: headers, body: Array("Found: \(location)\n".utf8))
    }
}
