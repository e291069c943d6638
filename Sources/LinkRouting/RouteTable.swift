// The compiled route table: config → per-site entry lists and a path trie. `resolve` turns a
// URL (https on a site's domain, or one of the apps' custom schemes) into a route and its
// parameters; `RouteTable+Builder.swift` does the reverse.

/// A route or an exclusion, compiled, with the apps it applies to.
public struct CompiledEntry: Sendable, Equatable {
    /// Whether the entry is a route or an exclusion, with its config.
    public enum Kind: Sendable, Equatable {
        /// A route: URLs it matches open the app.
        case route(RouteConfig)
        /// An exclusion: URLs it matches stay in the browser.
        case exclusion(ExclusionConfig)
    }

    /// Position in the site's `routes` list (its priority: lower wins).
    public let index: Int
    /// The route or exclusion this entry was compiled from.
    public let kind: Kind
    /// The compiled `path` (routes) or `exclude` (exclusions) pattern.
    public let pattern: PathPattern
    /// App IDs (`TEAMID.bundle`) of the iOS apps this entry applies to.
    public let iosAppIDs: [String]
    /// Package names of the Android apps this entry applies to.
    public let androidPackages: [String]
    /// Names of the required query parameters, sorted: a link without one of them (or with it
    /// empty) is not this route.
    public let requiredQuery: [String]
    /// Names of the optional query parameters, sorted (``requiredQuery`` holds the required ones).
    public let optionalQuery: [String]

    /// True for a route, false for an exclusion.
    public var isRoute: Bool { if case .route = kind { return true } else { return false } }
    /// The route's config; nil for an exclusion.
    public var route: RouteConfig? { if case let .route(r) = kind { return r } else { return nil } }
    /// The exclusion's config; nil for a route.
    public var exclusion: ExclusionConfig? { if case let .exclusion(e) = kind { return e } else { return nil } }

    /// `route 'post'` or `exclusion '/post/drafts/*'`, for messages.
    public var label: String {
        switch kind {
        case let .route(r): return "route '\(r.name)'"
        case let .exclusion(e): return "exclusion '\(e.exclude)'"
        }
    }

    /// The fragment an exclusion is limited to (`no_universal_links`); nil for routes and for exclusions of every fragment.
    public var exclusionFragment: String? { exclusion?.fragment }
}

/// One site of the config, compiled: its domains, apps, custom schemes and entries. Look one
/// up with ``RouteTable/site(forHost:fallbackToDefault:)`` or ``RouteTable/site(named:)``.
public struct CompiledSite: Sendable {
    /// Every field, in one object: a site is handed around by value on every request, and a
    /// copy of this struct is one reference count, not one per field.
    final class Storage: Sendable {
        let index: Int
        let config: SiteConfig
        let name: String
        let canonicalHost: String
        let exactDomains: [String]
        let wildcardSuffixes: [String]
        let entries: [CompiledEntry]
        let iosApps: [IOSAppConfig]
        let androidApps: [AndroidAppConfig]
        let schemes: [String: (ios: [String], android: [String])]
        let resolver: SiteResolver
        let routeIndexByName: [String: Int]

        init(index: Int, config: SiteConfig, name: String, canonicalHost: String, exactDomains: [String], wildcardSuffixes: [String],
             entries: [CompiledEntry], iosApps: [IOSAppConfig], androidApps: [AndroidAppConfig],
             schemes: [String: (ios: [String], android: [String])], resolver: SiteResolver, routeIndexByName: [String: Int]) {
            self.index = index
            self.config = config
            self.name = name
            self.canonicalHost = canonicalHost
            self.exactDomains = exactDomains
            self.wildcardSuffixes = wildcardSuffixes
            self.entries = entries
            self.iosApps = iosApps
            self.androidApps = androidApps
            self.schemes = schemes
            self.resolver = resolver
            self.routeIndexByName = routeIndexByName
        }
    }

    let storage: Storage

    /// The site's position in the config's `sites` list.
    public var index: Int { storage.index }
    /// The site's config as read.
    public var config: SiteConfig { storage.config }
    /// The site's `name` from the config, or its canonical host when it has none.
    public var name: String { storage.name }
    /// The first exact domain: where built links point.
    public var canonicalHost: String { storage.canonicalHost }
    /// The domains without `*.`, lower-cased.
    public var exactDomains: [String] { storage.exactDomains }
    /// `.example.com` for `*.example.com`.
    public var wildcardSuffixes: [String] { storage.wildcardSuffixes }
    /// The site's routes and exclusions, compiled, in config order (their priority).
    public var entries: [CompiledEntry] { storage.entries }
    /// The site's iOS apps (empty when it has none).
    public var iosApps: [IOSAppConfig] { storage.iosApps }
    /// The site's Android apps (empty when it has none).
    public var androidApps: [AndroidAppConfig] { storage.androidApps }
    /// Custom scheme (lower-cased) → the apps that registered it.
    public var schemes: [String: (ios: [String], android: [String])] { storage.schemes }
    /// What resolution reads, in one object (closures and lookups hold a reference, not a copy of the site).
    var resolver: SiteResolver { storage.resolver }
    var routeIndexByName: [String: Int] { storage.routeIndexByName }

    /// True when both are the same compilation (one was reused for the other by
    /// ``RouteTable/init(config:reusing:)``), not merely equal configs.
    public func isSameCompilation(as other: CompiledSite) -> Bool { resolver === other.resolver }
    var trie: PathTrie { resolver.trie }

    /// The route named `route`; nil when the site has none of that name (exclusions have no name).
    public func entry(named route: String) -> CompiledEntry? {
        routeIndexByName[route].map { entries[$0] }
    }

    /// The entries that are routes, without the exclusions, in config order.
    public var routes: [CompiledEntry] { entries.filter(\.isRoute) }

    /// True when `host` (lower-case, no port) is one of the site's domains or under a wildcard.
    public func serves(host: String) -> Bool {
        exactDomains.contains(host) || wildcardSuffixes.contains { host.hasSuffix($0) && host.count > $0.count }
    }
}

/// What a URL is, according to the route table.
public enum LinkResolution: Sendable, Equatable {
    /// A route matched: the app that handles it should show ``LinkMatch/route`` with ``LinkMatch/parameters``.
    case matched(LinkMatch)
    /// An exclusion decided: no app opens this URL.
    case excluded(site: String, entryIndex: Int, pattern: String)
    /// On one of the site's domains (or schemes) but no route matches.
    case noRoute(site: String)
    /// An https URL on a host no site lists.
    case unknownHost(String)
    /// Not https and not a custom scheme of any app, or not a URL at all.
    case unsupported(String)

    /// The match when a route matched, else nil: `table.resolve(url).match?.route`.
    public var match: LinkMatch? { if case let .matched(m) = self { return m } else { return nil } }
}

/// A link that a route matched: which route, its parameter values and the apps that open it.
public struct LinkMatch: Sendable, Equatable {
    /// The name of the site the link belongs to (``CompiledSite/name``).
    public var site: String
    /// The route's `name` from the config (`post`, `profile`, `signup`): what your router switches on.
    public var route: String
    /// Decoded values by parameter name (path, query and fragment parameters that are present).
    public var parameters: [String: String]
    /// The iOS apps that open this link, as app IDs (`TEAMID.bundle.id`).
    public var iosAppIDs: [String]
    /// The Android apps that open this link, by package name.
    public var androidPackages: [String]
    /// The matched route's position in the site's `routes` list.
    public var entryIndex: Int

    /// Creates a match (for tests and previews; ``RouteTable/resolve(_:)`` makes the real ones).
    public init(site: String, route: String, parameters: [String: String], iosAppIDs: [String], androidPackages: [String], entryIndex: Int) {
        self.site = site
        self.route = route
        self.parameters = parameters
        self.iosAppIDs = iosAppIDs
        self.androidPackages = androidPackages
        self.entryIndex = entryIndex
    }
}

/// Compilation problems (the config's own shape is checked by `LinkwellConfig+Validation.swift`).
public typealias RouteTableError = DiagnosticsError

/// The compiled config: turns a URL into a route and its parameters, and a route back into a URL.
///
/// This is the type an app keeps around (build it once, at launch). ``resolve(_:)`` parses the
/// links the app is opened with, universal links (`https://…`) and custom-scheme links
/// (`myapp://…`) alike; ``build(site:route:parameters:form:)`` writes the links it shares. Both
/// follow the same table that generates the server's association files, so a link the app builds
/// is one the server claims for it.
///
/// ```swift
/// let loaded = try ConfigLoader.load(path: "config/examples/diallodev.json5")
/// let table = try RouteTable(config: loaded.config)
/// table.resolve("https://diallodev.online/post/42").match?.parameters     // ["postId": "42"]
/// try table.build(route: "profile", parameters: ["userId": "diallo"])     // "https://diallodev.online/user/diallo"
/// ```
public struct RouteTable: Sendable {
    /// The config the table was compiled from.
    public let config: LinkwellConfig
    /// The compiled sites, in config order (the order of `sites` in the file).
    public let sites: [CompiledSite]
    let hostIndex: [String: Int]
    let wildcardIndex: [(suffix: String, site: Int)]
    let schemeIndex: [String: Int]
    let defaultSite: Int?
    /// `hostIndex` by bytes, for lookups without a `String`.
    let hostTable: ByteTable
    /// `sites[i].resolver`.
    let resolvers: [SiteResolver]

    /// Compiles the config. Throws when a pattern does not compile or a route names an app the
    /// site does not have; run ``LinkwellConfig/validate()`` for the full set of checks.
    ///
    /// ```swift
    /// let loaded = try ConfigLoader.load(path: "config/examples/fitconnect.json5")
    /// let table = try RouteTable(config: loaded.config)
    /// table.sites.map(\.name)   // ["fitconnect"]
    /// ```
    /// - Throws: ``RouteTableError`` listing every route that did not compile.
    public init(config: LinkwellConfig) throws(RouteTableError) {
        try self.init(config: config, reusing: [])
    }

    /// As ``init(config:)``, taking each site from `previous` (the sites of the table a reload
    /// replaces) when it sits at the same position with an equal `SiteConfig`: a site is
    /// compiled from its own config and position alone, so the result is the same, without the
    /// work. Every other site is compiled.
    public init(config: LinkwellConfig, reusing previous: [CompiledSite]) throws(RouteTableError) {
        self.config = config
        var diagnostics: [Diagnostic] = []
        var sites: [CompiledSite] = []
        var hostIndex: [String: Int] = [:]
        var wildcardIndex: [(suffix: String, site: Int)] = []
        var schemeIndex: [String: Int] = [:]
        var defaultSite: Int? = config.sites.count == 1 ? 0 : nil
        // A site compiles from its own config and position alone: every site on its own core.
        let siteConfigs = config.sites
        let made = ConcurrentMap.map(siteConfigs.count) { s -> (site: CompiledSite, diagnostics: [Diagnostic]) in
            if s < previous.count, previous[s].index == s, previous[s].config == siteConfigs[s] { return (previous[s], []) }
            var own: [Diagnostic] = []
            let compiled = RouteTable.compile(site: siteConfigs[s], index: s, diagnostics: &own)
            return (compiled, own)
        }
        for (s, site) in config.sites.enumerated() {
            let compiled = made[s].site
            diagnostics += made[s].diagnostics
            for d in compiled.exactDomains where hostIndex[d] == nil { hostIndex[d] = s }
            for w in compiled.wildcardSuffixes { wildcardIndex.append((w, s)) }
            for scheme in compiled.schemes.keys where schemeIndex[scheme] == nil { schemeIndex[scheme] = s }
            if site.isDefault == true, defaultSite == nil || config.sites.count == 1 { defaultSite = s }
            sites.append(compiled)
        }
        if !diagnostics.isEmpty { throw RouteTableError(diagnostics: diagnostics) }
        self.sites = sites
        self.hostIndex = hostIndex
        self.hostTable = ByteTable(hostIndex.map { (parent: 0, key: $0.key, value: $0.value) })
        self.resolvers = sites.map(\.resolver)
        // Longest suffix first, so `*.eu.example.com` beats `*.example.com`.
        self.wildcardIndex = wildcardIndex.sorted { $0.suffix.count > $1.suffix.count }
        self.schemeIndex = schemeIndex
        self.defaultSite = defaultSite
    }

    static func compile(site: SiteConfig, index s: Int, diagnostics: inout [Diagnostic]) -> CompiledSite {
        let exact = site.domains.filter { !$0.hasPrefix("*.") }.map { $0.lowercased() }
        let wild = site.domains.filter { $0.hasPrefix("*.") }.map { String($0.dropFirst(1)).lowercased() }
        let canonical = exact.first ?? wild.first.map { String($0.dropFirst()) } ?? "localhost"
        let ios = site.ios ?? []
        let android = site.android ?? []
        var schemes: [String: (ios: [String], android: [String])] = [:]
        for app in ios { for sc in app.schemes ?? [] { schemes[sc.lowercased(), default: ([], [])].ios.append(app.appID) } }
        for app in android { for sc in app.schemes ?? [] { schemes[sc.lowercased(), default: ([], [])].android.append(app.package) } }

        var entries: [CompiledEntry] = []
        var byName: [String: Int] = [:]
        for (i, entry) in site.routes.enumerated() {
            let where_ = "sites[\(s)].routes[\(i)]"
            let apps: [String]?
            let pattern: PathPattern
            var required: [String] = []
            var optional: [String] = []
            let kind: CompiledEntry.Kind
            do {
                switch entry {
                case let .route(r):
                    apps = r.apps
                    pattern = try PathPattern(parsing: r.path, params: r.params ?? [:])
                    for (name, spec) in r.query ?? [:] {
                        if spec.required == true { required.append(name) } else { optional.append(name) }
                    }
                    kind = .route(r)
                case let .exclusion(e):
                    apps = e.apps
                    pattern = try PathPattern(parsing: e.exclude, allowTrailingStar: true)
                    kind = .exclusion(e)
                }
            } catch {
                let subject: String
                let field: String
                switch entry {
                case let .route(r): subject = "route '\(r.name)'"; field = "path"
                case .exclusion: subject = "exclusion"; field = "exclude"
                }
                diagnostics.append(
                    Diagnostic(
                        .error, at: "\(where_).\(field)", value: error.pattern,
                        "\(subject): \(error.description)", fix: error.fix))
                continue
            }
            var iosIDs: [String] = []
            var packages: [String] = []
            if let apps {
                for (k, ref) in apps.enumerated() {
                    // A reference may name an iOS and an Android app at once (bundle ID == package).
                    let i = ios.filter { $0.reference == ref || $0.bundleID == ref || $0.appID == ref }
                    let a = android.filter { $0.reference == ref || $0.package == ref }
                    iosIDs += i.map(\.appID).filter { !iosIDs.contains($0) }
                    packages += a.map(\.package).filter { !packages.contains($0) }
                    if i.isEmpty && a.isEmpty {
                        let known = (ios.map(\.reference) + android.map(\.reference)).map { "'\($0)'" }.joined(separator: ", ")
                        diagnostics.append(
                            Diagnostic(
                                .error, at: "\(where_).apps[\(k)]", value: ref,
                                "\(entry.label) names the app '\(ref)', which the site does not have",
                                fix: known.isEmpty ? "add the app under 'ios' or 'android' first" : "use one of \(known)"))
                    }
                }
            } else {
                iosIDs = ios.map(\.appID)
                packages = android.map(\.package)
            }
            if case let .route(r) = entry, byName[r.name] == nil { byName[r.name] = entries.count }
            entries.append(
                CompiledEntry(
                    index: i, kind: kind, pattern: pattern, iosAppIDs: iosIDs, androidPackages: packages,
                    requiredQuery: required.sorted(), optionalQuery: optional.sorted()))
        }
        return CompiledSite(storage: CompiledSite.Storage(
            index: s, config: site, name: site.name ?? canonical, canonicalHost: canonical, exactDomains: exact,
            wildcardSuffixes: wild, entries: entries, iosApps: ios, androidApps: android, schemes: schemes,
            resolver: SiteResolver(name: site.name ?? canonical, entries: entries, iosApps: ios.map(\.appID), androidApps: android.map(\.package)),
            routeIndexByName: byName))
    }

    // MARK: Sites

    /// The site for a Host header value (port and trailing dot ignored); with one site, or a
    /// default site, every host gets one.
    public func site(forHost rawHost: String, fallbackToDefault: Bool = true) -> CompiledSite? {
        siteIndex(forHost: rawHost, fallbackToDefault: fallbackToDefault).map { sites[$0] }
    }

    /// `site(forHost:)`'s position in `sites`: for a caller that needs only a field or two of the
    /// site (no copy of the `CompiledSite` struct).
    public func siteIndex(forHost rawHost: String, fallbackToDefault: Bool = true) -> Int? {
        // An ASCII host (what Host headers carry) is read on its bytes: no String, no hashing
        // of one; a non-ASCII one goes the String way below (Unicode lower-casing).
        if let found = rawHost.utf8.withContiguousStorageIfAvailable({ siteIndex(hostBytes: $0, fallbackToDefault: fallbackToDefault) }),
           let index = found {
            return index
        }
        if let i = hostIndex[rawHost] { return i }
        var host = Substring(rawHost)
        if host.utf8.first == UInt8(ascii: "[") {
            if let close = host.utf8.firstIndex(of: UInt8(ascii: "]")) { host = host[...close] }
        } else if let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = host[..<colon]
        }
        if host.utf8.last == UInt8(ascii: ".") { host = host.dropLast() }
        let h = host.lowercased()
        if let i = hostIndex[h] { return i }
        let hLength = h.utf8.count
        for w in wildcardIndex where hLength > w.suffix.utf8.count && h.hasSuffix(w.suffix) { return w.site }
        // The wildcard's root (`example.com` for `*.example.com`) serves the files too.
        for w in wildcardIndex where hLength == w.suffix.utf8.count - 1 && h == String(w.suffix.dropFirst()) { return w.site }
        return fallbackToDefault ? defaultSite : nil
    }

    /// `site(forHost:)`'s index over the Host value's bytes; nil when the host (less its port
    /// and trailing dot) is not ASCII.
    private func siteIndex(hostBytes all: Bytes, fallbackToDefault: Bool) -> Int?? {
        var end = all.count
        if end > 0 && all[0] == UInt8(ascii: "[") {
            if let close = all.firstIndex(of: UInt8(ascii: "]"), in: 0..<end) { end = close + 1 }
        } else if let colon = all.lastIndex(of: UInt8(ascii: ":"), in: 0..<end) {
            end = colon
        }
        if end > 0 && all[end - 1] == UInt8(ascii: ".") { end -= 1 }
        let host = all.slice(0..<end)
        guard host.isASCII else { return nil }
        if let i = hostTable.find(parent: 0, host, lowercasing: true) { return .some(i) }
        for w in wildcardIndex {
            let suffix = w.suffix.utf8
            let n = suffix.count
            // `*.example.com` serves its subdomains, and its root (`example.com`) serves the files too.
            if host.count > n, Self.lowercasedEquals(host.slice((host.count - n)..<host.count), suffix) { return .some(w.site) }
        }
        for w in wildcardIndex {
            let root = w.suffix.utf8.dropFirst()
            if host.count == root.count, Self.lowercasedEquals(host, root) { return .some(w.site) }
        }
        return .some(fallbackToDefault ? defaultSite : nil)
    }

    /// Whether `bytes`, ASCII letters lower-cased, are the bytes of `text`.
    private static func lowercasedEquals<C: Collection>(_ bytes: Bytes, _ text: C) -> Bool where C.Element == UInt8 {
        guard bytes.count == text.count else { return false }
        var i = 0
        for t in text {
            if ByteText.asciiLower(bytes[i]) != t { return false }
            i += 1
        }
        return true
    }

    /// The site with this `name`, or that lists `name` as an exact domain (case-insensitive).
    public func site(named name: String) -> CompiledSite? {
        sites.first { $0.name == name || $0.exactDomains.contains(name.lowercased()) }
    }

    // MARK: Resolution

    /// Resolves an absolute URL: `https://<site domain>/…` or `<app scheme>://…`.
    ///
    /// Pass the URL as text (from a Foundation `URL`, its `absoluteString`). The site's entries
    /// are tried in config order and the first that decides wins; an exclusion keeps the URL in
    /// the browser. Parameter values come back percent-decoded. For a custom-scheme link the
    /// first part may be the site's domain (`fitconnect://fitconnect.app/signup`) or the first
    /// path segment (`fitconnect://signup`): both resolve to `/signup`.
    ///
    /// ```swift
    /// switch table.resolve("fitconnect://signup?referralCode=TRAINER1") {
    /// case .matched(let link):
    ///     print(link.route, link.parameters)    // signup ["referralCode": "TRAINER1"]
    /// case .excluded, .noRoute, .unknownHost, .unsupported:
    ///     break                                 // not a link this app handles
    /// }
    /// ```
    public func resolve(_ url: String) -> LinkResolution {
        // An http(s) URL whose host a browser would read differently from the plain split below
        // (`https://evil.example\\@good.example/`, `https:evil.example`) is refused.
        // A URL a browser would still encode is read as it would send it (a copy only then).
        var text = PercentEncoding.browserNormalized(url)
        return text.withUTF8 { b in
            // The browser's reading is only parsed for when a byte check cannot tell that it is the plain split's.
            if !RawURL.isPlainWebURL(b), WebURL.hasSpecialScheme(url), URLParts(url) == nil {
                return .unsupported("'\(url)' is not a URL a browser can open, or a browser would go to another host than it seems to name")
            }
            return resolve(normalized: b, original: url)
        }
    }

    /// `scheme://X/rest`: when X is one of the site's domains the path is `/rest`, otherwise `/X/rest`.
    static func customSchemePath(url: String, scheme: String, site: CompiledSite) -> String {
        var rest = Substring(PercentEncoding.browserNormalized(url))
        rest = rest.dropFirst(scheme.utf8.count + 1)  // "scheme:"
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        guard rest.hasPrefix("//") else {
            return rest.hasPrefix("/") ? String(rest) : "/" + rest
        }
        rest = rest.dropFirst(2)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let first = rest[..<slash]
        let tail = rest[slash...]
        var host = first.lowercased()
        if let colon = host.lastIndex(of: ":"), Int(host[host.index(after: colon)...]) != nil { host = String(host[..<colon]) }
        if first.isEmpty || site.serves(host: host) {
            return tail.isEmpty ? "/" : String(tail)
        }
        return "/" + first + tail
    }

    /// Resolves a path (as sent, still encoded) on a known site.
    public func resolve(
        site: CompiledSite, path rawPath: String, query: String?, fragment: String?,
        restrictTo apps: (ios: [String], android: [String])? = nil
    ) -> LinkResolution {
        resolve(site: site, path: rawPath[...], query: query?[...], fragment: fragment?[...], restrictTo: apps)
    }

    /// ``resolve(site:path:query:fragment:restrictTo:)`` on slices of a request's text (no copies
    /// when they are slices of native strings).
    public func resolve(
        site: CompiledSite, path rawPath: Substring, query: Substring?, fragment: Substring?,
        restrictTo apps: (ios: [String], android: [String])? = nil
    ) -> LinkResolution {
        var path = rawPath
        var query = query
        var fragment = fragment
        return path.withUTF8 { p in
            RouteTable.withOptionalUTF8(&query) { q in
                RouteTable.withOptionalUTF8(&fragment) { f in site.resolver.resolve(path: p, query: q, fragment: f, restrictTo: apps) }
            }
        }
    }

    /// `resolve(site:path:query:fragment:restrictTo:)` on a request-target's own bytes: its path
    /// and its query (after `?`), still encoded, no fragment, every app.
    public func resolve(site: CompiledSite, pathBytes: UnsafeBufferPointer<UInt8>, queryBytes: UnsafeBufferPointer<UInt8>?) -> LinkResolution {
        site.resolver.resolve(path: pathBytes, query: queryBytes, fragment: nil, restrictTo: nil)
    }

    /// `body` with the UTF-8 bytes of `text`, or with nil.
    static func withOptionalUTF8<R>(_ text: inout Substring?, _ body: (Bytes?) -> R) -> R {
        guard var t = text else { return body(nil) }
        return t.withUTF8 { body($0) }
    }
}

extension RouteEntry {
    var label: String {
        switch self {
        case let .route(r): return "route '\(r.name)'"
        case let .exclusion(e): return "exclusion '\(e.exclude)'"
        }
    }
}
