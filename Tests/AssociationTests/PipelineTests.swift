// The load pipeline generates each site's files once, and the invariant check never passes a
// file it could not read.

import Foundation
import Testing
@testable import Association
import LinkRouting

@Suite("Load pipeline")
struct PipelineTests {
    @Test("validate generates each site's files once, the platform check included", arguments: GoldenFileTests.configs)
    func validateGeneratesOnce(config: String) throws {
        let path = GoldenFileTests.root.appendingPathComponent(config == "linkwell" ? "config/linkwell.json5" : "config/examples/\(config).json5").path
        let counter = GenerationCounter()
        let report = GenerationCounter.$current.withValue(counter) { ConfigValidator.validate(path: path, platformCheck: true) }
        let validated = try #require(report.validated, "\(report.errors)")
        for site in validated.table.sites {
            for stage in GenerationCounter.Stage.allCases {
                #expect(counter.count(stage, site: site.index) == 1, "\(config) site \(site.name): \(stage) ran \(counter.count(stage, site: site.index)) times")
            }
        }
        #expect(counter.total == validated.table.sites.count * GenerationCounter.Stage.allCases.count)
    }

    @Test("a reload that reuses a site reports its semantic warnings again without running the checks")
    func reusedSiteKeepsItsSemanticWarnings() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-semantic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("linkwell.json5").path
        func site(_ n: Int, emptyExclusion: Bool) -> String {
            """
              { name: "s\(n)", domains: ["s\(n).example.com"],
                ios: [{ teamID: "ABCDE12345", bundleID: "com.example.s\(n)" }],
                routes: [\(emptyExclusion ? "{ exclude: \"/nothing/*\" }, " : ""){ name: "post", path: "/post/{id}" }] },

            """
        }
        try "{ sites: [\n\(site(0, emptyExclusion: true))\(site(1, emptyExclusion: false))] }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let first = ConfigValidator.validate(path: path, platformCheck: false)
        let validated = try #require(first.validated, "\(first.errors)")
        let warning = try #require(first.diagnostics.first { $0.path == "sites[0].routes[0].exclude" }, "\(first.diagnostics)")
        #expect(warning.severity == .warning && warning.message.contains("excludes nothing"))
        #expect(validated.sites[0].semanticDiagnostics.count == 1 && validated.sites[1].semanticDiagnostics.isEmpty)

        // Unchanged file: both sites reused, the checks not run, the same report.
        let counter = GenerationCounter()
        let again = GenerationCounter.$current.withValue(counter) { ConfigValidator.validate(path: path, platformCheck: false, reusing: validated.sites) }
        #expect(counter.count(.semanticChecks, site: 0) == 0 && counter.count(.semanticChecks, site: 1) == 0)
        #expect(again.diagnostics.map(\.description) == first.diagnostics.map(\.description))

        // Site 1 gains the same mistake: only it is checked again, and both warnings are reported.
        try "{ sites: [\n\(site(0, emptyExclusion: true))\(site(1, emptyExclusion: true))] }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let edited = GenerationCounter()
        let third = GenerationCounter.$current.withValue(edited) { ConfigValidator.validate(path: path, platformCheck: false, reusing: validated.sites) }
        #expect(edited.count(.semanticChecks, site: 0) == 0 && edited.count(.semanticChecks, site: 1) == 1)
        #expect(third.diagnostics.filter { $0.message.contains("excludes nothing") }.map(\.path) == ["sites[0].routes[0].exclude", "sites[1].routes[0].exclude"])
        // What a fresh validation of the edited file reports.
        #expect(third.diagnostics.map(\.description) == ConfigValidator.validate(path: path, platformCheck: false).diagnostics.map(\.description))
    }

    struct Unreadable: CustomTestStringConvertible, Sendable {
        var name: String
        var aasa: String?
        var assetLinks: String?
        var file: InvariantCheckError.File
        var mustMention: String
        var testDescription: String { name }
    }

    static let unreadable: [Unreadable] = [
        Unreadable(name: "an AASA that is not JSON", aasa: "<html>502 Bad Gateway</html>", file: .aasa, mustMention: "not strict JSON"),
        Unreadable(name: "an AASA without applinks", aasa: #"{"webcredentials": {"apps": []}}"#, file: .aasa, mustMention: "applinks"),
        Unreadable(name: "an empty AASA", aasa: "", file: .aasa, mustMention: "apple-app-site-association"),
        Unreadable(name: "an assetlinks.json with a trailing comma", assetLinks: #"[{"relation": [],},]"#, file: .assetLinks, mustMention: "assetlinks.json"),
        Unreadable(name: "an assetlinks.json that is an object", assetLinks: #"{"relation": []}"#, file: .assetLinks, mustMention: "assetlinks.json"),
    ]

    @Test("a file the matcher cannot read is an error, not \"no differences\"", arguments: unreadable)
    func unreadableFileThrows(u: Unreadable) throws {
        let table = try GoldenFileTests.table("linkwell")
        let site = try #require(table.sites.first { !$0.iosApps.isEmpty && !$0.androidApps.isEmpty })
        let generated = GeneratedSite(site)
        // The real files pass, so the failure below comes from the bytes fed in.
        _ = try InvariantCheck.rawDifferences(generated, table: table)
        let aasa = u.aasa.map { Array($0.utf8) } ?? generated.aasa
        let assetLinks = u.assetLinks.map { Array($0.utf8) } ?? generated.assetLinks
        let error = try #require(throws: InvariantCheckError.self) {
            try InvariantCheck.rawDifferences(site: site, aasa: aasa, assetLinks: assetLinks, table: table)
        }
        #expect(error.file == u.file)
        #expect(error.site == site.index)
        let d = error.diagnostic(file: "linkwell.json5")
        #expect(d.severity == .error)
        #expect(d.path == "sites[\(site.index)]")
        #expect(d.description.contains(u.mustMention), "\(d)")
        #expect(d.description.contains(site.name))
    }
}
