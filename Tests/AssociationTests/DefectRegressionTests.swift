// One regression test per numbered defect of issue 11 ("Platform fidelity, second round"), each
// on the shipped config or the two-route table that reproduced it. Defects 10 and 13's CLI parts
// (`check --json`, `verify --host`) are in tests/live/test_cli.py under the same numbers.

import Foundation
import Testing
import Association
import LinkRouting
import LinkwellJSON
import PlatformMatchers

@Suite("Issue 11 defects")
struct DefectRegressionTests {
    static func table(routes: String) throws -> RouteTable {
        let report = try ValidationTests.validate(ValidationTests.config(routes: routes))
        return try #require(report.table, "\(report.errors)")
    }

    static func android(_ site: CompiledSite, _ generation: AndroidParserGeneration) throws -> AssetLinksFile {
        try AssetLinksFile.parse(AssetLinksGenerator.bytes(for: site), generation: generation).get()
    }

    static func handled(_ file: AssetLinksFile, _ site: CompiledSite, _ url: String) -> Bool {
        let app = site.androidApps[0]
        return file.handles(url: url, package: app.package, certificates: app.fingerprints)?.handled ?? false
    }

    static func appleClaims(_ site: CompiledSite, _ url: String) throws -> Bool {
        try AppleMatcher(aasa: AASAGenerator.document(for: site)).verdicts(for: url)[site.iosApps[0].appID] == .match
    }

    @Test("defect 1: Android 15 handles the trailing-slash claim and parameters before more text", arguments: AndroidParserGeneration.allCases)
    func defect1(_ generation: AndroidParserGeneration) throws {
        let shipped = try GoldenFileTests.table("diallodev")
        let diallodev = try #require(shipped.site(named: "diallodev"))
        #expect(Self.handled(try Self.android(diallodev, generation), diallodev, "https://diallodev.online/post/42/"))
        // A literal '.' with no wildcard is a dead LITERAL on Android 15 ('/arduino\.html').
        let computers = try GoldenFileTests.table("computers").sites[0]
        #expect(Self.handled(try Self.android(computers, generation), computers, "https://rw-universal-links-final.herokuapp.com/arduino.html"))
        let table = try Self.table(routes: #"{ name: "reviews", path: "/p/{id}/reviews" }, { name: "item", path: "/item-{id}.html" }, { name: "s", path: "/s/{a}/{b}" }"#)
        let site = table.sites[0]
        let file = try Self.android(site, generation)
        for url in ["https://example.com/p/42/reviews", "https://example.com/item-42.html", "https://example.com/s/a/b", "https://example.com/s/a/b/"] {
            #expect(Self.handled(file, site, url), "\(url) under \(generation)")
        }
        // No expression anywhere has '?*' followed by more pattern.
        for config in GoldenFileTests.configs {
            for s in try GoldenFileTests.table(config).sites {
                let text = String(decoding: AssetLinksGenerator.bytes(for: s), as: UTF8.self)
                #expect(!text.contains("?*/") && !text.contains("?*."), "\(config)")
            }
        }
    }

    @Test("defect 2: the guard of a parameter just before a rest parameter does not block the rest")
    func defect2() throws {
        let site = try Self.table(routes: #"{ name: "files", path: "/u/{user}/{path*}" }"#).sites[0]
        #expect(try Self.appleClaims(site, "https://example.com/u/ann/docs/a.txt"))
        #expect(try Self.appleClaims(site, "https://example.com/u/ann"))
        #expect(try !Self.appleClaims(site, "https://example.com/u//docs"))
        let paths = ComponentPlan(site: site).components(for: .apple, appliesTo: { _ in true }).map(\.path)
        #expect(!paths.contains("/u/*/?*/*"))
    }

    @Test("defect 3: a prefix/suffix parameter stays in its segment on Android, and is never empty", arguments: AndroidParserGeneration.allCases)
    func defect3(_ generation: AndroidParserGeneration) throws {
        let site = try Self.table(routes: #"{ name: "item", path: "/item-{id}.html" }, { name: "suf", path: "/a/{x}-suf" }, { name: "json", path: "/b/{x}.json" }, { name: "rev", path: "/p/{id}/reviews" }"#).sites[0]
        let file = try Self.android(site, generation)
        for url in ["/item-a/b.html", "/item-a/b.html/", "/item-.html", "/a/p/q-suf", "/a/-suf", "/b/p/q.json", "/b/.json", "/p//reviews", "/p//x/reviews"] {
            #expect(!Self.handled(file, site, "https://example.com" + url), "\(url) under \(generation)")
        }
        for url in ["/item-42.html", "/item-42.html/", "/a/p-suf", "/b/p.json", "/p/42/reviews"] {
            #expect(Self.handled(file, site, "https://example.com" + url), "\(url) under \(generation)")
        }
    }

    @Test("defect 4: percent-encoded query names are decoded, as both platforms do")
    func defect4() throws {
        let table = try GoldenFileTests.table("fitconnect")
        let m = try #require(table.resolve("https://fitconnect.app/signup?%72eferralCode=TRAINER123").match)
        #expect(m.route == "signup")
        #expect(m.parameters["referralCode"] == "TRAINER123")
        #expect(table.resolve("https://fitconnect.app/signup?%72eferralcode=TRAINER123").match == nil)
    }

    @Test("defect 5: appID is ignored whenever appIDs is present, even empty")
    func defect5() throws {
        let aasa = try JSONValue.parse(#"{"applinks": {"details": [{"appIDs": [], "appID": "ABCDE12345.com.example.app", "components": [{"/": "*"}]}]}}"#)
        let matcher = try AppleMatcher(aasa: aasa)
        #expect(matcher.verdicts(for: "https://example.com/anything").isEmpty)
        #expect(matcher.warnings.contains { $0.contains("appID") && $0.contains("appIDs") })
        let legacy = try AppleMatcher(aasa: try JSONValue.parse(#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["*"]}]}}"#))
        #expect(legacy.verdicts(for: "https://example.com/anything")["ABCDE12345.com.example.app"] == .match)
    }

    @Test("defect 6: a literal '$(' is rejected with the reason", arguments: ["/$(lang)/{id}", "/%24(lang)/{id}", "/x/pre$(v){id}"])
    func defect6(_ path: String) throws {
        let report = try ValidationTests.validate(ValidationTests.config(routes: #"{ name: "l", path: "\#(path)" }"#))
        let error = try #require(report.errors.first { $0.path == "sites[0].routes[0].path" })
        #expect(error.message.contains("substitution variable"))
        #expect(error.message.contains("route 'l'"))
    }

    @Test("defect 7: a run of trailing slashes is insignificant on iOS; the guards still hold")
    func defect7() throws {
        let buy = try AppleMatcher(aasa: try JSONValue.parse(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/"}]}]}}"#))
        for url in ["https://example.com/buy", "https://example.com/buy/", "https://example.com/buy//", "https://example.com/buy///"] {
            #expect(buy.verdicts(for: url)["ABCDE12345.com.example.app"] == .match, "\(url)")
        }
        let table = try GoldenFileTests.table("diallodev")
        let site = try #require(table.site(named: "diallodev"))
        #expect(try Self.appleClaims(site, "https://diallodev.online/post/a1//"))
        #expect(try !Self.appleClaims(site, "https://diallodev.online/post/a1/x//"))
        #expect(try Self.appleClaims(site, "https://diallodev.online/AI//"))
        let warnings = try InvariantCheck.differences(GeneratedSite(site), table: table).map { $0.diagnostic(file: nil).message }
        #expect(warnings.contains { $0.contains("run of trailing '/'") && $0.contains("route 'aiWorkspace'") })
    }

    @Test("defect 8: characters browsers send raw in a path match in both spellings, in the parser, on iOS and on Android")
    func defect8() throws {
        let table = try Self.table(routes: #"{ name: "pipe", path: "/a|b/{id}" }, { name: "brackets", path: "/[x]^/{id}" }"#)
        let site = table.sites[0]
        let urls = ["https://example.com/a|b/42", "https://example.com/a%7Cb/42", "https://example.com/[x]^/42", "https://example.com/%5Bx%5D%5E/42"]
        for url in urls {
            #expect(table.resolve(url).match != nil, "\(url)")
            #expect(try Self.appleClaims(site, url), "\(url)")
            for g in AndroidParserGeneration.allCases { #expect(Self.handled(try Self.android(site, g), site, url), "\(url)") }
        }
        let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table, urls: urls.map { ($0, site.entries[0]) })
        #expect(diffs.isEmpty, "\(diffs.map(\.url))")
        // The builder writes the encoded spelling, which Foundation's URL accepts.
        #expect(try table.build(site: site.name, route: "pipe", parameters: ["id": "42"], form: .https) == "https://example.com/a%7Cb/42")
    }

    @Test("defect 9: oneOf values are compared decoded by the parser and in the AASA")
    func defect9() throws {
        let table = try GoldenFileTests.table("computers")
        let site = table.sites[0]
        for url in ["https://rw-universal-links-final.herokuapp.com/%61rduino.html", "https://rw-universal-links-final.herokuapp.com/arduino.html"] {
            #expect(table.resolve(url).match?.parameters["item"] == "arduino", "\(url)")
            #expect(try Self.appleClaims(site, url), "\(url)")
        }
        #expect(try !Self.appleClaims(site, "https://rw-universal-links-final.herokuapp.com/commodore64.html"))
        // Composed and decomposed spellings of a non-ASCII value: the parser compares by canonical
        // equivalence, iOS by scalars, so the AASA lists both.
        let menu = try Self.table(routes: #"{ name: "dish", path: "/dish/{name}", params: { name: { oneOf: ["caf\u00e9"] } } }"#)
        for url in ["https://example.com/dish/caf%C3%A9", "https://example.com/dish/cafe%CC%81"] {
            #expect(menu.resolve(url).match?.route == "dish", "\(url)")
            #expect(try Self.appleClaims(menu.sites[0], url), "\(url)")
        }
    }

    @Test("defect 11: Android accepts a repeated query parameter when any occurrence matches; the message says so")
    func defect11() throws {
        let table = try GoldenFileTests.table("fitconnect")
        let site = table.sites[0]
        for generation in AndroidParserGeneration.allCases {
            let file = try Self.android(site, generation)
            for url in ["https://fitconnect.app/signup?referralCode=a1&referralCode=", "https://fitconnect.app/signup?referralCode=&referralCode=a1"] {
                #expect(Self.handled(file, site, url), "\(url)")
                #expect(table.resolve(url).match == nil, "\(url)")
            }
        }
        let message = InvariantDifference.KnownLimitation.androidRepeatedQuery.explanation
        #expect(message.contains("any one occurrence"))
        #expect(!message.contains("only the first"))
    }

    @Test("defect 12: validate names the undocumented Android limits once per site, with an example")
    func defect12() throws {
        let report = try ValidationTests.validate(
            ValidationTests.config(routes: #"{ name: "ab", path: "/a/{x}/{y}" }, { name: "search", path: "/search", query: { q: { required: true } } }"#))
        // (Listed by `validate --limits`, not warnings: nothing in the config can change them.)
        for limit in [InvariantDifference.KnownLimitation.androidDecodedPath, .androidSemicolonQuery, .androidEncodedSlashClaims] {
            let hits = report.limits.filter { $0.limit == limit }
            #expect(hits.count == 1, "\(limit)")
            #expect(hits.first?.description.contains("(e.g. https://example.com/") == true, "\(limit)")
        }
    }

    @Test("defect 13: validate refuses an assetlinks.json over Android's 1 MiB body limit")
    func defect13() throws {
        // Android has no substitution variables: two 160-value lists spell out 25,600 paths.
        let values = (0..<160).map { "\"v\($0)\"" }.joined(separator: ", ")
        let report = try ValidationTests.validate(
            ValidationTests.config(routes: #"{ name: "grid", path: "/{a}/{b}", params: { a: { oneOf: [\#(values)] }, b: { oneOf: [\#(values)] } } }"#))
        let error = try #require(report.errors.first { $0.message.contains("assetlinks.json") })
        #expect(error.message.contains("1 MiB"))
        #expect(error.path == "sites[0].routes")
    }
}
