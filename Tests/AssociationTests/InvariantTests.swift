// The one invariant, as a property test: for every route of every shipped config, and of
// generated tables with overlapping shapes, the URLs the generated AASA claims for each iOS
// app and the URLs the generated dynamic components let each Android app handle are exactly
// the URLs the parser accepts for that app — run with the project's own matchers.

import Foundation
import Testing
import Association
import LinkRouting

@Suite("Invariant: platforms claim what the parser accepts")
struct InvariantTests {
    @Test("shipped configs", arguments: GoldenFileTests.configs)
    func shipped(config: String) throws {
        let table = try GoldenFileTests.table(config)
        for site in table.sites {
            let samples = InvariantCheck.sampleURLs(site: site)
            #expect(samples.count > 10, "too few samples for \(site.name)")
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table)
            // Only the documented platform limits remain (InvariantDifference.KnownLimitation).
            let unexpected = diffs.filter { $0.knownLimitation == nil }
            #expect(unexpected.isEmpty, "\(unexpected.prefix(5).map { $0.diagnostic(file: nil).description })")
        }
    }

    /// Tables whose routes overlap in the ways that make the guard exclusions and ordering matter.
    static let tricky: [(String, String)] = [
        ("nested params", #"{ name: "post", path: "/post/{id}" }, { name: "comments", path: "/post/{id}/comments" }, { name: "c2", path: "/post/{id}/comments/{cid}" }"#),
        ("literal before param", #"{ name: "new", path: "/post/new" }, { name: "post", path: "/post/{id}" }"#),
        ("exclusion then routes", #"{ exclude: "/post/drafts/*" }, { name: "post", path: "/post/{id}" }, { name: "edit", path: "/post/{id}/edit" }"#),
        ("rest route", #"{ name: "file", path: "/files/{path*}" }, { name: "home", path: "/" }"#),
        ("prefix in a segment", #"{ name: "user", path: "/u/@{name}" }, { name: "item", path: "/{item}.html", params: { item: { oneOf: ["a", "b.c"] } } }"#),
        ("oneOf", #"{ name: "lang", path: "/{lang}/docs/{page}", params: { lang: { oneOf: ["en", "fr", "pt-BR"] } } }"#),
        ("query routes", #"{ name: "search", path: "/search", query: { q: { required: true }, page: {} } }, { name: "browse", path: "/search/all" }"#),
        ("later route under earlier guard", #"{ name: "a", path: "/a/{x}" }, { name: "b", path: "/a/{x}/b/{y}" }, { name: "c", path: "/a/{x}/{y}/c" }"#),
    ]

    @Test("overlapping shapes", arguments: tricky.map(\.0))
    func overlapping(name: String) throws {
        let routes = Self.tricky.first { $0.0 == name }!.1
        let report = try ValidationTests.validate(ValidationTests.config(routes: routes))
        let table = try #require(report.table, "\(report.errors)")
        for site in table.sites {
            let diffs = try InvariantCheck.rawDifferences(GeneratedSite(site), table: table).filter { $0.knownLimitation == nil }
            #expect(diffs.isEmpty, "\(diffs.prefix(5).map { $0.diagnostic(file: nil).description })")
        }
    }

    @Test("a difference the generator cannot avoid is reported by validate with an example URL")
    func reported() throws {
        // Android's '*' stops at the next '.', so '/?*.html' cannot take 'x_y.z~.html' there;
        // the parser (and iOS) can. Validate must say so, with a URL that shows it.
        let config = ValidationTests.config(routes: #"{ name: "page", path: "/{slug}.html" }"#)
        let report = try ValidationTests.validate(config)
        let table = try #require(report.table)
        let diffs = try InvariantCheck.rawDifferences(GeneratedSite(table.sites[0]), table: table).filter { $0.knownLimitation == nil }
        #expect(!diffs.isEmpty)
        #expect(diffs.allSatisfy { $0.platform == .android })
        let warning = try #require(report.warnings.first { $0.message.contains("route 'page'") && $0.message.contains("Android") })
        #expect(warning.message.contains("https://example.com/"))
        #expect(warning.message.contains(".html"))
        #expect(warning.path == "sites[0].routes[0]")
    }
}

@Suite("Known platform limits")
struct KnownLimitTests {
    @Test("each limit is real: the matchers do disagree with the parser on its example")
    func limitsAreReal() throws {
        let table = try GoldenFileTests.table("linkwell")
        let all = try table.sites.flatMap { try InvariantCheck.rawDifferences(GeneratedSite($0), table: table) }
        let kinds = Set(all.compactMap(\.knownLimitation))
        #expect(kinds.contains(.androidEncodedSlash))
        #expect(kinds.contains(.appleTrailingSlashRun))
        #expect(kinds.contains(.androidRepeatedQuery))
        for d in all where d.knownLimitation == .androidEncodedSlash { #expect(d.parserClaims && !d.platformClaims) }
        for d in all where d.knownLimitation == .appleTrailingSlashRun { #expect(!d.parserClaims && d.platformClaims) }
    }
}
