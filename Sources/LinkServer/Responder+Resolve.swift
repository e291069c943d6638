// `GET /.well-known/linkwell/resolve?link=<url-encoded link>`: what the landing page would give
// the app, as JSON, for an app that a claimed short link (`shortLinks.openApp`) opened: the deep
// link, the route and its parameters, and the link's campaign fields. For a route link, a stored
// short link (the same rules as its page: unknown, disabled and expired codes are 404) and an FDL
// long link (`/?link=…`). Public and cacheable; rate-limited per client address in memory (a
// bounded table, one minute's counts); nothing about the caller is read beyond that address, and
// nothing is written or counted.

import Foundation
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP
import Synchronization

extension Responder {
    public static let resolvePath: Substring = "/.well-known/linkwell/resolve"

    /// Per client address, requests per minute (`ResolveRateLimiter`), shared by every snapshot.
    static let resolveLimiter = ResolveRateLimiter(perMinute: 120, addresses: 10_000)

    /// The resolve endpoint, or nil for any other path.
    static func resolveLink(_ r: Request) -> ResponderResult? {
        guard r.path == resolvePath else { return nil }
        if let retry = resolveLimiter.refusal(for: r.trust.client) {
            return r.result(resolveJSON(429, ["error": "rate_limited", "message": "Too many resolve requests from this address; retry in \(retry) s."],
                                        extra: [("Retry-After", String(retry))]), .error)
        }
        guard let raw = RawQueryItem.split(String(r.facts.rawQuery ?? "")).first(where: { $0.hasName("link") })?.value, !raw.isEmpty else {
            return r.result(resolveJSON(400, ["error": "missing_link", "message": "Give the link to resolve: ?link=<the link, URL-encoded>."]), .error)
        }
        let link = PercentEncoding.decode(Array(raw.utf8).map { $0 == UInt8(ascii: "+") ? 0x20 : $0 })
        guard let resolved = resolved(link, r.snapshot) else {
            return r.result(resolveJSON(404, ["error": "not_found", "message": "No route, live short link or long link of this server is that link; open it in the browser."],
                                        cache: "public, max-age=60"), .notFound)
        }
        let body = resolved.serializedBytes(.compact)
        let etag = EntityTag.strong(for: body)
        if EntityTag.noneMatchHits(r.facts.ifNoneMatch, etag: etag) {
            return r.result(.dynamic(status: 304, headers: [("ETag", etag), ("Cache-Control", resolveCacheControl)], body: []), .page)
        }
        return r.result(.dynamic(status: 200, headers: jsonHeaders(cache: resolveCacheControl) + [("ETag", etag)], body: body + [0x0A]), .page)
    }

    /// A minute: a disabled or edited link answers its new way soon after.
    static let resolveCacheControl = "public, max-age=60"

    /// The answer for one link, or nil when it is nothing this server answers as a link.
    static func resolved(_ link: String, _ snapshot: Snapshot) -> JSONValue? {
        let table = snapshot.table
        guard let url = WebURL(link), url.scheme == "https" || url.scheme == "http" else {
            // A custom-scheme link (`myapp://post/1`): a route or nothing.
            guard case let .matched(match) = table.resolve(link) else { return nil }
            return answer(url: link, match: match, campaign: [])
        }
        guard !url.hasCredentials, let site = table.site(forHost: url.host, fallbackToDefault: false) else { return nil }
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        let path = Substring(url.path)
        if isLongLink(path, prefix: prefix, query: url.query.map { Substring($0) }) {
            let request = LongLinkRequest(query: Substring(url.query ?? ""))
            guard case let .success(long) = FDLLink.link(code: "", site: site, table: table, parameters: request.parameters, strictHosts: true) else { return nil }
            return answer(url: long.target, match: ShortLinkValidator.match(long.target, site: site, table: table), campaign: campaign(long))
        }
        if case let .matched(match) = table.resolve(site: site, path: url.path, query: url.query, fragment: url.fragment) {
            return answer(url: url.href, match: match, campaign: [])
        }
        // A stored code; one trailing '/' is read as none (the association files claim
        // `{prefix}{code}/` too, as they claim a route's link with one).
        var codePath = path
        if codePath.hasSuffix("/"), codePath.count > prefix.count + 1 { codePath = codePath.dropLast() }
        guard let code = shortLinkCode(codePath, prefix: prefix), case let links = snapshot.links,
              let short = snapshot.resolvedLinks.lookup(links, site: site.name, code: code) else { return nil }
        return answer(url: short.link.target, match: short.match, campaign: campaign(short.link))
    }

    /// A link's campaign fields: `utm_*` (what the Play install referrer carries) and the App
    /// Store's `at`, `ct`, `mt`, `pt`.
    static func campaign(_ link: ShortLink) -> [(String, String)] {
        guard let fdl = link.fdl else { return [] }
        return (fdl.campaign + fdl.appStoreTokens).map { ($0.name, $0.value) }
    }

    /// `{"url", "site", "route", "parameters", campaign…}`; `route` null: a web page (open `url` in the browser).
    static func answer(url: String, match: LinkMatch?, campaign: [(String, String)]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("url", .string(url))]
        if let match {
            members.append(("site", .string(match.site)))
            members.append(("route", .string(match.route)))
            members.append(("parameters", .object(match.parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) })))
        } else {
            members.append(("route", .null))
            members.append(("parameters", .object([])))
        }
        for (name, value) in campaign where !members.contains(where: { $0.key == name }) { members.append((name, .string(value))) }
        return .object(members)
    }

    static func jsonHeaders(cache: String) -> [(String, String)] {
        [("Content-Type", "application/json"), ("Cache-Control", cache), ("Access-Control-Allow-Origin", "*"), ("X-Content-Type-Options", "nosniff")]
    }

    static func resolveJSON(_ status: Int, _ fields: KeyValuePairs<String, String>, cache: String = "no-store", extra: [(String, String)] = []) -> HTTPResponse {
        let body = JSONValue.object(fields.map { (key: $0.key, value: JSONValue.string($0.value)) }).serializedBytes(.compact) + [0x0A]
        return .dynamic(status: status, headers: jsonHeaders(cache: cache) + extra, body: body)
    }
}

/// Requests per client address per minute, in memory: at most `addresses` entries, of the
/// current minute only (a new minute starts the table afresh). When the table is full, an
/// address not in it shares one overflow count, so a flood of addresses cannot grow memory.
final class ResolveRateLimiter: Sendable {
    private struct State {
        var minute: Int = 0
        var counts: [String: Int] = [:]
        var overflow = 0
    }

    let perMinute: Int
    let addresses: Int
    private let state = Mutex(State())

    init(perMinute: Int, addresses: Int) {
        self.perMinute = perMinute
        self.addresses = addresses
    }

    /// nil: allowed (and counted); else the seconds until the next minute.
    func refusal(for client: String, now: Date = Date()) -> Int? {
        let seconds = Int(now.timeIntervalSince1970)
        let minute = seconds / 60
        return state.withLock { s -> Int? in
            if s.minute != minute { s = State(minute: minute) }
            let count: Int
            if let c = s.counts[client] {
                count = c + 1
                s.counts[client] = count
            } else if s.counts.count < addresses {
                count = 1
                s.counts[client] = 1
            } else {
                s.overflow += 1
                count = s.overflow
            }
            return count > perMinute ? max(1, 60 - seconds % 60) : nil
        }
    }
}
