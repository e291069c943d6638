// What a short link may point at, checked against the site's route table before it is stored.

import LinkRouting

/// The target of a short link, as the route table sees it.
public enum ShortLinkTarget: Sendable, Equatable {
    /// A deep link: the app opens `route` (the landing page is that route's page).
    case route(String)
    /// A page on one of the site's own domains that no route claims: the browser opens it.
    case webPage
}

/// Checks short links before they are written.
public enum ShortLinkValidator {
    /// What `link` points at, or the reason it cannot be stored: its code must be free on its
    /// site (``ShortCode/conflict(code:site:table:)``), its target an http(s) URL on one of the
    /// site's domains or a custom-scheme link of its apps, and its fallbacks http(s) URLs.
    public static func check(_ link: ShortLink, table: RouteTable) -> Result<ShortLinkTarget, ShortLinkRefusal> {
        resolve(link, table: table).map(\.target)
    }

    /// ``check(_:table:)`` and the target's route match (nil for a web page), from one
    /// resolution of the target (what the server does per short-link request).
    public static func resolve(_ link: ShortLink, table: RouteTable) -> Result<(target: ShortLinkTarget, match: LinkMatch?), ShortLinkRefusal> {
        guard let site = table.site(named: link.site) else {
            return .failure(ShortLinkRefusal("there is no site '\(link.site)'; the config's sites are \(table.sites.map { "'\($0.name)'" }.joined(separator: ", "))", field: "site"))
        }
        if let reason = ShortCode.conflict(code: link.code, site: site, table: table) { return .failure(ShortLinkRefusal(reason, field: "code")) }
        let configHosts = RedirectPolicy.configHosts(site: site)
        for (name, field, value) in [
            ("iOS fallback", "iosFallback", link.iosFallback), ("Android fallback", "androidFallback", link.androidFallback),
            ("desktop fallback", "desktopFallback", link.desktopFallback), ("iPad fallback", "ipadFallback", link.fdl?.ipadFallback),
        ] {
            if let value, case let .failure(refusal) = RedirectPolicy.check(value, site: site, table: table, configHosts: configHosts) {
                return .failure(ShortLinkRefusal("the \(name) '\(value)' \(refusal.description)", field: field))
            }
        }
        if let image = link.previewImage, !isWebURL(image) {
            return .failure(ShortLinkRefusal(
                "the preview image '\(image)' is not an http(s) URL (http:// or https://, a host of A–Z a–z 0–9 . -, an optional :port, then no spaces or control characters)",
                field: "previewImage"))
        }
        let isWeb = WebURL.hasHTTPScheme(link.target)
        if isWeb {
            switch RedirectPolicy.check(link.target, site: site, table: table, configHosts: configHosts) {
            // The target's host is judged below (a route's site, allowedHosts); the URL itself here.
            case let .failure(refusal) where refusal.kind != .host:
                return .failure(ShortLinkRefusal("the target '\(link.target)' \(refusal.description)"))
            default: break
            }
        }
        switch table.resolve(link.target) {
        case let .matched(m) where m.site == site.name:
            return .success((.route(m.route), m))
        case let .matched(m):
            return .failure(ShortLinkRefusal("the target '\(link.target)' belongs to site '\(m.site)', not '\(site.name)'; add the link there (--site \(m.site))"))
        case let .noRoute(s) where s == site.name:
            return isWeb
                ? .success((.webPage, nil))
                : .failure(ShortLinkRefusal("the target '\(link.target)' uses an app scheme but no route of site '\(site.name)' accepts it"))
        case let .excluded(s, _, pattern) where s == site.name:
            return isWeb
                ? .success((.webPage, nil))
                : .failure(ShortLinkRefusal("the target '\(link.target)' is excluded by '\(pattern)'"))
        case .noRoute(let s), .excluded(let s, _, _):
            return .failure(ShortLinkRefusal("the target '\(link.target)' belongs to site '\(s)', not '\(site.name)'; add the link there (--site \(s))"))
        case let .unknownHost(host) where FDLLink.allows(host: host, site: site, table: table):
            return allowedHostMatch(link.target, site: site, table: table).map { .success((.route($0.route), $0)) } ?? .success((.webPage, nil))
        case let .unknownHost(host):
            return .failure(ShortLinkRefusal(
                "the target host '\(host)' is not a domain of site '\(site.name)' (\(site.config.domains.joined(separator: ", "))); short links lead only to the site's own domains, its shortLinks.allowedHosts and app schemes (no open redirects). If you own it, add it: sites[\(site.index)].shortLinks.allowedHosts: [\"\(host)\"]"))
        case let .unsupported(why):
            return .failure(ShortLinkRefusal("the target is not a link Linkwell can serve: \(why)"))
        }
    }
}

extension ShortLinkValidator {
    /// The route a target opens: the route table's match for a URL on the site's domains, or
    /// for a URL on one of its `shortLinks.allowedHosts` (the website, where FDL's `link=` often
    /// pointed) the match of the same path and query on the site's canonical host; nil: none.
    public static func match(_ target: String, site: CompiledSite, table: RouteTable) -> LinkMatch? {
        switch table.resolve(target) {
        case let .matched(m): return m.site == site.name ? m : nil
        case let .unknownHost(host) where FDLLink.allows(host: host, site: site, table: table):
            return allowedHostMatch(target, site: site, table: table)
        default: return nil
        }
    }

    static func allowedHostMatch(_ target: String, site: CompiledSite, table: RouteTable) -> LinkMatch? {
        guard let parts = URLParts(target),
              case let .matched(m) = table.resolve(site: site, path: parts.path.isEmpty ? "/" : parts.path, query: parts.query, fragment: parts.fragment)
        else { return nil }
        return m
    }
    /// The pattern ``isWebURL(_:)`` checks, as a regular expression (for the OpenAPI document).
    public static let webURLPattern = "^https?://[A-Za-z0-9.-]+(:[0-9]+)?([/?#][^\\u0000-\\u0020\\u007f]*)?$"

    /// An `http://` or `https://` URL with a host of `A–Z a–z 0–9 . -`, an optional `:port`, and
    /// after it (from `/`, `?` or `#`) no space or control character: what a browser can be sent to.
    public static func isWebURL(_ s: String) -> Bool {
        let rest: Substring
        if s.hasPrefix("https://") { rest = s.dropFirst(8) } else if s.hasPrefix("http://") { rest = s.dropFirst(7) } else { return false }
        let scalars = Array(rest.unicodeScalars)
        var i = 0
        while i < scalars.count, isHostScalar(scalars[i]) { i += 1 }
        if i == 0 { return false }
        if i < scalars.count, scalars[i] == ":" {
            let start = i + 1
            i = start
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1 }
            if i == start { return false }
        }
        if i == scalars.count { return true }
        guard ["/", "?", "#"].contains(scalars[i]) else { return false }
        return scalars[i...].allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }

    static func isHostScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "-": true
        default: false
        }
    }
}

/// Why a short link was refused (the whole sentence), and which field of the link is wrong.
public struct ShortLinkRefusal: Error, Equatable, CustomStringConvertible {
    public var description: String
    /// The field at fault, as the API and `links --json` name it: `site`, `code`, `target`,
    /// `iosFallback`, `androidFallback`, `desktopFallback`, `previewImage`.
    public var field: String
    public init(_ description: String, field: String = "target") {
        self.description = description
        self.field = field
    }
}
