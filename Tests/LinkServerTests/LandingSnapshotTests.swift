import Foundation
import LinkRouting
import Testing
@testable import LinkServer
import MicroHTTP

// Templates are part of the snapshot: a broken one fails the build, so a reload keeps the old one.

@Suite("Responder: landing snapshot")
struct ResponderLandingSnapshotTests {
    static func workspace(landing: String) throws -> (config: String, dir: URL) {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("linkwell-snap-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixture.publicDir, toPath: dir.appendingPathComponent("public").path)
        try landing.write(to: dir.appendingPathComponent("public/templates/landing.html"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("linkwell.json5")
        try """
        { server: { publicDir: "public" },
          sites: [{ name: "shop", domains: ["shop.example.com"],
                    ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }],
                    routes: [{ name: "item", path: "/item/{id}" }] }] }
        """.write(to: config, atomically: true, encoding: .utf8)
        return (config.path, dir)
    }

    @Test("a template that does not compile: no snapshot, an error naming the file")
    func badTemplate() throws {
        let (config, dir) = try Self.workspace(landing: "<!doctype html><script>{{title}}</script>")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (snapshot, report) = ServerRuntime.loadSnapshot(configPath: config)
        #expect(snapshot == nil)
        #expect(report.errors.contains { $0.description.contains("landing.html") })
    }

    @Test("a reload with a broken template keeps serving the old snapshot")
    func reloadKeepsOld() throws {
        let (config, dir) = try Self.workspace(landing: "<!doctype html><title>{{title}}</title><p id=v1>{{appName}}</p>")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (first, _) = ServerRuntime.loadSnapshot(configPath: config)
        let snapshot = try #require(first)
        let runtime = ServerRuntime(configPath: config, initial: snapshot, version: "test", log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)))
        try "<p>{{#unclosed}}</p>".write(to: dir.appendingPathComponent("public/templates/landing.html"), atomically: true, encoding: .utf8)
        #expect(runtime.reload(reason: "test") == false)
        #expect(runtime.snapshot === snapshot)
        let r = Responder.respond(runtime.snapshot, RequestFacts(rawTarget: "/item/1", host: "shop.example.com"))
        #expect(String(decoding: r.response.body, as: UTF8.self).contains("<p id=v1>"))
    }
}
