// The one invariant, as a property test: for every route of every shipped config, and of
// tables with the shapes that make generation hard, the URLs the generated AASA claims for each
// iOS app and the URLs the generated dynamic components let each Android app handle — under
// Android 15's and Android 16's DalComponentParser both — are exactly the URLs the parser
// accepts for that app. Where a platform cannot express a route, `validate` must say so with an
// example URL: the coverage test runs its own, wider near-miss corpus and fails on any
// difference `validate` does not report.

import Foundation
import Testing
import Association
import LinkRouting
import PlatformMatchers
import LinkwellJSON

@Suite("Invariant: platforms claim what the parser accepts")
struct InvariantTests {
    @Test("shipped configs: only named platform limits, under iOS, Android 15 and Android 16", arguments: GoldenFileTests.configs)
    func shipped(config: String) throws {
        let table = try GoldenFileTests.table(config)
        for site in table.sites {
            let samples = InvariantCheck.sampleURLs(site: site) + Self.corpus(site: site)
            #expect(samples.count > 10, "too few samples for \(site.name)")
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: samples)
            let unexpected = diffs.filter { $0.knownLimitation == nil }
            #expect(unexpected.isEmpty, "\(unexpected.prefix(5).map { $0.diagnostic(file: nil).description })")
        }
    }

    @Test("the generated assetlinks.json parses under both Android parsers", arguments: GoldenFileTests.configs)
    func bothParsers(config: String) throws {
        let table = try GoldenFileTests.table(config)
        for site in table.sites where !site.androidApps.isEmpty {
            for generation in AndroidParserGeneration.allCases {
                let file = try AssetLinksFile.parse(AssetLinksGenerator.bytes(for: site), generation: generation).get()
                for statement in file.statements {
                    #expect(statement.dynamicAppLinkRules.discardReason == nil, "\(generation)")
                    // No rule that cannot match anything: Android 15 keeps the escape of a '.'
                    // in a LITERAL or PREFIX (`/arduino\.html`).
                    for component in statement.dynamicAppLinkRules.components {
                        for filter in component.filters where filter.matcher.kind == .literal || filter.matcher.kind == .prefix {
                            #expect(!filter.matcher.pattern.contains("\\"), "\(generation): \(filter)")
                        }
                    }
                }
            }
        }
    }

    /// A table of routes, and the route-level differences it cannot avoid: "platform|label".
    struct Shape: CustomTestStringConvertible, Sendable {
        var name: String
        var routes: String
        /// `iOS|route 'x'` or `Android 15 and 16|route 'x'`: the differences that no file can
        /// avoid for this route (validate reports them with an example URL).
        var inexpressible: Set<String> = []
        /// The site's `shortLinks` block (`openApp`: the files claim the short links too).
        var shortLinks: String? = nil
        var testDescription: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "nested params", routes: #"{ name: "post", path: "/post/{id}" }, { name: "comments", path: "/post/{id}/comments" }, { name: "c2", path: "/post/{id}/comments/{cid}" }"#),
        Shape(name: "literal before param", routes: #"{ name: "new", path: "/p/new" }, { name: "p", path: "/p/{id}" }, { name: "reviews", path: "/p/{id}/reviews" }"#),
        Shape(name: "exclusion then routes", routes: #"{ exclude: "/post/drafts/*" }, { name: "post", path: "/post/{id}" }, { name: "edit", path: "/post/{id}/edit" }"#),
        Shape(name: "rest route", routes: #"{ name: "file", path: "/files/{path*}" }, { name: "home", path: "/" }"#),
        Shape(
            name: "rest after parameters",
            routes: #"{ name: "files", path: "/u/{user}/{path*}" }, { name: "two", path: "/v/{a}/{b}/{rest*}" }, { name: "lit", path: "/w/{a}/files/{rest*}" }"#,
            // Apple's '?*' crosses '/', and '*//*' would block a rest holding '//': an empty
            // second parameter cannot be kept out.
            inexpressible: ["iOS|route 'two'"]),
        Shape(name: "params in a row", routes: #"{ name: "s", path: "/s/{a}/{b}" }, { name: "t", path: "/t/{a}/x/{b}" }"#),
        Shape(
            name: "prefix and suffix in a segment",
            routes: #"{ name: "item", path: "/item-{id}.html" }, { name: "suf", path: "/a/{x}-suf" }, { name: "json", path: "/a/{x}.json" }, { name: "mid", path: "/b/{x}.json/c" }, { name: "user", path: "/u/@{name}" }"#),
        Shape(name: "oneOf", routes: #"{ name: "lang", path: "/{lang}/docs/{page}", params: { lang: { oneOf: ["en", "fr", "pt-BR"] } } }, { name: "comp", path: "/{c}.html", params: { c: { oneOf: ["arduino", "a|b", "caf\u00e9"] } } }"#),
        Shape(
            name: "several apps, per-route apps and per-app exclusions",
            routes: #"{ exclude: "/p/drafts/*", apps: ["android"] }, { name: "onlyios", path: "/p/ios/{id}", apps: ["ios"] }, { name: "p", path: "/p/{id}" }, { exclude: "/q/{x}/private", apps: ["ios2", "android2"] }, { name: "q", path: "/q/{x}/{y}", apps: ["ios", "ios2", "android2"] }"#),
        Shape(
            name: "non-ASCII and punctuation literals",
            routes: #"{ name: "cafe", path: "/caf\u00e9/{id}" }, { name: "pipe", path: "/a|b/{id}" }, { name: "dot", path: "/v1.2/{id}" }, { name: "tilde", path: "/~x/{id}/[y]" }, { name: "caret", path: "/^/{id}" }, { name: "amp", path: "/a&b=c/{id}" }, { name: "tick", path: "/a`b/{id}" }"#),
        Shape(
            name: "required and optional query, fragment",
            routes: #"{ name: "search", path: "/search", query: { q: { required: true }, page: {} } }, { name: "browse", path: "/search/all" }, { name: "sec", path: "/doc/{id}", fragment: "section" }, { exclude: "/x/*", fragment: "nodeeplink" }, { name: "x", path: "/x/{id}" }"#),
        Shape(name: "later route under earlier guard", routes: #"{ name: "a", path: "/a/{x}" }, { name: "b", path: "/a/{x}/b/{y}" }, { name: "c", path: "/a/{x}/{y}/c" }"#),
        // Shape 1: a literal '+' beside a parameter.
        Shape(
            name: "'+' beside a parameter",
            routes: #"{ name: "ab", path: "/a+b/{id}" }, { name: "plus", path: "/x/+/{id}" }, { name: "v", path: "/v+1/{id}/{b}" }, { name: "pre", path: "/p/+{id}" }"#),
        // Shape 2: literals Android 15's PatternMatcher would reject next to '.+'.
        Shape(
            name: "'++' and other advanced-glob syntax in literals",
            routes: #"{ name: "cpp", path: "/c++/{id}" }, { name: "lead", path: "/++/{id}" }, { name: "brace", path: "/b%7B1,2%7D/{id}" }, { name: "set", path: "/s[ab]/{id}" }, { name: "after", path: "/after/{id}" }"#),
        // Shape 3: '%3F', '%2A' and '%5C' literals, which a matching expression cannot escape.
        Shape(
            name: "'%3F', '%2A' and '%5C' literals",
            routes: #"{ name: "what", path: "/what%3F/{id}" }, { name: "star", path: "/a%2Ab/{id}" }, { name: "q", path: "/q%3F" }, { name: "bs", path: "/b%5Cs/{id}" }, { name: "tail", path: "/t/{id}/%3F" }"#),
        // Shape 4: oneOf values in composed and decomposed spellings.
        Shape(
            name: "decomposed Unicode oneOf values",
            routes: #"{ name: "c", path: "/{c}/x", params: { c: { oneOf: ["caf\u00e9", "nai\u0308ve"] } } }, { name: "d", path: "/d/{v}", params: { v: { oneOf: ["\u00c5ngstr\u00f6m", "e\u0301t\u00e9"] } } }"#),
        // Shape 5: required query names with non-ASCII letters.
        Shape(
            name: "non-ASCII query names",
            routes: #"{ name: "size", path: "/size", query: { "gr\u00f6\u00dfe": { required: true } } }, { name: "caf", path: "/c/{id}", query: { "cafe\u0301": { required: true } } }"#),
        // Shape 6: nested routes, longest first.
        Shape(
            name: "nested routes, longest first",
            routes: #"{ name: "leaf", path: "/c/{top}/{sub}/{leaf}" }, { name: "sub", path: "/c/{top}/{sub}" }, { name: "top", path: "/c/{top}" }, { name: "item", path: "/@{handle}/{itemId}" }, { name: "ann", path: "/@{handle}" }"#),
        Shape(
            name: "nested routes, shortest first",
            routes: #"{ name: "top", path: "/c/{top}" }, { name: "sub", path: "/c/{top}/{sub}" }, { name: "leaf", path: "/c/{top}/{sub}/{leaf}" }, { name: "ann", path: "/@{handle}" }, { name: "item", path: "/@{handle}/{itemId}" }, { name: "d", path: "/d/{a}/x/{b}" }, { name: "d2", path: "/d/{a}/x" }"#),
        // Shape 7: per-app routes that overlap.
        Shape(
            name: "per-app routes that overlap",
            routes: #"{ name: "shared", path: "/files/{owner}/shared/{rest*}", apps: ["ios", "android"] }, { name: "files", path: "/files/{owner}/{rest*}" }, { name: "o1", path: "/o/{orderId}", query: { a: { required: true } }, apps: ["ios", "android"] }, { name: "o2", path: "/o/{orderId}", query: { b: { required: true } }, apps: ["ios2", "android2"] }"#),
        // Shape 8: the guard of a per-app rest route and another route of the same app.
        // Short links claimed under a prefix, beside a root parameter whose guard would block them
        // and a route under the prefix (a route wins over a code, as on the server).
        Shape(
            name: "short links under a prefix",
            routes: #"{ name: "slug", path: "/{slug}" }, { name: "post", path: "/post/{id}" }, { name: "promo", path: "/l/promo" }, { exclude: "/l/private" }, { name: "only", path: "/o/{id}", apps: ["ios", "android"] }"#,
            shortLinks: #"{ prefix: "/l/", openApp: true }"#),
        // Short links on a link domain: every path but the reserved ones, exclusions and
        // other apps' routes.
        Shape(
            name: "short links on a link domain",
            routes: #"{ exclude: "/help/*" }, { name: "post", path: "/post/{id}" }, { name: "c", path: "/c/{top}/{sub}" }, { name: "only", path: "/o/{id}", apps: ["ios", "android"] }"#,
            // iOS ignores a run of trailing '/': '/o/a1//' is the other apps' route there (kept
            // out for ios2), a short link for the parser (validate warns with that URL).
            inexpressible: ["iOS|route 'only'"],
            shortLinks: #"{ openApp: true, linkDomain: true }"#),
        Shape(
            name: "guard of a per-app rest route",
            routes: #"{ name: "shared", path: "/files/{owner}/shared/{rest*}", apps: ["ios", "android"] }, { name: "files", path: "/files/{owner}/{rest*}", apps: ["ios", "android"] }"#),
    ]

    static func table(_ shape: Shape) throws -> RouteTable {
        let report = try ValidationTests.validate(ValidationTests.config(ios: twoIOS, android: twoAndroid, routes: shape.routes, shortLinks: shape.shortLinks))
        return try #require(report.table, "\(report.errors)")
    }

    static let twoIOS = #"{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123456789" }, { id: "ios2", teamID: "ABCDE12345", bundleID: "com.example.two", appStoreID: "123456780" }"#
    static let twoAndroid = #"{ id: "android", package: "com.example.app", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }, { id: "android2", package: "com.example.two", fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"] }"#

    @Test("new tables: every difference is a named limit or a route the platform cannot express", arguments: shapes)
    func newTables(_ shape: Shape) throws {
        let table = try Self.table(shape)
        for site in table.sites {
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: InvariantCheck.sampleURLs(site: RouteTable.claimsSite(for: site)) + Self.corpus(site: site))
            let routeLevel = Set(diffs.filter { $0.knownLimitation == nil }.map { "\($0.platformName)|\($0.entryLabel)" })
            #expect(routeLevel.isSubset(of: shape.inexpressible), "\(diffs.filter { $0.knownLimitation == nil }.prefix(5).map { $0.diagnostic(file: nil).description })")
        }
    }

    @Test("claimed short links: the files claim a code for every app, on iOS and Android 15 and 16, and not the reserved paths")
    func shortLinksClaimed() throws {
        for (shape, claimed, unclaimed) in [
            (Self.shapes.first { $0.name == "short links under a prefix" }!, ["/l/abc1", "/l/Zx-9_?utm_source=x"], ["/l/a/b", "/abc1/x", "/l/private"]),
            (Self.shapes.first { $0.name == "short links on a link domain" }!, ["/abc1", "/", "/?link=https%3A%2F%2Fexample.com%2Fpost%2F1", "/post/1/x"],
             ["/.well-known/assetlinks.json", "/.well-known/linkwell/resolve", "/apple-app-site-association", "/static/linkwell.css", "/help/x"]),
        ] {
            let table = try Self.table(shape)
            let generated = GeneratedSite(table.sites[0])
            let apple = try AppleMatcher(aasa: try JSONValue.parse(generated.aasa))
            let android = try AndroidParserGeneration.allCases.map { try AssetLinksFile.parse(generated.assetLinks, generation: $0).get() }
            for (paths, expected) in [(claimed, true), (unclaimed, false)] {
                for path in paths {
                    let url = "https://example.com\(path)"
                    let verdicts = apple.verdicts(for: url)
                    for app in table.sites[0].iosApps { #expect((verdicts[app.appID] == .match) == expected, "\(shape.name): iOS \(app.appID) \(url)") }
                    for file in android {
                        for app in table.sites[0].androidApps {
                            #expect((file.handles(url: url, package: app.package, certificates: app.fingerprints)?.handled ?? false) == expected, "\(shape.name): Android \(app.package) \(url)")
                        }
                    }
                }
            }
        }
    }

    @Test("validate reports every difference of the wider corpus, with an example URL", arguments: shapes)
    func coverage(_ shape: Shape) throws {
        let report = try ValidationTests.validate(ValidationTests.config(ios: Self.twoIOS, android: Self.twoAndroid, routes: shape.routes, shortLinks: shape.shortLinks))
        let table = try #require(report.table)
        for site in table.sites {
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: Self.corpus(site: site))
            for d in diffs {
                if let limit = d.knownLimitation, !limit.isActionable {
                    // Listed by `--limits`, with an example URL; counted in the summary line.
                    let listed = report.limits.contains { $0.site == site.index && $0.limit == limit && $0.example.hasPrefix("https://\(site.canonicalHost)/") }
                    #expect(listed, "validate does not list: \(d.diagnostic(file: nil).description)")
                    continue
                }
                let reported = report.warnings.contains { w in
                    guard w.message.contains("https://\(site.canonicalHost)/") else { return false }
                    if let limit = d.knownLimitation {
                        return w.path == "sites[\(site.index)].routes" && w.message.contains(limit.explanation)
                    }
                    return w.path == "sites[\(site.index)].routes[\(d.entryIndex)]" && w.message.contains("on \(d.platformName)")
                }
                #expect(reported, "validate does not report: \(d.diagnostic(file: nil).description)")
            }
        }
    }

    /// The test's own near-miss corpus, written independently of `RouteTable.samplePaths`: for
    /// a link each route accepts, the same link with a trailing `/`, `//`, `///`, an extra or a
    /// missing segment, an empty segment, `%2F`/`%2f`, raw Unicode, `%41` for a letter, lower-case
    /// hex, the other case, repeated, empty and encoded query names, `;`, and fragments.
    static func corpus(site served: CompiledSite) -> [(url: String, entry: CompiledEntry)] {
        // With the short-link claims' entries (a claimed path may be a short link).
        let site = RouteTable.claimsSite(for: served)
        var out: [(String, CompiledEntry)] = []
        var seen = Set<String>()
        func add(_ path: String, _ query: String?, _ fragment: String?, _ entry: CompiledEntry) {
            let url = "https://\(site.canonicalHost)\(path)" + (query.map { "?\($0)" } ?? "") + (fragment.map { "#\($0)" } ?? "")
            if seen.insert(url).inserted { out.append((url, entry)) }
        }
        for entry in site.entries {
            for variant in 0..<3 {
                var segments: [String] = []
                let values = entry.sampleParameters(variant: variant)
                for seg in entry.pattern.segments {
                    switch seg {
                    case let .literal(l): segments.append(l)
                    case let .param(name, prefix, suffix, _): segments.append(prefix + PercentEncoding.encodeComponent(values[name] ?? "v") + suffix)
                    case .rest: segments += ["r", "s"]
                    }
                }
                let path = "/" + segments.joined(separator: "/")
                var paths = [path, path + "/", path + "//", path + "///", path + "/more", "//" + path.dropFirst()]
                if segments.count > 1 { paths.append("/" + segments.dropLast().joined(separator: "/")) }
                for i in segments.indices {
                    var s = segments
                    s[i] = ""
                    paths.append("/" + s.joined(separator: "/"))
                    s[i] = segments[i] + "%2F" + "x"
                    paths.append("/" + s.joined(separator: "/"))
                    s[i] = segments[i] + "%2f" + "x"
                    paths.append("/" + s.joined(separator: "/"))
                    s[i] = PercentEncoding.decode(segments[i])  // raw Unicode and punctuation
                    paths.append("/" + s.joined(separator: "/"))
                    // Decomposed and composed Unicode, encoded and raw.
                    for form in [s[i].decomposedStringWithCanonicalMapping, s[i].precomposedStringWithCanonicalMapping] where !form.unicodeScalars.elementsEqual(s[i].unicodeScalars) {
                        s[i] = PercentEncoding.encodeComponent(form)
                        paths.append("/" + s.joined(separator: "/"))
                    }
                    if let letter = segments[i].firstIndex(where: { $0.isASCII && $0.isLetter }) {
                        s[i] = segments[i][..<letter] + "%" + String(segments[i][letter].asciiValue!, radix: 16, uppercase: true)
                            + segments[i][segments[i].index(after: letter)...]
                        paths.append("/" + s.joined(separator: "/"))
                    }
                    s[i] = segments[i].lowercased()
                    paths.append("/" + s.joined(separator: "/"))
                    s[i] = segments[i].uppercased()
                    paths.append("/" + s.joined(separator: "/"))
                }
                if segments.count > 1 {
                    paths.append("/" + segments.dropLast(2).joined(separator: "/") + (segments.count > 2 ? "/" : "") + segments[segments.count - 2] + "%2F" + segments.last!)
                }
                let required = entry.requiredQuery.map { "\($0)=v\(variant)" }
                var queries: [String?] = [required.isEmpty ? nil : required.joined(separator: "&")]
                // Query names in the other Unicode normalisation form, encoded.
                for form in [\String.decomposedStringWithCanonicalMapping, \String.precomposedStringWithCanonicalMapping] {
                    let names = entry.requiredQuery.map { PercentEncoding.encodeComponent($0[keyPath: form]) }
                    if names != entry.requiredQuery.map(PercentEncoding.encodeComponent) { queries.append(names.map { "\($0)=v" }.joined(separator: "&")) }
                }
                for name in entry.requiredQuery + entry.optionalQuery {
                    queries += [
                        (required + ["\(name)="]).joined(separator: "&"),
                        (["\(name)="] + required).joined(separator: "&"),
                        (required + ["\(name)=again"]).joined(separator: "&"),
                        "%\(String(name.first!.asciiValue!, radix: 16, uppercase: true))\(name.dropFirst())=v",
                        "x=1;\(name)=v",
                        "\(name)=v;x=1",
                        name,
                    ]
                }
                queries.append((required + ["utm_source=x"]).joined(separator: "&"))
                for p in paths {
                    for q in queries { add(p, q, nil, entry) }
                    add(p, queries[0], "section-2", entry)
                    add(p, queries[0], entry.exclusionFragment ?? "nodeeplink", entry)
                }
            }
        }
        return out
    }
}

@Suite("Known platform limits")
struct KnownLimitTests {
    @Test("each limit is real: the matchers do disagree with the parser on its example")
    func limitsAreReal() throws {
        let table = try GoldenFileTests.table("linkwell")
        let all = try table.sites.flatMap { try InvariantCheck.rawDifferences(GeneratedSite($0), table: table) }
        let kinds = Set(all.compactMap(\.knownLimitation))
        for kind in [InvariantDifference.KnownLimitation.androidEncodedSlash, .appleTrailingSlashRun, .androidRepeatedQuery, .androidSemicolonQuery, .androidDecodedPath] {
            #expect(kinds.contains(kind), "\(kind)")
        }
        for d in all where d.knownLimitation == .androidEncodedSlash { #expect(d.parserClaims && !d.platformClaims) }
        for d in all where d.knownLimitation == .appleTrailingSlashRun { #expect(!d.parserClaims && d.platformClaims) }
        for d in all where d.knownLimitation == .androidDecodedPath { #expect(!d.parserClaims && d.platformClaims) }
    }

    @Test("a difference the generator cannot avoid is reported by validate with the route, the Android version and an example URL")
    func reported() throws {
        // Android's '*' stops at the next '.', so '/*.html' cannot take 'x_y.z~.html' there;
        // the parser (and iOS) can. Validate must say so, with a URL that shows it.
        let config = ValidationTests.config(routes: #"{ name: "page", path: "/{slug}.html" }"#)
        let report = try ValidationTests.validate(config)
        let table = try #require(report.table)
        let diffs = try InvariantCheck.rawDifferences(GeneratedSite(table.sites[0]), table: table).filter { $0.knownLimitation == .androidStarStopsAtNextCharacter }
        #expect(!diffs.isEmpty)
        #expect(diffs.allSatisfy { $0.platform == .android && $0.androidVersions == AndroidParserGeneration.allCases })
        let warning = try #require(report.warnings.first { $0.message.contains(InvariantDifference.KnownLimitation.androidStarStopsAtNextCharacter.explanation) })
        #expect(warning.message.contains("Android 15 and 16"))
        #expect(warning.message.contains("route 'page'"))
        #expect(warning.message.contains("https://example.com/"))
        #expect(warning.message.contains(".html"))
    }
}
