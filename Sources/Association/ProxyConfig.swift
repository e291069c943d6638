// nginx and Caddy configs derived from the route table (`linkwell generate nginx|caddy`): per site,
// the association files, the ACME webroot and exactly the paths the routes and exclusions cover
// go to Linkwell; everything else goes to the team's website (or to Linkwell's not-found page).

import LinkRouting

/// Where a proxy sends one path pattern, in the three forms nginx knows.
public enum ProxyLocation: Sendable, Equatable {
    /// `location = /AI` — this path only.
    case exact(String)
    /// `location ^~ /post/drafts/` — every path that starts with this (no regex is tried after it).
    case prefix(String)
    /// `location ~ "^/post/[^/]+/?$"` — a case-sensitive regular expression (PCRE and RE2 agree on it).
    case regex(String)
}

/// The choices `linkwell generate nginx|caddy` leaves to the operator.
public struct ProxyConfigOptions: Sendable {
    /// `host:port` of `linkwell serve` (the config's first `server.listen`, else 127.0.0.1:8080).
    public var linkwellUpstream: String
    /// The team's existing website per site name (`""`: every site without its own), as
    /// `http://host:port` or `https://host`. A site without one sends unclaimed paths to Linkwell.
    public var websiteUpstreams: [String: String]
    /// Where certbot writes HTTP-01 challenges (`certbot certonly --webroot -w DIR`).
    public var acmeWebroot: String
    /// Where the certificates are: `DIR/<first domain>/fullchain.pem` and `privkey.pem`.
    public var certificateDirectory: String
    /// HTTP only, no certificate needed: the first certbot run.
    public var bootstrap: Bool
    /// Linkwell's own static files the landing pages link (`/static/linkwell.css`); a path
    /// ending in `/` is a prefix (`/static/og/`, the generated preview cards).
    public var assetPaths: [String]
    /// The command that regenerates the file, for its header.
    public var command: String

    public init(
        linkwellUpstream: String = "127.0.0.1:8080", websiteUpstreams: [String: String] = [:],
        acmeWebroot: String = "/var/www/letsencrypt", certificateDirectory: String = "/etc/letsencrypt/live",
        bootstrap: Bool = false, assetPaths: [String] = [], command: String = "linkwell generate"
    ) {
        self.linkwellUpstream = linkwellUpstream
        self.websiteUpstreams = websiteUpstreams
        self.acmeWebroot = acmeWebroot
        self.certificateDirectory = certificateDirectory
        self.bootstrap = bootstrap
        self.assetPaths = assetPaths
        self.command = command
    }

    /// The website upstream of a site, if any.
    public func website(for site: CompiledSite) -> String? { websiteUpstreams[site.name] ?? websiteUpstreams[""] }
}

/// Compiles route tables into nginx and Caddy configurations.
public enum ProxyConfig {
    /// The ACME HTTP-01 challenge prefix, served from the webroot.
    public static let acmePrefix = "/.well-known/acme-challenge/"

    /// The nginx locations that match exactly the paths `pattern` matches (one trailing slash is
    /// insignificant, as in the route table).
    public static func locations(for pattern: PathPattern) -> [ProxyLocation] {
        if pattern.segments.isEmpty { return [.exact("/")] }
        var literals: [String] = []
        for segment in pattern.segments {
            guard case let .literal(l) = segment else { break }
            literals.append(PercentEncoding.decode(l))
        }
        let base = "/" + literals.joined(separator: "/")
        if literals.count == pattern.segments.count { return [.exact(base), .exact(base + "/")] }
        if literals.count == pattern.segments.count - 1, pattern.hasRest {
            return literals.isEmpty ? [.prefix("/")] : [.exact(base), .prefix(base + "/")]
        }
        return [.regex(regex(for: pattern))]
    }

    /// An anchored, case-sensitive regular expression for the decoded path.
    public static func regex(for pattern: PathPattern) -> String {
        var out = "^"
        for segment in pattern.segments {
            switch segment {
            case let .literal(l):
                out += "/" + escapeRegex(PercentEncoding.decode(l))
            case let .param(_, prefix, suffix, oneOf):
                let value = oneOf.map { "(?:" + $0.map(escapeRegex).joined(separator: "|") + ")" } ?? "[^/]+"
                out += "/" + escapeRegex(PercentEncoding.decode(prefix)) + value + escapeRegex(PercentEncoding.decode(suffix))
            case .rest:
                out += "(?:/.*)?"
            }
        }
        if case .rest = pattern.segments.last { return out + "$" }
        return (pattern.segments.isEmpty ? out + "/" : out + "/?") + "$"
    }

    /// Backslash before every character PCRE or RE2 treats specially.
    public static func escapeRegex(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\.^$|?*+()[]{}".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// The path patterns of a site that go to Linkwell, each with the label it gets in comments.
    static func claimed(_ site: CompiledSite) -> [(label: String, pattern: PathPattern)] {
        site.entries.map { entry in
            (entry.isRoute ? "\(entry.label): \(entry.pattern.source)" : entry.label, entry.pattern)
        }
    }

    /// The domains of a site as host names for the proxy. `*.example.com` also covers
    /// `example.com` (as in the AASA): nginx writes both as `.example.com`, Caddy lists both.
    static func serverNames(_ site: CompiledSite, nginx: Bool) -> [String] {
        let domains = site.config.domains.map { $0.lowercased() }
        let wildcardRoots = Set(domains.filter { $0.hasPrefix("*.") }.map { String($0.dropFirst(2)) })
        var out: [String] = []
        for d in domains {
            if d.hasPrefix("*.") {
                out += nginx ? [String(d.dropFirst())] : [String(d.dropFirst(2)), d]
            } else if !(nginx && wildcardRoots.contains(d)) {
                out.append(d)
            }
        }
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }

    /// The certificate name: the first exact domain (certbot's default `--cert-name`).
    static func certificateName(_ site: CompiledSite) -> String {
        site.exactDomains.first ?? site.canonicalHost
    }

    /// The response header Linkwell's not-found page carries: "this path is no link of mine", for a
    /// proxy that then asks the website.
    public static let missHeader = "X-Linkwell-Miss"

    /// A path that could be a short code at the root: one segment of the code alphabet
    /// (A-Z, a-z, 0-9, `-`, `_`), so `/robots.txt` or `/about/team` never make the detour.
    public static let codeRegex = "^/[A-Za-z0-9_-]+$"

    /// The site's short-link prefix (`/`: codes at the root).
    static func shortLinkPrefix(_ site: CompiledSite) -> String {
        site.config.shortLinks?.effectivePrefix ?? "/"
    }

    /// Why a website upstream is not usable, or nil.
    public static func problem(withUpstream url: String) -> String? {
        guard let parts = URLParts(url), parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty else {
            return "'\(url)' is not an http:// or https:// URL (write http://127.0.0.1:3000 or https://origin.example.com)"
        }
        if !(parts.path.isEmpty || parts.path == "/") || parts.query != nil {
            return "'\(url)' has a path or query; a website upstream is scheme, host and port only"
        }
        return nil
    }

    /// `http://host:port` without a trailing slash.
    static func origin(_ url: String) -> String {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }

    /// One warning per site whose `website` is on one of its own link domains when no website
    /// upstream is given: the proxy would send the whole domain to Linkwell, whose not-found page
    /// then links back to itself.
    public static func websiteLoopWarnings(_ table: RouteTable, options: ProxyConfigOptions) -> [Diagnostic] {
        table.sites.compactMap { site in
            guard options.website(for: site) == nil, let website = site.config.website, let parts = URLParts(website),
                site.serves(host: parts.host.lowercased())
            else { return nil }
            return Diagnostic(
                .warning, at: "sites[\(site.index)].website", value: website,
                "site '\(site.name)' has its website on one of its own link domains (\(parts.host)); a proxy that sends the whole domain to Linkwell makes the not-found page link back to itself",
                fix: "put Linkwell behind a proxy that sends only the link paths to it: linkwell generate nginx --website-upstream \(site.name)=http://127.0.0.1:3000 (your website's origin); pass the same --website-upstream to validate to silence this")
        }
    }

    // MARK: - nginx

    /// A token nginx reads back as `s` (quoted when it has to be).
    static func nginxString(_ s: String) -> String {
        let plain = !s.isEmpty && s.allSatisfy { !" \t\"'\\;{}$#".contains($0) && !$0.isNewline }
        if plain { return s }
        var out = "\""
        for c in s {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }

    static func nginxLocation(_ l: ProxyLocation) -> String {
        switch l {
        case let .exact(p): return "location = \(nginxString(p))"
        case let .prefix(p): return "location ^~ \(nginxString(p))"
        case let .regex(r): return "location ~ \(nginxString(r))"
        }
    }

    /// The nginx configuration (an `http {}` include: /etc/nginx/conf.d/linkwell.conf).
    public static func nginx(_ sites: [CompiledSite], options: ProxyConfigOptions) -> String {
        var o = """
            # Generated by `\(options.command)`.
            # Do not edit: change the route table and regenerate (a test fails when this file drifts).
            # Goes in the http {} block: /etc/nginx/conf.d/linkwell.conf. Reference: docs/guide/deploy.md.
            \(options.bootstrap ? "#\n# BOOTSTRAP: plain HTTP only, needs no certificate. Run certbot (docs/guide/deploy.md), then\n# replace this file with the output of the same command without --bootstrap.\n" : "")
            upstream linkwell {
                server \(options.linkwellUpstream);
                keepalive 32;
                keepalive_timeout 60s;
            }

            # RFC 7239 Forwarded needs IPv6 addresses quoted and bracketed.
            map $remote_addr $linkwell_forwarded_for {
                ~^[0-9.]+$        "for=$remote_addr";
                ~^[0-9A-Fa-f:.]+$ "for=\\"[$remote_addr]\\"";
                default           "for=unknown";
            }

            """
        for site in sites {
            let names = serverNames(site, nginx: true).joined(separator: " ")
            // A `/*` exclusion claims every path: nothing is left for a website.
            let catchAll = claimed(site).contains { locations(for: $0.pattern) == [.prefix("/")] }
            let website = catchAll ? nil : options.website(for: site)
            o += "\n# MARK: site '\(site.name)'\n"
            o += "server {\n    listen 80;\n    listen [::]:80;\n    server_name \(names);\n"
            o += nginxProxyHeaders
            o += nginxACME(options)
            o += nginxAssociation
            if options.bootstrap {
                o += nginxClaimed(site, options)
                o += nginxLinks(site, website)
                o += nginxDefault(website)
            } else {
                o += """

                        # Everything else moves to HTTPS.
                        location / {
                            return 301 https://$host$request_uri;
                        }

                    """
            }
            o += "}\n"
            if options.bootstrap { continue }
            let cert = options.certificateDirectory + "/" + certificateName(site)
            o += "\nserver {\n    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n    server_name \(names);\n"
            if site.config.domains.contains(where: { $0.hasPrefix("*.") }) {
                o += "    # A wildcard domain needs a wildcard certificate (DNS-01: certbot --preferred-challenges dns).\n"
            }
            o += "    ssl_certificate     \(nginxString(cert + "/fullchain.pem"));  # the FULL chain\n"
            o += "    ssl_certificate_key \(nginxString(cert + "/privkey.pem"));\n"
            o += "    ssl_protocols TLSv1.2 TLSv1.3;\n"
            o += nginxProxyHeaders
            o += nginxAssociation
            o += nginxClaimed(site, options)
            o += nginxLinks(site, website)
            o += nginxDefault(website)
            o += "}\n"
        }
        return o
    }

    static let nginxProxyHeaders = """

            # Shared by every proxy_pass below. These REPLACE what the client sent, so it cannot spoof
            # its address; Linkwell believes them only from server.trustedProxies (loopback by default).
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host              $host;
            proxy_set_header X-Forwarded-For   $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host  $host;
            proxy_set_header Forwarded         "$linkwell_forwarded_for;proto=$scheme;host=$host";
            # Linkwell reads no cookies: its locations clear $linkwell_cookie, so the website's
            # (often many KB of analytics cookies) reach only the website (docs/reference/limits.md).
            set $linkwell_cookie $http_cookie;
            proxy_set_header Cookie            $linkwell_cookie;
            proxy_redirect off;
            proxy_connect_timeout 5s;
            proxy_read_timeout 30s;

        """

    static func nginxACME(_ options: ProxyConfigOptions) -> String {
        """

            # ACME HTTP-01 challenges from the webroot certbot writes to (certbot --webroot -w DIR).
            location ^~ \(nginxString(acmePrefix)) {
                root \(nginxString(options.acmeWebroot));
                default_type text/plain;
                try_files $uri =404;
            }

        """
    }

    /// Never redirected, never cached by nginx: Linkwell sets Content-Type, ETag and Cache-Control.
    static let nginxAssociation = """

            # The association files (and the rest of /.well-known/): Linkwell's, never redirected —
            # Apple's CDN and Android's verifier treat a redirect as "no file". Linkwell sets
            # Content-Type: application/json, ETag and Cache-Control; nothing here overrides them.
            location ^~ /.well-known/ {
                set $linkwell_cookie "";
                proxy_pass http://linkwell;
            }
            location = /apple-app-site-association {
                set $linkwell_cookie "";
                proxy_pass http://linkwell;
            }

        """

    static func nginxClaimed(_ site: CompiledSite, _ options: ProxyConfigOptions) -> String {
        var o = "\n    # The paths the route table claims: the landing pages (and the exclusions' pages).\n"
        var seen = Set<ProxyLocation>()
        for (label, pattern) in claimed(site) {
            o += "    # \(label)\n"
            for l in locations(for: pattern) where seen.insert(l).inserted && l != .prefix("/") {
                o += "    \(nginxLocation(l)) {\n        set $linkwell_cookie \"\";\n        proxy_pass http://linkwell;\n    }\n"
            }
        }
        if !options.assetPaths.isEmpty { o += "    # Linkwell's static files the landing pages link.\n" }
        for path in options.assetPaths {
            let location: ProxyLocation = path.hasSuffix("/") ? .prefix(path) : .exact(path)
            guard seen.insert(location).inserted else { continue }
            o += "    \(nginxLocation(location)) {\n        set $linkwell_cookie \"\";\n        proxy_pass http://linkwell;\n    }\n"
        }
        return o
    }

    /// The short and long links of a site that shares its domain with a website: the prefix's paths
    /// to Linkwell; at the root, a long link (`/?link=…`) by its query, and every path that could be
    /// a code to Linkwell first, falling back to the website when Linkwell's 404 says "no link here".
    static func nginxLinks(_ site: CompiledSite, _ website: String?) -> String {
        guard let website else { return "" }
        let prefix = shortLinkPrefix(site)
        let upstream = nginxString(origin(website))
        let tls = nginxWebsiteTLS(website)
        if prefix != "/" {
            return """

                    # Short links (\(prefix)CODE) and long links (\(prefix)?link=…): Linkwell's, whatever the code.
                    location ^~ \(nginxString(prefix)) {
                        set $linkwell_cookie "";
                        proxy_pass http://linkwell;
                    }
                    location = \(nginxString(String(prefix.dropLast()))) {
                        set $linkwell_cookie "";
                        proxy_pass http://linkwell;
                    }

                """
        }
        let home = site.entries.contains { locations(for: $0.pattern).contains(.exact("/")) }
        var o = ""
        if !home {
            o += """

                    # FDL long links (/?link=…) by their query: Linkwell; the home page without one: the website.
                    location = / {
                        error_page 418 = @linkwell;
                        if ($args ~ "(^|&)link(=|&|$)") {
                            return 418;
                        }
                        proxy_pass \(upstream);
                \(tls)    }
                    location @linkwell {
                        set $linkwell_cookie "";
                        proxy_pass http://linkwell;
                    }

                """
        }
        o += """

                # Short links at the root (/CODE): Linkwell answers first, so a code created a second ago
                # works without regenerating this file. Its 404 — on these paths only its not-found
                # page, marked \(missHeader) — falls back to the website, whose own 404 page answers
                # real misses.
                # Only GET and HEAD can be links: the website gets every other method directly.
                location ~ \(nginxString(codeRegex)) {
                    error_page 404 418 = @website;
                    if ($request_method !~ ^(GET|HEAD)$) {
                        return 418;
                    }
                    proxy_intercept_errors on;
                    set $linkwell_cookie "";
                    proxy_pass http://linkwell;
                }
                location @website {
                    set $linkwell_cookie $http_cookie;
                    proxy_pass \(upstream);
            \(tls)    }

            """
        return o
    }

    static func nginxWebsiteTLS(_ website: String) -> String {
        website.lowercased().hasPrefix("https:") ? "        proxy_ssl_server_name on;\n" : ""
    }

    static func nginxDefault(_ website: String?) -> String {
        guard let website else {
            return """

                    # Everything else: no website upstream (--website-upstream), so Linkwell's not-found page.
                    location / {
                        set $linkwell_cookie "";
                        proxy_pass http://linkwell;
                    }

                """
        }
        let tls = nginxWebsiteTLS(website)
        return """

                # Everything else: the website.
                location / {
                    proxy_pass \(nginxString(origin(website)));
            \(tls)    }

            """
    }
}

extension ProxyLocation: Hashable {}

// MARK: - Caddy

extension ProxyConfig {
    /// A Caddyfile token for `s` (backquoted: no escapes inside).
    static func caddyString(_ s: String) -> String {
        let plain = !s.isEmpty && s.allSatisfy { !" \t\"'`\\{}#".contains($0) && !$0.isNewline }
        if plain { return s }
        return s.contains("`") ? "\"" + s.replacingBackslashes() + "\"" : "`" + s + "`"
    }

    /// One RE2 expression for every path the site claims (Caddy's `path` matcher is case-insensitive,
    /// the route table is not).
    static func caddyRegex(_ site: CompiledSite, _ options: ProxyConfigOptions) -> String? {
        var parts: [String] = []
        for (_, pattern) in claimed(site) {
            let r = regex(for: pattern)
            parts.append(String(r.dropFirst().dropLast()))
        }
        for path in options.assetPaths { parts.append(escapeRegex(path) + (path.hasSuffix("/") ? ".*" : "")) }
        guard !parts.isEmpty else { return nil }
        var seen = Set<String>()
        return "^(?:" + parts.filter { seen.insert($0).inserted }.joined(separator: "|") + ")$"
    }

    /// The short and long links of a site that shares its domain with a website (as `nginxLinks`).
    static func caddyLinks(_ site: CompiledSite, website: String, _ options: ProxyConfigOptions) -> String {
        let prefix = shortLinkPrefix(site)
        if prefix != "/" {
            let regex = "^" + escapeRegex(String(prefix.dropLast())) + "(?:/.*)?$"
            return "\t# Short links (\(prefix)CODE) and long links (\(prefix)?link=…): Linkwell's, whatever the code.\n"
                + "\t@links path_regexp links \(caddyString(regex))\n\thandle @links {\n\t\timport linkwell\n\t}\n"
        }
        return """
            \t# FDL long links (/?link=…) by their query: Linkwell.
            \t@longlinks {
            \t\tpath /
            \t\tquery link=*
            \t}
            \thandle @longlinks {
            \t\timport linkwell
            \t}
            \t# Short links at the root (/CODE): Linkwell answers first, so a code created a second ago
            \t# works without regenerating this file. Its 404 for a path that is no link (marked
            \t# \(missHeader)) goes to the website, whose own 404 page answers real misses.
            \t# Only GET and HEAD can be links: the website gets every other method directly.
            \t@codes {
            \t\tmethod GET HEAD
            \t\tpath_regexp codes \(caddyString(codeRegex))
            \t}
            \thandle @codes {
            \t\treverse_proxy \(options.linkwellUpstream) {
            \t\t\theader_up -Forwarded
            \t\t\theader_up -Cookie
            \t\t\t@miss header \(missHeader) *
            \t\t\thandle_response @miss {
            \t\t\t\treverse_proxy \(caddyString(origin(website)))
            \t\t\t}
            \t\t}
            \t}

            """
    }

    /// The Caddyfile. Caddy obtains and renews the certificates itself (automatic HTTPS).
    public static func caddy(_ sites: [CompiledSite], options: ProxyConfigOptions) -> String {
        var o = """
            # Generated by `\(options.command)`.
            # Do not edit: change the route table and regenerate (a test fails when this file drifts).
            # /etc/caddy/Caddyfile. Caddy obtains and renews the certificates (automatic HTTPS).
            # Reference: docs/guide/deploy.md.
            {
            \t# Caddy's automatic http->https redirect would also redirect the association files;
            \t# the http:// sites below redirect everything else instead.
            \tauto_https disable_redirects
            \t# email ops@example.com
            }

            # The proxy settings every site below shares.
            (linkwell) {
            \treverse_proxy \(options.linkwellUpstream) {
            \t\t# Caddy sets X-Forwarded-For/-Proto/-Host from the connection itself. Drop a client's
            \t\t# RFC 7239 Forwarded header: Linkwell trusts Caddy's loopback address.
            \t\theader_up -Forwarded
            \t\t# Linkwell reads no cookies: do not forward the website's (docs/reference/limits.md).
            \t\theader_up -Cookie
            \t\ttransport http {
            \t\t\tkeepalive 90s
            \t\t\tkeepalive_idle_conns 32
            \t\t}
            \t}
            }

            """
        for site in sites {
            let names = serverNames(site, nginx: false)
            let website = options.website(for: site)
            let regex = caddyRegex(site, options)
            o += "\n# MARK: site '\(site.name)'\n"
            o += names.map { "http://" + $0 }.joined(separator: ", ") + " {\n"
            o += "\t# ACME HTTP-01 challenges from the webroot (Caddy answers its own challenges first).\n"
            o += "\thandle \(acmePrefix)* {\n\t\troot * \(caddyString(options.acmeWebroot))\n\t\tfile_server\n\t}\n"
            o += "\t# The association files: never redirected (a redirect is \"no file\" to Apple and Google).\n"
            o += "\t@association path /.well-known/* /apple-app-site-association\n"
            o += "\thandle @association {\n\t\timport linkwell\n\t}\n"
            o += "\t# Everything else moves to HTTPS.\n"
            o += "\thandle {\n\t\tredir https://{host}{uri} 308\n\t}\n}\n\n"
            if names.contains(where: { $0.hasPrefix("*.") }) {
                o += "# A wildcard domain needs a DNS-01 provider (tls { dns ... }) or on-demand TLS.\n"
            }
            o += names.joined(separator: ", ") + " {\n"
            o += "\t@association path /.well-known/* /apple-app-site-association\n"
            o += "\thandle @association {\n\t\timport linkwell\n\t}\n"
            if let regex {
                o += "\t# The paths the route table claims:\n"
                for (label, _) in claimed(site) { o += "\t#   \(label)\n" }
                o += "\t@routes path_regexp routes \(caddyString(regex))\n"
                o += "\thandle @routes {\n\t\timport linkwell\n\t}\n"
            }
            if let website {
                o += caddyLinks(site, website: website, options)
                o += "\t# Everything else: the website.\n\thandle {\n\t\treverse_proxy \(caddyString(origin(website)))\n\t}\n"
            } else {
                o += "\t# Everything else: no website upstream (--website-upstream), so Linkwell's not-found page.\n"
                o += "\thandle {\n\t\timport linkwell\n\t}\n"
            }
            o += "}\n"
        }
        return o
    }
}

extension String {
    fileprivate func replacingBackslashes() -> String {
        var out = ""
        for c in self {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
