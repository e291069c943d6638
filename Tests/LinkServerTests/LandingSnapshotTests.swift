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

    static func body(_ snapshot: Snapshot, _ target: String, host: String, ua: String?, lang: String? = nil) -> [UInt8] {
        Responder.respond(snapshot, RequestFacts(rawTarget: target, host: host, userAgent: ua, acceptLanguage: lang)).response.body
    }

    @Test("a config copied to a folder outside the repository serves the same page bytes")
    func configAnywhere() throws {
        let fm = FileManager.default
        let repoConfig = Fixture.root.appendingPathComponent("config/linkwell.json5").path
        let dir = fm.temporaryDirectory.appendingPathComponent("linkwell-etc-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("linkwell.json5").path
        try fm.copyItem(atPath: repoConfig, toPath: copy)
        let here = try #require(ServerRuntime.loadSnapshot(configPath: repoConfig).0)
        let there = try #require(ServerRuntime.loadSnapshot(configPath: copy).0)
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"
        for (target, host) in [("/post/42", "diallodev.online"), ("/signup?referralCode=T1", "fitconnect.app"), ("/issue?id=45", "ioscoffeebreak.com"),
                               ("/nope", "diallodev.online"), ("/static/linkwell.css", "diallodev.online"), ("/favicon.svg", "fitconnect.app")] {
            for ua in [iPhone, nil] {
                let a = Self.body(here, target, host: host, ua: ua)
                #expect(!a.isEmpty)
                #expect(a == Self.body(there, target, host: host, ua: ua), "\(host)\(target)")
            }
        }
        let page = String(decoding: Self.body(there, "/post/42", host: "diallodev.online", ua: iPhone), as: UTF8.self)
        #expect(page.contains("/static/linkwell.css") && page.contains("apple-itunes-app") && page.contains("id=\"app-store\""))
    }

    @Test("server.publicDir that does not exist: no snapshot, an error naming the folder and the key")
    func missingPublicDir() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("linkwell-nopub-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let config = dir.appendingPathComponent("linkwell.json5")
        try """
        { server: { publicDir: "does-not-exist" },
          sites: [{ name: "shop", domains: ["shop.example.com"],
                    ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }],
                    routes: [{ name: "item", path: "/item/{id}" }] }] }
        """.write(to: config, atomically: true, encoding: .utf8)
        let (snapshot, report) = ServerRuntime.loadSnapshot(configPath: config.path)
        #expect(snapshot == nil)
        #expect(report.errors.contains { $0.description.contains("does-not-exist") && $0.description.contains("server.publicDir") })
        // On reload: a config that starts pointing at a missing folder keeps the old snapshot.
        try """
        { sites: [{ name: "shop", domains: ["shop.example.com"],
                    ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }],
                    routes: [{ name: "item", path: "/item/{id}" }] }] }
        """.write(to: config, atomically: true, encoding: .utf8)
        let first = try #require(ServerRuntime.loadSnapshot(configPath: config.path).0)
        let runtime = ServerRuntime(configPath: config.path, initial: first, version: "test", log: EventLog(format: .json, fileDescriptor: open("/dev/null", O_WRONLY)))
        try """
        { server: { publicDir: "does-not-exist" },
          sites: [{ name: "shop", domains: ["shop.example.com"],
                    ios: [{ id: "ios", teamID: "ABCDE12345", bundleID: "com.example.shop", schemes: ["shop"] }],
                    routes: [{ name: "item", path: "/item/{id}" }] }] }
        """.write(to: config, atomically: true, encoding: .utf8)
        #expect(runtime.reload(reason: "test") == false)
        #expect(runtime.snapshot === first)
    }
}
