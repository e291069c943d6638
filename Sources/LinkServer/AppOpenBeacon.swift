#if canImport(Glibc)
import Glibc
#endif
import LinkRouting
import LinkStore
import LinkwellJSON
import MicroHTTP

// `POST /.well-known/linkwell/opens`: the apps' beacon that a link opened the app, the one POST of
// the public listener. Anyone can call it (it proves nothing and reveals nothing): it only adds
// one to the aggregate count of a link (or route) and day, as a first open or a re-open. Nothing
// that identifies the app, the device or the person is read or stored; the client address is held
// in memory for a minute at most, for the rate limit.

enum AppOpenBeacon {
    static let path = "/.well-known/linkwell/opens"
    /// The largest body read (a link of 1,500 bytes and the kind fit); 413 beyond.
    static let bodyLimit = 2048
    static let example = #"{"link": "https://example.com/l/abc", "kind": "first_open"}"#

    /// The beacon's answer: 204 when counted, 4xx with a sentence saying why when not.
    static func answer(_ request: HTTPRequest, snapshot: Snapshot, limiter: BeaconRateLimiter, counter: ClickRecorder?,
                       now: Int = Int(time(nil))) -> ResponderResult {
        let trust = snapshot.proxyTrust.resolve(RequestFacts(request))
        func result(_ status: Int, _ text: String, extra: [(String, String)] = [], site: String? = nil, route: String? = nil) -> ResponderResult {
            if status != 204 { counter?.opens.recordRefused(Self.reason(status)) }
            let response: HTTPResponse = status == 204
                ? .dynamic(status: 204, headers: [("Cache-Control", "no-store")], body: [])
                : Responder.plain(status, text, extra: extra)
            return ResponderResult(response: response, kind: .appOpen, site: site, route: route, client: trust.client, scheme: trust.scheme)
        }
        if request.bodyTooLarge {
            return result(413, "Content Too Large: an app-open beacon is at most \(bodyLimit) bytes of JSON, e.g. \(example)\n")
        }
        let perMinute = snapshot.table.config.storage?.clicks?.resolvedAppOpensPerMinute ?? ClickSettings.defaultAppOpensPerMinute
        if let wait = limiter.admit(trust.client, perMinute: perMinute, now: now) {
            return result(429, "Too Many Requests: more than \(perMinute) app-open beacons a minute from this address; this one was not counted. Send one beacon per app open.\n",
                          extra: [("Retry-After", String(wait))])
        }
        guard let recorder = counter, recorder.enabled else {
            return result(404, "Not Found: this server does not count app opens (storage.clicks.enabled is false in its config).\n")
        }
        let beacon: (link: String, kind: AppOpenKind)
        switch parse(request.body) {
        case let .failure(problem): return result(400, "Bad Request: \(problem). Send JSON such as \(example) (kind: first_open or reopen).\n")
        case let .success(b): beacon = b
        }
        guard let target = resolve(beacon.link, snapshot: snapshot) else {
            return result(404, "Not Found: '\(printable(beacon.link))' is not a link of this server (no site has its host, or no route, short link or long link matches it); it was not counted.\n")
        }
        recorder.opens.record(site: target.site, code: target.code, route: target.route, kind: beacon.kind, unixSeconds: now)
        return result(204, "", site: target.site, route: target.route.isEmpty ? nil : target.route)
    }

    /// The metric label of a refusal.
    static func reason(_ status: Int) -> String {
        switch status {
        case 413: "too_large"
        case 429: "rate_limited"
        case 400: "invalid"
        default: "unknown_link"
        }
    }

    /// `{"link": "<url>", "kind": "first_open" | "reopen"}`; other keys are ignored.
    static func parse(_ body: [UInt8]) -> Result<(link: String, kind: AppOpenKind), BeaconProblem> {
        guard !body.isEmpty else { return .failure(BeaconProblem("the body is empty")) }
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch { return .failure(BeaconProblem("the body is not JSON (\(error.description))")) }
        guard value.objectValue != nil else { return .failure(BeaconProblem("the body is JSON \(value.kindDescription), not an object")) }
        guard let link = value["link"]?.stringValue, !link.isEmpty else {
            return .failure(BeaconProblem("the body has no \"link\" string (the URL that opened the app)"))
        }
        guard let kindText = value["kind"]?.stringValue else {
            return .failure(BeaconProblem("the body has no \"kind\" string"))
        }
        guard let kind = AppOpenKind(rawValue: kindText) else {
            return .failure(BeaconProblem("\"kind\" is '\(printable(kindText))'; it must be first_open (the first launch after an install) or reopen"))
        }
        return .success((link, kind))
    }

    struct BeaconProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The site, short-link code ("" for a route or long link) and route of a link: a route link
    /// (any of the site's domains or schemes), a long link (`/?link=…`) or a live short link.
    static func resolve(_ link: String, snapshot: Snapshot) -> (site: String, code: String, route: String)? {
        let table = snapshot.table
        if case let .matched(match) = table.resolve(link) { return (match.site, "", match.route) }
        guard let url = WebURL(link), url.scheme == "https" || url.scheme == "http",
              let site = table.site(forHost: url.host, fallbackToDefault: false) else { return nil }
        let prefix = site.config.shortLinks?.effectivePrefix ?? "/"
        let path = Substring(url.path)
        if let query = url.query.map({ Substring($0) }), Responder.isLongLink(path, prefix: prefix, query: query) {
            let parameters = LongLinkRequest(query: query).parameters
            guard case let .success(long) = FDLLink.link(code: "", site: site, table: table, parameters: parameters, strictHosts: true)
            else { return nil }
            return (site.name, "", ShortLinkValidator.match(long.target, site: site, table: table)?.route ?? "")
        }
        guard let code = Responder.shortLinkCode(path, prefix: prefix),
              let short = snapshot.resolvedLinks.lookup(snapshot.links, site: site.name, code: code) else { return nil }
        return (site.name, short.link.code, short.match?.route ?? "")
    }

    /// At most 200 characters of a client's text, without control characters, for a message.
    static func printable(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
        return text.unicodeScalars.count > 200 ? cleaned + "…" : cleaned
    }
}

/// Beacons per client address and minute (a fixed window from the client's first beacon), in a
/// table of at most `capacity` addresses: an IPv6 client counts by its /64 (one host has them
/// all). When the table is full of clients whose minute has not ended, a new address is refused
/// too: a flood of addresses can delay counting by a minute, never grow the memory.
final class BeaconRateLimiter: Sendable {
    struct Window {
        var start: Int
        var count: Int
    }

    static let windowSeconds = 60
    let capacity: Int
    private let windows = Locked<[IPAddressKey: Window]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// nil: admitted (and counted); else the seconds to wait (`Retry-After`).
    func admit(_ client: String, perMinute: Int, now: Int) -> Int? {
        let key = IPAddressKey(client)
        return windows.withLock { w in
            if var window = w[key], now - window.start < Self.windowSeconds, now >= window.start {
                guard window.count < perMinute else { return max(1, window.start + Self.windowSeconds - now) }
                window.count += 1
                w[key] = window
                return nil
            }
            if w[key] == nil, w.count >= capacity {
                w = w.filter { now - $0.value.start < Self.windowSeconds && now >= $0.value.start }
                if w.count >= capacity { return Self.windowSeconds }
            }
            w[key] = Window(start: now, count: 1)
            return nil
        }
    }

    /// Addresses held (tests).
    var count: Int { windows.withLock { $0.count } }
}

/// A client address as the rate limit counts it: IPv4 whole, IPv6 by its /64, anything else as text.
struct IPAddressKey: Hashable {
    let bytes: [UInt8]
    let text: String

    init(_ client: String) {
        if let ip = IPAddress(client) {
            bytes = ip.isIPv4 ? ip.bytes : Array(ip.bytes.prefix(8))
            text = ""
        } else {
            bytes = []
            text = client
        }
    }
}
