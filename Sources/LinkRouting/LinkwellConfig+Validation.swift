// Everything checkable about a config before anything is served. Each finding names the config
// path, the bad value and the fix. Checks that need generated files (size, platform
// equivalence) live in the Association module's ConfigValidator, which calls this first.

import Foundation

extension LinkwellConfig {
    /// Structural and semantic checks; compiles the route table as part of it.
    public func validate() -> [Diagnostic] {
        validate(reusing: { _ in nil }).diagnostics
    }

    /// As ``validate()``, taking a site's own findings from `previous` instead of checking the
    /// site again when it returns them (a reload passes the findings of an equal site at the same
    /// position: the checks read only the site and its position, so the result is the same).
    /// Also returns each site's own findings, to be kept for the next reload.
    /// Within one config path the order is that of ``validate()``: a site's own finding on a
    /// domain or scheme comes before the cross-site one on it (a duplicate).
    public func validate(reusing previous: (Int) -> [Diagnostic]?) -> (diagnostics: [Diagnostic], perSite: [[Diagnostic]]) {
        var out: [Diagnostic] = []
        var perSite: [[Diagnostic]] = []
        perSite.reserveCapacity(sites.count)
        if sites.isEmpty {
            out.append(Diagnostic(.error, at: "sites", "the config has no sites", fix: "add at least one site with its domains, apps and routes"))
        }
        var domainOwner: [String: Int] = [:]
        var schemeOwner: [String: Int] = [:]
        var defaults: [Int] = []
        for (s, site) in sites.enumerated() {
            let own = previous(s) ?? validateSite(site, index: s)
            perSite.append(own)
            out += own
            // What needs the other sites: a domain or scheme listed by an earlier site.
            let at = "sites[\(s)]"
            if site.isDefault == true { defaults.append(s) }
            for (d, domain) in site.domains.enumerated() {
                let key = domain.lowercased()
                if let other = domainOwner[key], other != s {
                    out.append(
                        Diagnostic(
                            .error, at: "\(at).domains[\(d)]", value: domain,
                            "domain '\(domain)' is also listed by sites[\(other)]", fix: "a domain belongs to one site; remove one of them"))
                } else {
                    domainOwner[key] = s
                }
            }
            let schemes = (site.ios ?? []).enumerated().flatMap { i, app in (app.schemes ?? []).enumerated().map { ("\(at).ios[\(i)].schemes[\($0)]", $1) } }
                + (site.android ?? []).enumerated().flatMap { i, app in (app.schemes ?? []).enumerated().map { ("\(at).android[\(i)].schemes[\($0)]", $1) } }
            for (path, scheme) in schemes where LinkwellConfig.isScheme(scheme) {
                let lower = scheme.lowercased()
                if let other = schemeOwner[lower], other != s {
                    out.append(
                        Diagnostic(
                            .error, at: path, value: scheme, "scheme '\(scheme)' is also used by sites[\(other)]; a custom-scheme link could not tell which site it belongs to",
                            fix: "give each site's apps their own scheme"))
                } else {
                    schemeOwner[lower] = s
                }
            }
        }
        if let server { validateServer(server, into: &out) }
        if let storage { validateStorage(storage, into: &out) }
        if let clicks = storage?.clicks { validateClicks(clicks, into: &out) }
        if defaults.count > 1 {
            out.append(
                Diagnostic(
                    .error, at: "sites[\(defaults[1])].default", "more than one site is marked default (sites \(defaults.map(String.init).joined(separator: ", ")))",
                    fix: "mark one site \"default: true\""))
        }
        return (out, perSite)
    }

    /// The checks that read only one site and its position (`index` names it in the paths):
    /// everything but the domains and schemes other sites also list.
    public func validateSite(_ site: SiteConfig, index s: Int) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let at = "sites[\(s)]"
        if site.domains.isEmpty {
            out.append(Diagnostic(.error, at: "\(at).domains", "site has no domains", fix: "list the domains the apps' entitlements name, e.g. [\"example.com\"]"))
        }
        for (d, domain) in site.domains.enumerated() {
            if let problem = LinkwellConfig.domainProblem(domain) {
                out.append(Diagnostic(.error, at: "\(at).domains[\(d)]", value: domain, "domain '\(domain)' \(problem.0)", fix: problem.1))
            }
        }
        for (i, app) in (site.ios ?? []).enumerated() {
            validateIOS(app, at: "\(at).ios[\(i)]", into: &out)
            for (k, scheme) in (app.schemes ?? []).enumerated() {
                LinkwellConfig.checkScheme(scheme, at: "\(at).ios[\(i)].schemes[\(k)]", into: &out)
            }
        }
        for (i, app) in (site.android ?? []).enumerated() {
            validateAndroid(app, at: "\(at).android[\(i)]", into: &out)
            for (k, scheme) in (app.schemes ?? []).enumerated() {
                LinkwellConfig.checkScheme(scheme, at: "\(at).android[\(i)].schemes[\(k)]", into: &out)
            }
        }
        if (site.ios ?? []).isEmpty && (site.android ?? []).isEmpty {
            out.append(Diagnostic(.error, at: at, "site '\(site.name ?? site.domains.first ?? "?")' has no apps", fix: "add an 'ios' or 'android' app"))
        }
        // Explicit `id`s must be unique; a bundle ID equal to a package name is fine (a
        // route naming it means both apps).
        var appRefs: [String: String] = [:]
        let explicit = (site.ios ?? []).enumerated().compactMap { i, a in a.id.map { ($0, "\(at).ios[\(i)]") } }
            + (site.android ?? []).enumerated().compactMap { i, a in a.id.map { ($0, "\(at).android[\(i)]") } }
        for (id, where_) in explicit {
            if let prev = appRefs[id] {
                out.append(Diagnostic(.error, at: "\(where_).id", value: id, "app id '\(id)' is used twice (also \(prev))", fix: "give each app its own 'id'"))
            }
            appRefs[id] = where_
        }
        for (field, url) in [("website", site.website), ("notFound.redirect", site.notFound?.redirect)] {
            if let url, !LinkwellConfig.isHTTPURL(url) {
                out.append(Diagnostic(.error, at: "\(at).\(field)", value: url, "'\(url)' is not an absolute http(s) URL", fix: "write it as https://host/path"))
            }
        }
        validateRoutes(site, at: at, into: &out)
        if let short = site.shortLinks { validateShortLinks(short, at: "\(at).shortLinks", into: &out) }
        if let ios = site.deferredLinks?.ios, ios != DeferredLinksConfig.clipboard {
            out.append(Diagnostic(.error, at: "\(at).deferredLinks.ios", value: ios,
                                  "deferredLinks.ios is '\(ios)'; the one method is \"clipboard\" (the App Store button copies the link, the app reads it at its first launch)",
                                  fix: "write deferredLinks: { ios: \"clipboard\" }, or remove deferredLinks to keep landing pages without any script"))
        }
        return out
    }

    // MARK: Server

    /// The numeric `server` keys. `listen`, `admin` and `trustedProxies` are checked by
    /// LinkServer's `ServerConfiguration`, with the parsers the server uses (they live in
    /// MicroHTTP, which this library does not import).
    func validateServer(_ server: ServerSettings, into out: inout [Diagnostic]) {
        let positive: [(String, Int?)] = [
            ("threads", server.threads), ("connectionLimit", server.connectionLimit),
            ("connectionTimeoutSeconds", server.connectionTimeoutSeconds), ("requestHeaderMemoryBytes", server.requestHeaderMemoryBytes),
            ("adminConnectionLimit", server.adminConnectionLimit),
        ]
        for (name, value) in positive {
            if let value, value < 1 {
                out.append(Diagnostic(.error, at: "server.\(name)", value: String(value), "server.\(name) must be at least 1", fix: "remove it to use the default"))
            }
        }
        if let v = server.perIPConnectionLimit, v < 0 {
            out.append(Diagnostic(.error, at: "server.perIPConnectionLimit", value: String(v), "server.perIPConnectionLimit cannot be negative", fix: "0 means no per-address limit"))
        }
        if let v = server.adminPerIPConnectionLimit, v < 0 {
            out.append(Diagnostic(.error, at: "server.adminPerIPConnectionLimit", value: String(v), "server.adminPerIPConnectionLimit cannot be negative", fix: "0 means no per-address limit"))
        }
        for (name, value) in [("adminBodyBytes", server.adminBodyBytes), ("adminBulkBodyBytes", server.adminBulkBodyBytes)] {
            if let value, !(1024...(1 << 30)).contains(value) {
                out.append(Diagnostic(.error, at: "server.\(name)", value: String(value), "server.\(name) must be between 1024 and 1073741824 bytes", fix: "remove it to use the default (\(name == "adminBodyBytes" ? "1048576, 1 MiB" : "16777216, 16 MiB"))"))
            }
        }
        if let m = server.requestHeaderMemoryBytes, m >= 1, m < 4096 {
            out.append(Diagnostic(.error, at: "server.requestHeaderMemoryBytes", value: String(m), "\(m) bytes cannot hold a browser's request headers", fix: "use at least 4096, or remove it: by default the pool is sized for server.requestHeadBytes"))
        }
        if let b = server.requestHeadBytes, !(1024...65536).contains(b) {
            out.append(Diagnostic(.error, at: "server.requestHeadBytes", value: String(b), "server.requestHeadBytes must be between 1024 and 65536", fix: "remove it to use the default 16384 (what an iPhone with 80 analytics cookies needs)"))
        }
        if let m = server.requestHeaderMemoryBytes, case let b = server.requestHeadBytes ?? 16384, m >= 4096, m < b + 4096 {
            out.append(Diagnostic(.error, at: "server.requestHeaderMemoryBytes", value: String(m), "a pool of \(m) bytes cannot hold a request head of server.requestHeadBytes (\(b)) plus the response headers", fix: "remove server.requestHeaderMemoryBytes (it is sized from requestHeadBytes by default) or make it at least \(b + 4096)"))
        }
        if let t = server.requestHeadTimeoutSeconds, t < 0 || !t.isFinite || t > 3600 {
            out.append(Diagnostic(.error, at: "server.requestHeadTimeoutSeconds", value: String(t), "server.requestHeadTimeoutSeconds must be between 0 and 3600", fix: "use a number of seconds, e.g. 10 (the default); 0 turns the deadline off"))
        }
        if let d = server.shutdownDeadlineSeconds, d < 0 {
            out.append(Diagnostic(.error, at: "server.shutdownDeadlineSeconds", value: String(d), "a deadline cannot be negative", fix: "use a number of seconds, e.g. 10"))
        }
    }

    // MARK: Apps

    func validateIOS(_ app: IOSAppConfig, at: String, into out: inout [Diagnostic]) {
        let team = app.teamID
        if team.count != 10 || !team.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
            let upper = team.uppercased()
            let fix = (upper.count == 10 && upper.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) })
                ? "write it in capitals: \"\(upper)\""
                : "copy the 10-character Team ID (A–Z, 0–9) from developer.apple.com → Membership details; '\(team)' has \(team.count) characters"
            out.append(Diagnostic(.error, at: "\(at).teamID", value: team, "team ID '\(team)' is not 10 characters of A–Z and 0–9", fix: fix))
        }
        if !LinkwellConfig.isReverseDNS(app.bundleID, allowHyphen: true) {
            out.append(
                Diagnostic(
                    .error, at: "\(at).bundleID", value: app.bundleID, "bundle ID '\(app.bundleID)' is not a reverse-DNS identifier",
                    fix: "use the app's bundle identifier from Xcode, e.g. com.example.app (letters, digits, '-' and '.')"))
        }
        if let clip = app.appClipBundleID {
            if !LinkwellConfig.isReverseDNS(clip, allowHyphen: true) {
                out.append(Diagnostic(.error, at: "\(at).appClipBundleID", value: clip, "App Clip bundle ID '\(clip)' is not a reverse-DNS identifier", fix: "use the App Clip target's bundle identifier"))
            } else if !clip.hasPrefix(app.bundleID + ".") {
                out.append(
                    Diagnostic(
                        .warning, at: "\(at).appClipBundleID", value: clip, "App Clip bundle ID '\(clip)' does not start with '\(app.bundleID).'",
                        fix: "Xcode requires the clip's bundle ID to extend the app's, e.g. \(app.bundleID).Clip"))
            }
        }
        if let store = app.appStoreID, store.isEmpty || !store.allSatisfy({ $0.isASCII && $0.isNumber }) {
            let digits = store.filter { $0.isASCII && $0.isNumber }
            out.append(
                Diagnostic(
                    .error, at: "\(at).appStoreID", value: store, "App Store ID '\(store)' is not numeric",
                    fix: digits.isEmpty ? "use the number from the app's App Store URL (…/app/id123456789)" : "use only the digits: \"\(digits)\""))
        }
    }

    func validateAndroid(_ app: AndroidAppConfig, at: String, into out: inout [Diagnostic]) {
        if !LinkwellConfig.isReverseDNS(app.package, allowHyphen: false) || app.package.split(separator: ".").count < 2
            || app.package.split(separator: ".").contains(where: { !($0.first?.isLetter ?? false) })
        {
            out.append(
                Diagnostic(
                    .error, at: "\(at).package", value: app.package, "package name '\(app.package)' is not a valid Android application ID",
                    fix: "use applicationId from build.gradle: at least two segments, each starting with a letter (letters, digits, '_')"))
        }
        if app.fingerprints.isEmpty {
            out.append(
                Diagnostic(
                    .error, at: "\(at).fingerprints", "no signing-certificate fingerprint (Android rejects such a statement, and with it the whole file)",
                    fix: "add the SHA-256 of the app-signing key: Play Console → Setup → App integrity, or `keytool -list -v -keystore …`"))
        }
        for (i, fp) in app.fingerprints.enumerated() {
            switch LinkwellConfig.fingerprintProblem(fp) {
            case nil: break
            case let .fixable(corrected, problem):
                out.append(
                    Diagnostic(.error, at: "\(at).fingerprints[\(i)]", value: fp, "fingerprint \(problem); Android compares it verbatim and will not verify", fix: "write it as \"\(corrected)\""))
            case let .invalid(problem):
                out.append(
                    Diagnostic(
                        .error, at: "\(at).fingerprints[\(i)]", value: fp, "fingerprint '\(fp)' \(problem)",
                        fix: "a SHA-256 fingerprint is 32 upper-case hex pairs joined by ':' (keytool prints it as 'SHA256:'); SHA-1 fingerprints do not work"))
            }
        }
        for (i, web) in (app.webTargets ?? []).enumerated() {
            if let parts = URLParts(web), parts.scheme == "https" || parts.scheme == "http", !parts.host.isEmpty,
                parts.path.isEmpty || parts.path == "/", parts.query == nil
            {
                continue
            }
            out.append(
                Diagnostic(.error, at: "\(at).webTargets[\(i)]", value: web, "web target '\(web)' is not a site origin", fix: "write only scheme and host, e.g. https://signin.example.com"))
        }
    }

    /// What is wrong with an Android signing-certificate fingerprint (see ``fingerprintProblem(_:)``).
    public enum FingerprintProblem: Equatable {
        /// The fingerprint is right but written the wrong way (lower case, no `:` separators);
        /// `corrected` is the form Android compares, `problem` says what was changed.
        case fixable(corrected: String, problem: String)
        /// The fingerprint cannot be a SHA-256 fingerprint (wrong length, a SHA-1 one, not hex); the text says why.
        case invalid(String)
    }

    /// Checks a SHA-256 fingerprint; for lower-case or unseparated ones returns the corrected form.
    public static func fingerprintProblem(_ fp: String) -> FingerprintProblem? {
        let hex = fp.filter { $0 != ":" && $0 != " " && $0 != "-" }
        guard hex.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return .invalid("contains characters that are not hex digits") }
        guard hex.count == 64 else {
            if hex.count == 40 { return .invalid("is 20 bytes: that is a SHA-1 fingerprint, Android needs SHA-256") }
            return .invalid("has \(hex.count / 2) bytes, not 32")
        }
        let upper = hex.uppercased()
        var pairs: [String] = []
        var i = upper.startIndex
        while i < upper.endIndex {
            let j = upper.index(i, offsetBy: 2)
            pairs.append(String(upper[i..<j]))
            i = j
        }
        let corrected = pairs.joined(separator: ":")
        if fp == corrected { return nil }
        var problems: [String] = []
        if fp.contains(where: { $0.isLowercase }) { problems.append("is in lower case") }
        if !fp.contains(":") {
            problems.append("has no ':' separators")
        } else if fp.filter({ $0 != ":" }) != hex || fp.split(separator: ":").count != 32 {
            problems.append("is not separated as 32 pairs")
        }
        if problems.isEmpty { problems.append("is not in canonical form") }
        return .fixable(corrected: corrected, problem: problems.joined(separator: " and "))
    }

    static func isReverseDNS(_ s: String, allowHyphen: Bool) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || (allowHyphen && $0 == "-")) }
        }
    }

    static func domainProblem(_ domain: String) -> (String, String)? {
        var d = Substring(domain)
        if d.contains("://") || d.contains("/") {
            return ("is a URL, not a domain", "write only the host, e.g. \"\(URLParts(domain)?.host ?? "example.com")\"")
        }
        if d.contains(":") { return ("has a port", "ports do not matter to app association; write only the host") }
        if d.hasPrefix("*.") { d = d.dropFirst(2) }
        if d.contains("*") { return ("has a '*' that is not a leading '*.'", "write wildcards as \"*.example.com\"") }
        let labels = d.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 1 || labels.contains(where: { $0.isEmpty || $0.count > 63 || $0.hasPrefix("-") || $0.hasSuffix("-") })
            || !d.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        {
            return ("is not a valid host name", "use the domain as it appears in the apps' entitlements (IDNs in punycode, xn--…)")
        }
        if d != d.lowercased() { return ("has capital letters", "write it in lower case: \"\(domain.lowercased())\"") }
        return nil
    }

    /// A custom scheme: a letter, then letters, digits, '+', '-' and '.'.
    static func isScheme(_ scheme: String) -> Bool {
        scheme.first.map { $0.isASCII && $0.isLetter } == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// One scheme on its own; a scheme another site also uses is checked by ``validate(reusing:)``.
    static func checkScheme(_ scheme: String, at: String, into out: inout [Diagnostic]) {
        if !isScheme(scheme) {
            out.append(
                Diagnostic(.error, at: at, value: scheme, "'\(scheme)' is not a URL scheme", fix: "write the scheme alone, without '://', e.g. \"myapp\" (letters, digits, '+', '-', '.')"))
            return
        }
        if ["http", "https", "file", "javascript", "data", "intent", "mailto", "tel"].contains(scheme.lowercased()) {
            out.append(Diagnostic(.error, at: at, value: scheme, "'\(scheme)' is not a custom scheme", fix: "use the app's own scheme from CFBundleURLSchemes / the intent filter"))
        }
    }

    static func isHTTPURL(_ s: String) -> Bool {
        guard let p = URLParts(s), p.scheme == "https" || p.scheme == "http", !p.host.isEmpty else { return false }
        return true
    }

    // MARK: Routes

    func validateRoutes(_ site: SiteConfig, at: String, into out: inout [Diagnostic]) {
        var names: [String: Int] = [:]
        for (i, entry) in site.routes.enumerated() {
            guard case let .route(r) = entry else { continue }
            let here = "\(at).routes[\(i)]"
            if r.name.isEmpty || !r.name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }) {
                out.append(Diagnostic(.error, at: "\(here).name", value: r.name, "route name '\(r.name)' is not an identifier", fix: "use letters, digits, '_', '-' or '.', e.g. \"post\""))
            }
            if let first = names[r.name] {
                out.append(
                    Diagnostic(.error, at: "\(here).name", value: r.name, "route name '\(r.name)' is used twice (first at \(at).routes[\(first)])", fix: "give each route its own name"))
            } else {
                names[r.name] = i
            }
            // Parameters the builder could not print.
            guard let pattern = try? PathPattern(parsing: r.path, params: r.params ?? [:]) else { continue }  // reported by compilation
            let pathParams = pattern.parameterNames
            for name in (r.query ?? [:]).keys.sorted() {
                if let spec = r.query?[name] {
                    validateDisplayBounds(maxLength: spec.maxLength, pattern: spec.pattern, at: "\(here).query.\(name)", route: r.name, into: &out)
                }
                if pathParams.contains(name) {
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).query.\(name)", value: name, "route '\(r.name)': '\(name)' is both a path and a query parameter; a link could not carry both",
                            fix: "rename one of them"))
                }
                if name.isEmpty || name.contains(where: { "&=#?".contains($0) }) {
                    out.append(Diagnostic(.error, at: "\(here).query", value: name, "route '\(r.name)': query parameter name '\(name)' cannot be printed in a query string", fix: "use a plain name without & = # ?"))
                }
            }
            if let f = r.fragment, pathParams.contains(f) || (r.query ?? [:])[f] != nil {
                out.append(Diagnostic(.error, at: "\(here).fragment", value: f, "route '\(r.name)': the fragment parameter '\(f)' has the name of another parameter", fix: "rename it"))
            }
            for (name, spec) in (r.params ?? [:]).sorted(by: { $0.key < $1.key }) {
                if !pathParams.contains(name) || pattern.segments.contains(.rest(name: name)) {
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).params.\(name)", value: name, "route '\(r.name)': 'params' restricts '\(name)', which is not a single-segment parameter of '\(r.path)'",
                            fix: "use a name from the path: \(pathParams.filter { n in !pattern.segments.contains(.rest(name: n)) }.joined(separator: ", "))"))
                }
                for (k, v) in (spec.oneOf ?? []).enumerated() where v.isEmpty || v.contains("/") {
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).params.\(name).oneOf[\(k)]", value: v, "route '\(r.name)': '\(v)' cannot be a path segment value",
                            fix: "a value must be non-empty and contain no '/'"))
                }
                if spec.oneOf?.isEmpty == true {
                    out.append(Diagnostic(.error, at: "\(here).params.\(name).oneOf", "route '\(r.name)': empty 'oneOf' list matches nothing", fix: "list the allowed values or remove 'oneOf'"))
                }
                validateDisplayBounds(maxLength: spec.maxLength, pattern: spec.pattern, at: "\(here).params.\(name)", route: r.name, into: &out)
            }
            let all = Set(pathParams + Array((r.query ?? [:]).keys) + (r.fragment.map { [$0] } ?? []))
            for (field, template) in [("preview.title", r.preview?.title), ("preview.description", r.preview?.description), ("preview.image", r.preview?.image), ("fallback.web", r.fallback?.web)] {
                guard let template else { continue }
                for name in LinkwellConfig.placeholders(in: template) where !all.contains(name) {
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).\(field)", value: template, "route '\(r.name)': '{\(name)}' in \(field) is not a parameter of the route",
                            fix: all.isEmpty ? "the route has no parameters; remove '{\(name)}'" : "use one of \(all.sorted().map { "{\($0)}" }.joined(separator: ", "))"))
                }
            }
            if let web = r.fallback?.web ?? site.fallback?.web {
                let probe = web.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
                let afterScheme = web.range(of: "://").map { web[$0.upperBound...] } ?? Substring(web)
                let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
                if !LinkwellConfig.isHTTPURL(probe) {
                    out.append(Diagnostic(.error, at: "\(here).fallback.web", value: web, "web fallback '\(web)' is not an absolute http(s) URL", fix: "write it as https://host/path/{param}"))
                } else if authority.contains("{") || web[..<(web.range(of: "://")?.lowerBound ?? web.startIndex)].contains("{") {
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).fallback.web", value: web, "web fallback '\(web)' puts a parameter in the scheme or host (an open redirect)",
                            fix: "parameters may only appear in the path and query"))
                }
            } else if [r.fallback?.ios, r.fallback?.android, r.fallback?.desktop].contains(.web) {
                out.append(Diagnostic(.error, at: "\(here).fallback", "route '\(r.name)' sends a platform to 'web' but no 'web' URL is set", fix: "add fallback.web: \"https://…\" to the route or the site"))
            }
        }
    }

    /// `{name}` placeholders in a template string.
    public static func placeholders(in template: String) -> [String] {
        var out: [String] = []
        var current: String? = nil
        for c in template {
            if c == "{" {
                current = ""
            } else if c == "}", let name = current {
                if !name.isEmpty { out.append(name) }
                current = nil
            } else if current != nil {
                current!.append(c)
            }
        }
        return out
    }
}

extension RouteTable {
    /// Checks that need the compiled table: shadowed routes and exclusions that exclude nothing.
    public func semanticDiagnostics() -> [Diagnostic] {
        sites.flatMap(RouteTable.semanticDiagnostics(of:))
    }

    /// The same checks for one compiled site. They read only the site (its entries, trie and
    /// host), so a site a reload reuses keeps its result (`GeneratedSite.semanticDiagnostics`).
    public static func semanticDiagnostics(of site: CompiledSite) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let s = site.index
        for (j, entry) in site.entries.enumerated() {
            let here = "sites[\(s)].routes[\(entry.index)]"
            if entry.isRoute {
                // Every URL of it taken first by an earlier entry?
                // Only entries that match the route's own sample path can cover it.
                let sample = RouteTable.acceptedSamplePaths(for: entry, variants: 1)[0]
                let candidates = site.trie.candidates(forRawPath: sample).filter { $0 < j }.sorted()
                for earlier in candidates.map({ site.entries[$0] }) {
                    guard earlier.pattern.covers(entry.pattern) else { continue }
                    let earlierRequires = Set(earlier.requiredQuery)
                    if !earlierRequires.isSubset(of: Set(entry.requiredQuery)) { continue }
                    if let f = earlier.exclusionFragment, f != entry.exclusionFragment { continue }
                    let appsCovered = Set(entry.iosAppIDs).isSubset(of: Set(earlier.iosAppIDs))
                        && Set(entry.androidPackages).isSubset(of: Set(earlier.androidPackages))
                    if !appsCovered { continue }
                    let example = (try? RouteTable.exampleURL(site: site, entry: entry)) ?? entry.pattern.source
                    out.append(
                        Diagnostic(
                            .error, at: "\(here).path", value: entry.pattern.source,
                            "\(entry.label) can never match: \(earlier.label) (routes[\(earlier.index)]) comes first and takes every URL of it, e.g. \(example)",
                            fix: "move \(entry.label) above \(earlier.label), or make one of the paths more specific"))
                    break
                }
            } else {
                let later = site.entries[(j + 1)...].filter { $0.isRoute && $0.pattern.overlaps(entry.pattern) }
                let sharesApps = later.contains { r in
                    !Set(r.iosAppIDs).isDisjoint(with: entry.iosAppIDs) || !Set(r.androidPackages).isDisjoint(with: entry.androidPackages)
                }
                if later.isEmpty || !sharesApps {
                    out.append(
                        Diagnostic(
                            .warning, at: "\(here).exclude", value: entry.pattern.source,
                            "exclusion '\(entry.pattern.source)' excludes nothing: no route after it matches those paths",
                            fix: "remove it, or move it above the route it should carve out of"))
                }
            }
        }
        return out
    }
}

extension LinkwellConfig {
    /// `maxLength` within 1…2048 and `pattern` a regular expression, for a path or query parameter.
    func validateDisplayBounds(maxLength: Int?, pattern: String?, at: String, route: String, into out: inout [Diagnostic]) {
        if let max = maxLength, max < 1 || max > 2048 {
            out.append(Diagnostic(.error, at: "\(at).maxLength", value: String(max),
                                  "route '\(route)': maxLength \(max) is outside 1…2048", fix: "give the longest value a page may show, e.g. 32"))
        }
        if let p = pattern, (try? NSRegularExpression(pattern: p)) == nil {
            out.append(Diagnostic(.error, at: "\(at).pattern", value: p,
                                  "route '\(route)': '\(p)' is not a regular expression", fix: "write an ICU regular expression such as [A-Z0-9]{4,12} (it must match the whole value)"))
        }
    }
}
