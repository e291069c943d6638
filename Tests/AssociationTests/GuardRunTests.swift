// Before a route's guard matchers are compiled, an entry's sample paths must hold the literal
// runs of one of its guards in order; these hold the runs and the test to what the guards match.

import Foundation
import Testing
@testable import Association
import LinkRouting

@Suite("Guard runs")
struct GuardRunTests {
    /// The compiled routes of a one-site config with a route per path in `sources`.
    static func entries(_ sources: [String]) throws -> [CompiledEntry] {
        let routes = sources.enumerated().map { "{ name: \"r\($0.offset)\", path: \"\($0.element)\" }" }.joined(separator: ", ")
        let config = """
            { sites: [{ name: "s", domains: ["s.example"], ios: [{ id: "a", teamID: "ABCDE12345", bundleID: "com.example.a" }],
                        routes: [\(routes)] }] }
            """
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-guard-runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("runs.json5").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        return try RouteTable(config: try ConfigLoader.load(path: path).config).sites[0].entries
    }

    @Test("each guard's runs are its literal stretches, in order")
    func runs() throws {
        let e = try #require(try Self.entries(["/shop/{lang}/docs/{page}"]).first)
        let runs = PreparedEntries.guardRuns(e, androidPaths: ComponentPlan.androidPaths(for: e))
        let globs = ComponentPlan.guardGlobs(e.pattern)
        #expect(globs == ["/shop/*/?*/docs/?*", "/shop/?*/docs/*/?*"])
        #expect(runs.prefix(2).map { $0.map { String(decoding: $0, as: UTF8.self) } } == [["/shop/", "/", "/docs/"], ["/shop/", "/docs/", "/"]])
        // Android's guards too, after Apple's.
        #expect(runs.count == globs.count + ComponentPlan.androidPaths(for: e).filter(\.isGuard).count)
    }

    @Test("a sample holds a guard's runs only in their order, encoded or decoded")
    func holds() {
        let runs: [[[UInt8]]] = [[Array("/shop/".utf8), Array("/docs/".utf8)]]
        #expect(PreparedEntries.anySample([SamplePath("/shop/en/docs/a")], holdsRunsOf: runs))
        #expect(PreparedEntries.anySample([SamplePath("/shop/items/1"), SamplePath("/shop/x/y/docs/z")], holdsRunsOf: runs))
        #expect(!PreparedEntries.anySample([SamplePath("/shop/items/1")], holdsRunsOf: runs))
        #expect(!PreparedEntries.anySample([SamplePath("/docs/shop/a")], holdsRunsOf: runs))
        // Decoded, `%64ocs` is `docs`.
        #expect(PreparedEntries.anySample([SamplePath("/shop/en/%64ocs/a")], holdsRunsOf: runs))
        #expect(!PreparedEntries.anySample([SamplePath("/shop/en/docs/a")], holdsRunsOf: []))
        #expect(PreparedEntries.anySample([SamplePath("/x")], holdsRunsOf: [[]]))
    }

    @Test("every sample a route's guard matchers match holds that guard's runs")
    func runsAreNecessary() throws {
        let shapes = ["/shop/{lang}/docs/{page}", "/s/{slug}.html", "/k/{a}/{b}", "/{lang}/help", "/@{handle}", "/f/{id}.txt/{rest*}", "/c++/{id}"]
        let entries = try Self.entries(shapes)
        let paths = ["/shop/en/docs/a", "/shop/a/b/docs/c", "/shop/en/docs/a/b", "/s/a/b.html", "/s/.html", "/k/a/b/c", "/k//b",
                     "/x/y/help", "/en/help", "/@a/b", "/f/a/b.txt/c", "/c++/a/b", "/c++/", "/shop/docs/x", "/a/b/c/d"]
        var matched = 0
        for r in entries {
            let androidPaths = ComponentPlan.androidPaths(for: r)
            let guards = ComponentPlan.guardMatchers(r, androidPaths: androidPaths)
            let runs = PreparedEntries.guardRuns(r, androidPaths: androidPaths)
            for path in paths where guards.matches(SamplePath(path)) {
                matched += 1
                #expect(PreparedEntries.anySample([SamplePath(path)], holdsRunsOf: runs), "\(r.pattern.source): \(path)")
            }
        }
        #expect(matched >= 5)
    }

    @Test("a pattern shape rules out only pairs that do not overlap")
    func shapes() throws {
        let sources = ["/", "/a", "/a/b", "/a/{x}", "/{x}", "/{x}/b", "/{rest*}", "/a/{rest*}", "/b/{x}", "/a/b/{rest*}", "/{x}.html", "/a.html"]
        let entries = try Self.entries(sources)
        var ruledOut = 0
        for a in entries {
            for b in entries {
                let may = PatternShape(a.pattern).mayOverlap(PatternShape(b.pattern))
                if a.pattern.overlaps(b.pattern) { #expect(may, "\(a.pattern.source) and \(b.pattern.source)") }
                if !may { ruledOut += 1 }
            }
        }
        #expect(ruledOut > 20)
        #expect(!PatternShape(entries[1].pattern).mayOverlap(PatternShape(entries[2].pattern)))  // /a, /a/b
        #expect(!PatternShape(entries[3].pattern).mayOverlap(PatternShape(entries[8].pattern)))  // /a/{x}, /b/{x}
    }
}
