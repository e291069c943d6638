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

    public static func respond(_ snapshot: Snapshot, _ facts: RequestFacts) -> ResponderResult {
        var result = route(snapshot, facts)
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

    static func route(_ snapshot: Snapshot, _ facts: RequestFacts) -> ResponderResult {
        let trust = snapshot.proxyTrust.resolve(facts)
        func result(_ response: HTTPResponse, _ kind: RequestKind, site: String? = nil, route: String? = nil) -> ResponderResult {
            ResponderResult(response: response, kind: kind, site: site, route: route, client: trust.client, scheme: trust.scheme)
        }

        guard isOriginForm(facts.rawTarget) else {
            return result(plain(400, "Bad Request: the request-target must be an absolute path without control characters.\n"), .error)
        }
        guard facts.method == "GET" || facts.method == "HEAD" else {
            return result(plain(405, "Method Not Allowed: use GET or HEAD.\n", extra: [("Allow", "GET, HEAD")]), .error)
        }
        guard let compiled = snapshot.table.site(forHost: trust.host ?? "") else {
            // Never echo the Host back.
            return result(plain(421, "Misdirected Request: this server has no site for that host.\n"), .error)
        }
        let site = snapshot.site(compiled)
        let path = facts.rawPath

        if hasDotSegment(path) {
            // A browser removes dot segments before sending; nginx refuses those above the root.
            return result(plain(400, "Bad Request: the path has a '.' or '..' segment (raw or %2e-encoded).\n"), .error, site: site.name)
        }
        if aasaPaths.contains(path) {
            guard let aasa = site.aasa else {
                return result(plain(404, "This site has no iOS app, so it has no apple-app-site-association.\n"), .aasa, site: site.name)
            }
            return result(aasa.respond(ifNoneMatch: facts.ifNoneMatch), .aasa, site: site.name)
        }
        if path == assetLinksPath {
            guard let links = site.assetLinks else {
                return result(plain(404, "This site has no Android app, so it has no assetlinks.json.\n"), .assetlinks, site: site.name)
            }
            return result(links.respond(ifNoneMatch: facts.ifNoneMatch), .assetlinks, site: site.name)
        }
        if path.hasPrefix("/static/og/"), let card = snapshot.renderer.asset(path: path, site: compiled, request: facts) {
            return result(card, .staticAsset, site: site.name)
        }
        if let asset = snapshot.assets.responses[String(path)] {
            return result(asset.respond(ifNoneMatch: facts.ifNoneMatch), .staticAsset, site: site.name)
        }

        // Every redirect: to a host the site allows, as the parsed URL's serialization.
        func redirected(_ location: String, route: String?, varies: Bool = true) -> ResponderResult {
            switch RedirectPolicy.check(location, site: compiled, table: snapshot.table, configHosts: site.redirectHosts) {
            case let .success(url):
                return result(redirect(url.href, varies: varies), .redirect, site: site.name, route: route)
            case let .failure(refusal):
                return result(plain(400, "Bad Request: Linkwell does not send browsers there: the link's address \(refusal.message).\n"), .error, site: site.name, route: route)
            }
        }
        func answer(_ match: LinkMatch, _ overrides: LinkOverrides? = nil, stored: IndexedShortLink? = nil, generation: UInt64 = 0) -> ResponderResult {
            // The compiled page is the route's own; a link that overrides nothing gets it too.
            if overridesNothing(overrides) {
                switch snapshot.renderer.answer(for: match, site: compiled, request: facts) {
                case let .page(page)?:
                    var answer = result(page, .page, site: site.name, route: match.route)
                    answer.secured = snapshot.renderer.answersCarrySecurityHeaders
                    answer.click = ClickEvent(userAgent: facts.userAgent, renderer: snapshot.renderer, site: site.name, route: match.route, outcome: .appPage)
                    return answer
                case let .redirect(location)?:
                    var answer = redirected(location, route: match.route)
                    answer.click = ClickEvent(userAgent: facts.userAgent, renderer: snapshot.renderer, site: site.name, route: match.route, outcome: ClickOutcome(redirectTo: location))
                    return answer
                case nil:
                    break
                }
            } else if let stored, let made = snapshot.renderer.answer(for: stored, generation: generation, site: compiled, request: facts) {
                // A stored link with overrides: its own answer, made once per variant.
                var answer: ResponderResult
                switch made.answer {
                case let .page(page):
                    answer = result(page, .page, site: site.name, route: match.route)
                    answer.secured = snapshot.renderer.answersCarrySecurityHeaders
                case let .redirect(location):
                    answer = redirected(location, route: match.route)
                }
                answer.click = ClickEvent(browser: made.browser ?? snapshot.renderer.browserFacts(userAgent: facts.userAgent), userAgent: facts.userAgent,
                                          site: site.name, route: match.route, outcome: made.outcome)
                return answer
            }
            let links = LandingLinks(table: snapshot.table, site: compiled, match: match).overridden(by: overrides)
            let browser = snapshot.renderer.browserFacts(userAgent: facts.userAgent)
            let decision = overrides == nil
                ? FallbackDecision.decide(browser: browser, site: compiled, match: match, links: links)
                : FallbackDecision.decide(browser: browser, site: compiled, match: match, links: links, overrides: overrides,
                                          iPad: facts.userAgent?.contains("iPad") ?? false)
            var answered: ResponderResult
            if case let .redirect(_, location, _) = decision {
                answered = redirected(location, route: match.route)
            } else {
                let page = overrides.map { snapshot.renderer.page(for: match, site: compiled, request: facts, overrides: $0) }
                    ?? snapshot.renderer.page(for: match, site: compiled, request: facts)
                answered = result(page, .page, site: site.name, route: match.route)
            }
            answered.click = ClickEvent(decision: decision, forcedRedirect: overrides?.forcedRedirect ?? false, browser: browser,
                                        userAgent: facts.userAgent, site: site.name, route: match.route)
            return answered
        }
        func redirectTo(_ location: String, _ route: String?) -> ResponderResult {
            var answered = redirected(location, route: route)
            answered.click = ClickEvent(userAgent: facts.userAgent, renderer: snapshot.renderer, site: site.name, route: route ?? "", outcome: .redirect)
            return answered
        }
        let prefix = compiled.config.shortLinks?.effectivePrefix ?? "/"
        // An FDL long link (`/?link=…`, or at the prefix): like a short link made of its parameters.
        if isLongLink(path, prefix: prefix, query: facts.rawQuery) {
            return longLink(snapshot, site: compiled, facts: facts, answer: { answer($0, $1) }, redirect: redirectTo) { status, body in
                result(.dynamic(status: status, headers: LandingRenderer.pageHeaders, body: body), status == 200 ? .page : .error, site: site.name)
            }
        }
        let resolution = snapshot.table.resolve(site: compiled, path: String(path), query: facts.rawQuery.map(String.init), fragment: nil)
        if case let .matched(match) = resolution { return answer(match) }
        // A short link `{prefix}{code}`: answered as its target would be, with its overrides (from the snapshot's index).
        if let code = shortLinkCode(path, prefix: prefix), case let links = snapshot.links, let short = snapshot.resolvedLinks.lookup(links, site: compiled.name, code: code),
           var answered = shortLink(short, facts: facts, answer: { answer($0, $1, stored: short, generation: links.generation) }, redirect: redirectTo) {
            answered.click?.code = short.link.code
            return answered
        }
        var missed: ResponderResult
        if let target = compiled.config.notFound?.redirect, !target.contains("\r"), !target.contains("\n") {
            missed = redirected(target, route: nil, varies: false)
        } else {
            missed = result(snapshot.renderer.notFound(site: compiled, request: facts), .notFound, site: site.name)
        }
        missed.click = ClickEvent(userAgent: facts.userAgent, renderer: snapshot.renderer, site: site.name, outcome: .notFound)
        return missed
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
