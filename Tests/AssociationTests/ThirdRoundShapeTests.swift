// One regression test per numbered route shape of issue 30 ("Platform fidelity, third round"),
// each on the smallest table that shows it, checked with the project's Apple and Android
// matchers. The same shapes, several of each, are in InvariantTests' tables.

import Foundation
import Testing
import Association
import LinkRouting
import LinkwellJSON
import PlatformMatchers

@Suite("Issue 30 shapes")
struct ThirdRoundShapeTests {
    static func table(_ routes: String) throws -> RouteTable {
        let report = try ValidationTests.validate(ValidationTests.config(ios: InvariantTests.twoIOS, android: InvariantTests.twoAndroid, routes: routes))
        return try #require(report.table, "\(report.errors)")
    }

    /// Whether Android (one parser generation) opens `package` for `path` on example.com.
    static func android(_ site: CompiledSite, _ generation: AndroidParserGeneration, _ path: String, app: Int = 0) throws -> AndroidURLDecision? {
        let file = try AssetLinksFile.parse(AssetLinksGenerator.bytes(for: site), generation: generation).get()
        let a = site.androidApps[app]
        return file.handles(url: "https://example.com" + path, package: a.package, certificates: a.fingerprints)
    }

    static func handled(_ site: CompiledSite, _ generation: AndroidParserGeneration, _ path: String, app: Int = 0) throws -> Bool {
        try android(site, generation, path, app: app)?.handled ?? false
    }

    static func iosClaims(_ site: CompiledSite, _ path: String, app: Int = 0) throws -> Bool {
        try AppleMatcher(aasa: AASAGenerator.document(for: site)).verdicts(for: "https://example.com" + path)[site.iosApps[app].appID] == .match
    }

    static func parser(_ table: RouteTable, _ path: String) -> LinkMatch? {
        table.resolve("https://example.com" + path).match
    }

    /// Route-level differences (no named platform limit) over the invariant test's corpus.
    static func unexplained(_ table: RouteTable) throws -> [InvariantDifference] {
        let site = table.sites[0]
        let urls = InvariantCheck.sampleURLs(site: site) + InvariantTests.corpus(site: site)
        return try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: urls).filter { $0.knownLimitation == nil }
    }

    @Test("shape 1: Android 15 handles a literal '+' beside a parameter", arguments: AndroidParserGeneration.allCases)
    func plusBesideParameter(_ generation: AndroidParserGeneration) throws {
        let site = try Self.table(#"{ name: "ab", path: "/a+b/{id}" }, { name: "pre", path: "/p/+{id}" }"#).sites[0]
        for path in ["/a+b/42", "/a+b/42/", "/p/+42"] { #expect(try Self.handled(site, generation, path), "\(path)") }
        for path in ["/ab/42", "/aab/42", "/a+b/", "/a+b//", "/a+b/4/2", "/p/+"] { #expect(try !Self.handled(site, generation, path), "\(path)") }
    }

    @Test("shape 2: no generated rule is one Android 15's PatternMatcher rejects; '/c++/{id}' works", arguments: AndroidParserGeneration.allCases)
    func rejectedRule(_ generation: AndroidParserGeneration) throws {
        let site = try Self.table(#"{ name: "cpp", path: "/c++/{id}" }, { name: "after", path: "/after/{id}" }"#).sites[0]
        let file = try AssetLinksFile.parse(AssetLinksGenerator.bytes(for: site), generation: generation).get()
        #expect(file.statements.allSatisfy { $0.dynamicAppLinkRules.rejectedComponents.isEmpty })
        #expect(try Self.handled(site, generation, "/c++/42"))
        #expect(try Self.handled(site, generation, "/after/42"))
        #expect(try !Self.handled(site, generation, "/c++/"))
        #expect(try !Self.handled(site, generation, "/other"))
        #expect(try Self.android(site, generation, "/other")?.exception == nil)
    }

    @Test("shape 3: a '%3F' or '%2A' literal is one character on Android, and validate names the limit with a URL that shows it")
    func wildcardLiterals() throws {
        let table = try Self.table(#"{ name: "what", path: "/what%3F/{id}" }, { name: "star", path: "/a%2Ab/{id}" }"#)
        let site = table.sites[0]
        for generation in AndroidParserGeneration.allCases {
            #expect(try Self.handled(site, generation, "/what%3F/1"))
            #expect(try Self.handled(site, generation, "/a%2Ab/1"))
            // A rule cannot say "a literal '*'": no longer any run of characters, one at most.
            #expect(try !Self.handled(site, generation, "/aXYZb/1"))
            #expect(try !Self.handled(site, generation, "/ab/1"))
        }
        let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: [("https://example.com/whatX/1", site.entries[0])])
        #expect(!diffs.isEmpty && diffs.allSatisfy { $0.knownLimitation == .androidWildcardLiteral })
        #expect(Self.parser(table, "/whatX/1") == nil)
    }

    @Test("shape 4: Android claims both Unicode spellings of a oneOf value, as the parser and iOS do", arguments: AndroidParserGeneration.allCases)
    func decomposedOneOf(_ generation: AndroidParserGeneration) throws {
        let table = try Self.table(#"{ name: "c", path: "/{c}/x", params: { c: { oneOf: ["caf\u00e9"] } } }"#)
        let site = table.sites[0]
        for path in ["/caf%C3%A9/x", "/cafe%CC%81/x"] {
            #expect(Self.parser(table, path)?.route == "c")
            #expect(try Self.handled(site, generation, path), "\(path)")
            #expect(try Self.iosClaims(site, path), "\(path)")
        }
        #expect(try !Self.handled(site, generation, "/cafe/x"))
    }

    @Test("shape 5: a required query name matches in both Unicode spellings on every platform, as in the parser", arguments: AndroidParserGeneration.allCases)
    func queryNameSpellings(_ generation: AndroidParserGeneration) throws {
        let table = try Self.table(#"{ name: "size", path: "/size", query: { "gr\u00f6\u00dfe": { required: true } } }"#)
        let site = table.sites[0]
        for query in ["gr%C3%B6%C3%9Fe=L", "gro%CC%88%C3%9Fe=L"] {
            #expect(Self.parser(table, "/size?" + query)?.route == "size")
            #expect(try Self.handled(site, generation, "/size?" + query), "\(query)")
            #expect(try Self.iosClaims(site, "/size?" + query), "\(query)")
        }
        #expect(try !Self.handled(site, generation, "/size?grosse=L"))
    }

    /// A deterministic generator (xorshift64*), so a failure names a seed that reproduces it.
    struct XorShift: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
    }

    /// Literal text from all of printable ASCII and some Unicode (composed and decomposed).
    static func randomLiteral(_ rng: inout XorShift) -> String {
        let unicode: [String] = ["\u{e9}", "e\u{301}", "\u{65e5}", "\u{1F600}", "\u{df}", "\u{2603}"]
        var out = ""
        for _ in 0..<Int.random(in: 1...5, using: &rng) {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: out += unicode.randomElement(using: &rng)!
            // Half the time a character some glob reads specially.
            case 1, 2, 3: out.append("+*?\\.[]{}^-,".randomElement(using: &rng)!)
            default:
                out.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &rng)))
            }
        }
        return out
    }

    @Test("property: no Android rule generated for a route validate accepts is one PatternMatcher rejects, on Android 15 or 16", arguments: 0..<4)
    func noRejectedRules(batch: UInt64) throws {
        var rng = XorShift(state: 0x3030 + batch)
        var checked = 0
        for _ in 0..<60 {
            let a = PercentEncoding.encodeComponent(Self.randomLiteral(&rng))
            let b = PercentEncoding.encodeComponent(Self.randomLiteral(&rng))
            let value = Self.randomLiteral(&rng)
            let routes = [
                "/\(a)/{id}", "/\(a){id}", "/\(a)/{id}\(b)", "/x/{id}/\(a)", "/\(a)/{x}/\(b)/{y}", "/\(a)/{rest*}", "/\(a)/{id}/{rest*}",
            ].enumerated().map { i, path in #"{ name: "r\#(i)", path: "\#(path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))" }"# }
            let oneOf = #"{ name: "one", path: "/o/{v}/\#(a.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))", params: { v: { oneOf: ["\#(value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))"] } } }"#
            let text = ValidationTests.config(routes: (routes + [oneOf]).joined(separator: ", "))
            guard let loaded = try? ConfigLoader.decode(Data(text.utf8), file: "random.json5"), loaded.config.validate().errors.isEmpty,
                let table = try? RouteTable(config: loaded.config)
            else { continue }
            checked += 1
            let bytes = AssetLinksGenerator.bytes(for: table.sites[0])
            for generation in AndroidParserGeneration.allCases {
                let file = try AssetLinksFile.parse(bytes, generation: generation).get()
                for statement in file.statements {
                    #expect(statement.dynamicAppLinkRules.discardReason == nil, "\(generation) \(a) \(b)")
                    #expect(statement.dynamicAppLinkRules.rejectedComponents.isEmpty, "\(generation): \(statement.dynamicAppLinkRules.rejectedComponents.map(\.json)) for literals \(a.debugDescription), \(b.debugDescription)")
                }
            }
        }
        #expect(checked > 20, "too few random tables were valid: \(checked)")
    }

    @Test("shape 6: on Android a nested route's empty-value guard does not block the shorter route's trailing-slash link", arguments: AndroidParserGeneration.allCases)
    func nestedRoutes(_ generation: AndroidParserGeneration) throws {
        for routes in [
            #"{ name: "leaf", path: "/c/{top}/{sub}/{leaf}" }, { name: "sub", path: "/c/{top}/{sub}" }, { name: "top", path: "/c/{top}" }, { name: "item", path: "/@{handle}/{itemId}" }, { name: "ann", path: "/@{handle}" }"#,
            #"{ name: "top", path: "/c/{top}" }, { name: "sub", path: "/c/{top}/{sub}" }, { name: "leaf", path: "/c/{top}/{sub}/{leaf}" }, { name: "ann", path: "/@{handle}" }, { name: "item", path: "/@{handle}/{itemId}" }"#,
        ] {
            let table = try Self.table(routes)
            let site = table.sites[0]
            for (path, route) in [("/c/a/", "top"), ("/c/a", "top"), ("/c/a/b/", "sub"), ("/c/a/b", "sub"), ("/c/a/b/c/", "leaf"), ("/@ann/", "ann"), ("/@ann/7", "item")] {
                #expect(Self.parser(table, path)?.route == route, "\(path)")
                #expect(try Self.handled(site, generation, path), "\(path) under \(generation)")
                #expect(try Self.iosClaims(site, path), "\(path)")
            }
            for path in ["/c//", "/c/a//", "/c/a/b//", "/c/a/b/c/d", "/@/", "/@ann//"] {
                #expect(Self.parser(table, path) == nil, "\(path)")
                #expect(try !Self.handled(site, generation, path), "\(path) under \(generation)")
            }
        }
    }

    @Test("shape 7: a route of other apps keeps its links from this app's later overlapping route", arguments: AndroidParserGeneration.allCases)
    func perAppOverlaps(_ generation: AndroidParserGeneration) throws {
        let table = try Self.table(
            #"{ name: "shared", path: "/files/{owner}/shared/{rest*}", apps: ["ios", "android"] }, { name: "files", path: "/files/{owner}/{rest*}" }, { name: "o1", path: "/o/{orderId}", query: { a: { required: true } }, apps: ["ios", "android"] }, { name: "o2", path: "/o/{orderId}", query: { b: { required: true } }, apps: ["ios2", "android2"] }"#)
        let site = table.sites[0]
        // (app 0: ios/android, the first route's; app 1: ios2/android2, only the second's.)
        for (path, owners) in [("/files/42/shared/42", [0]), ("/files/42/other/42", [0, 1]), ("/files/a/b/shared/A1", [0, 1]), ("/o/7?a=1&b=1", [0]), ("/o/7?b=1", [1])] {
            let m = Self.parser(table, path)
            for app in 0..<2 {
                #expect((m?.androidPackages.contains(site.androidApps[app].package) ?? false) == owners.contains(app), "parser: \(path) app \(app)")
                #expect(try Self.handled(site, generation, path, app: app) == owners.contains(app), "\(path) app \(app) under \(generation)")
                #expect(try Self.iosClaims(site, path, app: app) == owners.contains(app), "\(path) app \(app) on iOS")
            }
        }
    }

    @Test("shape 8: on iOS the guard of a rest route does not block another route of the same app")
    func restRouteGuard() throws {
        let table = try Self.table(#"{ name: "shared", path: "/files/{owner}/shared/{rest*}", apps: ["ios", "android"] }, { name: "files", path: "/files/{owner}/{rest*}", apps: ["ios", "android"] }"#)
        let site = table.sites[0]
        #expect(Self.parser(table, "/files/a/b/shared/A1")?.route == "files")
        #expect(try Self.iosClaims(site, "/files/a/b/shared/A1"))
        #expect(try Self.iosClaims(site, "/files/a/shared/A1"))
        #expect(try !Self.iosClaims(site, "/files//b/shared/A1"))
        #expect(Self.parser(table, "/files//b/shared/A1") == nil)
    }
}

@Suite("validate: warnings are what the user can fix")
struct HonestValidateTests {
    @Test("shipped configs: no platform limit is a warning; each is listed with a link that shows it", arguments: GoldenFileTests.configs)
    func shippedConfigs(config: String) throws {
        let path = GoldenFileTests.root.appendingPathComponent(config == "linkwell" ? "config/linkwell.json5" : "config/examples/\(config).json5").path
        let report = ConfigValidator.validate(path: path)
        #expect(report.isValid)
        for w in report.warnings {
            #expect(!(w.fix ?? "").hasPrefix("nothing to do"), "\(w)")
            #expect(!w.message.hasPrefix("platform limit"), "\(w)")
        }
        #expect(!report.limits.isEmpty)
        let table = try #require(report.table)
        for limit in report.limits {
            // The example shows the limit: the matchers disagree with the parser on it, for that reason.
            let site = table.sites[limit.site]
            let entry = site.entries[0]
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: [(limit.example, entry)])
            #expect(diffs.contains { $0.knownLimitation == limit.limit && $0.platformName == limit.platform }, "\(limit)")
        }
    }

    @Test("computers: '/arduino.h%74ml' (no route) is claimed on iOS and Android, and validate lists both limits")
    func computersEncodedSuffix() throws {
        let path = GoldenFileTests.root.appendingPathComponent("config/examples/computers.json5").path
        let report = ConfigValidator.validate(path: path)
        let table = try #require(report.table)
        let url = "https://rw-universal-links-final.herokuapp.com/arduino.h%74ml"
        #expect(table.resolve(url).match == nil)
        let diffs = try InvariantCheck.rawDifferences(GeneratedSite(table.sites[0]), table: table, urls: [(url, table.sites[0].entries[0])])
        #expect(Set(diffs.compactMap(\.knownLimitation)) == [.appleDecodedPath, .androidDecodedPath])
        #expect(report.limits.contains { $0.limit == .appleDecodedPath })
        #expect(report.limits.contains { $0.limit == .androidDecodedPath })
    }

    @Test("a limit the user can avoid stays a warning, naming the route and a link that shows it")
    func actionableLimit() throws {
        let report = try ValidationTests.validate(ValidationTests.config(routes: #"{ name: "what", path: "/what%3F/{id}" }"#))
        let warning = try #require(report.warnings.first { $0.message.contains(InvariantDifference.KnownLimitation.androidWildcardLiteral.explanation) })
        #expect(warning.message.contains("route 'what'"))
        #expect(!(warning.fix ?? "").hasPrefix("nothing to do"))
        #expect(!report.limits.contains { $0.limit == .androidWildcardLiteral })
    }
}
