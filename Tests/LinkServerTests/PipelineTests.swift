// The load pipeline at scale: a load and a reload of 10,000 routes generate each site's files
// exactly once (counted, not timed), and the snapshot serves those very bytes.

import Association
import Foundation
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

@Suite("Load pipeline: each stage once")
struct PipelineTests {
    /// `sites` sites of `routesPerSite` routes each, with an iOS and an Android app.
    static func config(sites: Int, routesPerSite: Int) -> String {
        var out = "{\n  server: { listen: [\"127.0.0.1:0\"], admin: \"off\" },\n  sites: [\n"
        for s in 0..<sites {
            out += """
                {
                  name: "s\(s)", domains: ["s\(s).example.com"],
                  ios: [{ teamID: "ABCDE12345", bundleID: "com.example.s\(s)" }],
                  android: [{ package: "com.example.s\(s)", fingerprints: ["AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"] }],
                  routes: [

                """
            for r in 0..<routesPerSite {
                out += "        { name: \"r\(r)\", path: \"/section\(r)/{id}\" },\n"
            }
            out += "      ],\n    },\n"
        }
        return out + "  ],\n}\n"
    }

    @Test("load and reload at 10k routes: one generation per site per load")
    func tenThousandRoutes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkwell-pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("linkwell.json5").path
        // 40 × 250: each site's AASA stays under Apple's 128 KB, so the config is valid.
        let sites = 40
        try Self.config(sites: sites, routesPerSite: 250).write(toFile: path, atomically: true, encoding: .utf8)

        let load = GenerationCounter()
        let (first, report) = GenerationCounter.$current.withValue(load) { ServerRuntime.loadSnapshot(configPath: path) }
        let snapshot = try #require(first, "\(report.errors.prefix(3))")
        #expect(snapshot.table.sites.reduce(0) { $0 + $1.entries.count } == 10_000)
        Self.expectOnce(load, sites: sites, "load")

        let runtime = ServerRuntime(configPath: path, initial: snapshot, version: "test", log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)))
        let reload = GenerationCounter()
        let reloaded = GenerationCounter.$current.withValue(reload) { runtime.reload(reason: "test") }
        #expect(reloaded)
        #expect(runtime.snapshot !== snapshot)
        Self.expectOnce(reload, sites: sites, "reload")

        // The snapshot serves the bytes generated during validation, unchanged.
        for site in runtime.snapshot.sites {
            #expect(site.aasa?.ok.body == site.generated.aasa)
            #expect(site.assetLinks?.ok.body == site.generated.assetLinks)
            #expect(site.generated.aasa == AASAGenerator.bytes(for: site.compiled))
        }
    }

    static func expectOnce(_ counter: GenerationCounter, sites: Int, _ what: String) {
        for s in 0..<sites {
            for stage in GenerationCounter.Stage.allCases {
                #expect(counter.count(stage, site: s) == 1, "\(what): site \(s) ran \(stage) \(counter.count(stage, site: s)) times")
            }
        }
        #expect(counter.total == sites * GenerationCounter.Stage.allCases.count, "\(what): \(counter.total) generator runs")
    }
}
