// Where a browser may be sent from a site: the one rule for link targets, fallbacks, long-link
// parameters and imported rows when they are written or read, and for every redirect when it is
// sent. URLs are read as browsers read them (WebURL) and a redirect carries the parsed URL's
// serialization, never the text it was given.

import LinkRouting

/// The hosts a site may redirect a browser to, and the check of one URL against them.
public enum RedirectPolicy {
    /// The app stores a fallback may lead to without being listed.
    public static let storeHosts: Set<String> = ["apps.apple.com", "itunes.apple.com", "play.google.com"]

    /// Why a URL may not be a redirect target, naming the fix.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        /// What is wrong: the URL itself, or only where it leads.
        public enum Kind: Sendable, Equatable { case notWeb, ambiguous, host, credentials }
        public var kind: Kind
        public var message: String
        public var fix: String
        /// The host a browser would have gone to, when the URL has one.
        public var host: String?
        public var description: String { "\(message); \(fix)" }
    }

    /// The hosts of the URLs the site's own config writes (`website`, `notFound.redirect`,
    /// `fallback.web` of the site and its routes): the owner's, so allowed.
    public static func configHosts(site: CompiledSite) -> Set<String> {
        var urls = [site.config.website, site.config.notFound?.redirect, site.config.fallback?.web]
        for entry in site.routes { urls.append(entry.route?.fallback?.web) }
        var hosts: Set<String> = []
        for case let url? in urls {
            if let parts = URLParts(url), !parts.host.isEmpty { hosts.insert(parts.host) }
        }
        return hosts
    }

    /// True when a browser may be sent to `host` from `site`: its domains, its
    /// `shortLinks.allowedHosts`, the app stores, or a host its config already links to.
    public static func allows(host: String, site: CompiledSite, table: RouteTable, configHosts: Set<String>? = nil) -> Bool {
        let host = host.hasSuffix(".") ? String(host.dropLast()) : host
        if FDLLink.allows(host: host, site: site, table: table) || storeHosts.contains(host) { return true }
        return (configHosts ?? Self.configHosts(site: site)).contains(host)
    }

    /// `text` read as a browser reads it, when a browser may be sent there from `site`: an
    /// http(s) URL whose host the site allows, without user info. A refusal's message follows
    /// the URL in a sentence: "'…' \(message); \(fix)".
    public static func check(_ text: String, site: CompiledSite, table: RouteTable, configHosts: Set<String>? = nil) -> Result<WebURL, Refusal> {
        guard WebURL.hasSpecialScheme(text), let url = WebURL(text), url.scheme == "https" || url.scheme == "http" else {
            return .failure(Refusal(kind: .notWeb, message: "is not an http(s) URL", fix: "write an absolute URL starting with https://"))
        }
        guard url.isReadAsWritten(text) else {
            return .failure(Refusal(kind: .ambiguous, message: "is read by browsers as a URL on '\(url.host)' (a '\\' or an '@' in the address)",
                                    fix: "write the URL plainly, as https://host/path", host: url.host))
        }
        guard allows(host: url.host, site: site, table: table, configHosts: configHosts) else {
            return .failure(Refusal(
                kind: .host, message: "leads to the host '\(url.host)', which is neither a domain of site '\(site.name)', an app store, nor one of its shortLinks.allowedHosts",
                fix: "if you own it, add it to the config: sites[\(site.index)].shortLinks.allowedHosts: [\"\(url.host)\"]", host: url.host))
        }
        guard !url.hasCredentials else {
            return .failure(Refusal(kind: .credentials, message: "has a user name before the host ('…@\(url.host)'); browsers hide it and phishing links use it",
                                    fix: "remove everything between :// and @", host: url.host))
        }
        return .success(url)
    }
}
