// The load pipeline at scale: a load of 10,000 routes generates each site's files exactly once
// (counted, not timed), a reload generates only the sites whose config changed, and the snapshot
// serves those very bytes.

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

    @Test("load and reload at 10k routes: one generation per site per load, none for an unchanged site on reload")
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
        // A reload of the same file: no site changed, so none is compiled or generated again.
        let reload = GenerationCounter()
        let reloaded = GenerationCounter.$current.withValue(reload) { runtime.reload(reason: "test") }
        #expect(reloaded)
        #expect(runtime.snapshot !== snapshot)
        #expect(reload.total == 0, "an unchanged reload generated \(reload.total) times")
        for (old, new) in zip(snapshot.sites, runtime.snapshot.sites) {
            #expect(new.compiled.isSameCompilation(as: old.compiled))
        }
        Self.expectServesFreshBytes(runtime.snapshot)

        // One route of site 7 changed, sites 3 and 4 swapped: exactly those three are compiled and
        // generated again (a site is reused only at the same position with an equal config).
        var edited = Self.config(sites: sites, routesPerSite: 250)
        edited = edited.replacingOccurrences(of: "name: \"s7\", domains: [\"s7.example.com\"]", with: "name: \"s7\", domains: [\"s7.example.com\", \"www.s7.example.com\"]")
        let site3 = try #require(edited.range(of: "{\n  name: \"s3\""))
        let site4 = try #require(edited.range(of: "{\n  name: \"s4\""))
        let site5 = try #require(edited.range(of: "{\n  name: \"s5\""))
        let three = String(edited[site3.lowerBound..<site4.lowerBound]), four = String(edited[site4.lowerBound..<site5.lowerBound])
        edited.replaceSubrange(site3.lowerBound..<site5.lowerBound, with: four + three)
        try edited.replacingOccurrences(of: "/section249/{id}\" },\n      ],\n    },\n{\n  name: \"s8\"", with: "/section249/{id}/more\" },\n      ],\n    },\n{\n  name: \"s8\"")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let before = runtime.snapshot
        let partial = GenerationCounter()
        #expect(GenerationCounter.$current.withValue(partial) { runtime.reload(reason: "test") })
        let after = runtime.snapshot
        #expect(after.sites[3].name == "s4" && after.sites[4].name == "s3")
        #expect(after.sites[7].compiled.exactDomains == ["s7.example.com", "www.s7.example.com"])
        #expect(after.sites[7].compiled.entries.last?.pattern.source == "/section249/{id}/more")
        for s in 0..<sites {
            let regenerated = [3, 4, 7].contains(s)
            for stage in GenerationCounter.Stage.allCases {
                #expect(partial.count(stage, site: s) == (regenerated ? 1 : 0), "site \(s) ran \(stage) \(partial.count(stage, site: s)) times")
            }
            #expect(after.sites[s].compiled.isSameCompilation(as: before.sites[s].compiled) == !regenerated, "site \(s)")
        }
        Self.expectServesFreshBytes(after)
    }

    /// Every site serves the bytes validation generated, and they are what generating its
    /// compiled site afresh gives (a reused site must not serve stale files).
    static func expectServesFreshBytes(_ snapshot: Snapshot) {
        let fresh = try? RouteTable(config: snapshot.table.config)
        #expect(fresh != nil)
        for site in snapshot.sites {
            #expect(site.aasa?.ok.body == site.generated.aasa)
            #expect(site.assetLinks?.ok.body == site.generated.assetLinks)
            #expect(site.generated.aasa == AASAGenerator.bytes(for: site.compiled))
            if let fresh {
                #expect(site.generated.aasa == AASAGenerator.bytes(for: fresh.sites[site.compiled.index]), "site \(site.name)")
                #expect(site.generated.assetLinks == AssetLinksGenerator.bytes(for: fresh.sites[site.compiled.index]), "site \(site.name)")
            }
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
